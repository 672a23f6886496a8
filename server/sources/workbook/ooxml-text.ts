/**
 * OOXML's own escape for text XML cannot carry (ECMA-376 Part 1, 22.9.2.19 ST_Xstring): a character is written
 * as `_xHHHH_`, and a literal `_xHHHH_` in the text as `_x005F_xHHHH_`. Excel and LibreOffice read both back.
 * We escape what XML 1.0 forbids or a parser rewrites: C0 controls other than TAB and LF, CR (a parser turns
 * CR and CRLF into LF), and the noncharacters U+FFFE and U+FFFF.
 */

const NEEDS_ESCAPE = /[\x00-\x08\x0B-\x1F\uFFFE\uFFFF]|_(?=x[0-9A-Fa-f]{4}_)/g;
const ESCAPED = /_x([0-9A-Fa-f]{4})_/g;

const hex4 = (code: number) => code.toString(16).toUpperCase().padStart(4, '0');

/** Text as it goes into a cell of the file. */
export function encodeCellText(text: string): string {
  NEEDS_ESCAPE.lastIndex = 0;
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(NEEDS_ESCAPE, (ch) => `_x${hex4(ch.charCodeAt(0))}_`);
}

/** Text as a cell of the file holds it -> the text it stands for. */
export function decodeCellText(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(ESCAPED, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
