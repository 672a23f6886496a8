/**
 * How a .csv file is written, read from its bytes: a UTF-8 byte order mark or not, its delimiter (`,` `;` or
 * tab), its line ending (that of its first line), whether it ends with one. A write keeps all four.
 */

/** The one tab's id: 1, like the first tab of an .xlsx file, so sheet_ids look alike for both kinds. */
export const CSV_SHEET_ID = '1';

export const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface CsvLayout {
  bom: boolean;
  delimiter: string;
  eol: '\r\n' | '\n';
  /** The file ends with a line ending (an empty file gets one, the convention). */
  finalNewline: boolean;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const DELIMITERS = [',', ';', '\t'] as const;

export function layoutOf(buf: Buffer): CsvLayout {
  const bom = buf.length >= 3 && buf[0] === BOM[0] && buf[1] === BOM[1] && buf[2] === BOM[2];
  const from = bom ? 3 : 0;
  const firstLf = buf.indexOf(LF, from);
  const eol = firstLf > from && buf[firstLf - 1] === CR ? '\r\n' : '\n';
  return {
    bom,
    delimiter: delimiterOf(buf, from),
    eol,
    finalNewline: buf.length === from || buf[buf.length - 1] === LF,
  };
}

/** Pick `,` `;` or tab by counting them (outside quotes) on the first non-blank line; comma wins ties. */
export function detectDelimiter(text: string): string {
  return delimiterOf(Buffer.from(text, 'utf8'), 0);
}

/** `detectDelimiter` over bytes: every character it looks at is ASCII, so the bytes give the same answer. */
function delimiterOf(buf: Buffer, from: number): string {
  const counts = [0, 0, 0];
  const codes = DELIMITERS.map((d) => d.charCodeAt(0));
  let quoted = false;
  let seenContent = false;
  for (let i = from; i < buf.length; i++) {
    const ch = buf[i];
    if (ch === QUOTE) quoted = !quoted;
    else if (!quoted && (ch === LF || ch === CR)) {
      if (seenContent) break;
      continue;
    } else if (!quoted) {
      const at = codes.indexOf(ch!);
      if (at >= 0) counts[at]!++;
    }
    seenContent = true;
  }
  let best = 0;
  for (let d = 1; d < counts.length; d++) if (counts[d]! > counts[best]!) best = d;
  return DELIMITERS[best]!;
}
