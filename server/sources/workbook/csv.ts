/**
 * A .csv file as one tab. We keep each record's original text, so a write re-emits untouched records
 * byte for byte ("007" stays 007, "1,000" keeps its quotes) and only re-serializes the records it changes,
 * with the file's own delimiter, line ending and BOM. Writing quotes a field only when it has to.
 *
 * CSV has no types: numbers are written canonically (`String(n)`), booleans as `true`/`false` (what our
 * reader types back as booleans), dates as ISO text. No write creates a formula: text that a spreadsheet
 * would run is stored behind a leading `'` (csv-formula-guard.ts).
 */
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { AppError } from '../../errors.ts';
import { interpretInput } from '../input.ts';
import type { CellWrite, WritePlan } from '../plan.ts';
import { isoFromDate } from '../serial-dates.ts';
import type { Mutation, TabSnapshot, WriteOptions } from '../source.ts';
import { buildTab, type GridLimits } from '../tab.ts';
import { guardCsvText } from './csv-formula-guard.ts';
import { refuseOversizedCsv } from './csv-grid-bound.ts';
import type { WorkbookDocument } from './document.ts';
import { readCsvCell } from './values.ts';

/** The one tab's id: 1, like the first tab of an .xlsx file, so sheet_ids look alike for both kinds. */
export const CSV_SHEET_ID = '1';

interface CsvRecord {
  fields: string[];
  /** The record's text as it was in the file (without its line ending); null once we change it. */
  raw: string | null;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Pick `,` `;` or tab by counting them (outside quotes) on the first non-blank line; comma wins ties. */
export function detectDelimiter(text: string): string {
  const counts = new Map<string, number>([
    [',', 0],
    [';', 0],
    ['\t', 0],
  ]);
  let quoted = false;
  let seenContent = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) {
      if (seenContent) break;
      continue;
    } else if (!quoted && counts.has(ch)) counts.set(ch, (counts.get(ch) as number) + 1);
    seenContent = true;
  }
  let best = ',';
  for (const [d, n] of counts) if (n > (counts.get(best) as number)) best = d;
  return best;
}

function textOf(input: CellWrite['value'], options: WriteOptions): string {
  const parsed = interpretInput(input, { ...options, allowFormulas: false });
  switch (parsed.kind) {
    case 'empty':
      return '';
    case 'number':
      return String(parsed.value);
    case 'boolean':
      return parsed.value ? 'true' : 'false';
    case 'date':
      return isoFromDate(parsed.value) ?? '';
    case 'text':
      return guardCsvText(parsed.value);
    case 'formula': // unreachable: formulas are off above; kept so the switch stays exhaustive
      return guardCsvText(`=${parsed.formula}`);
  }
}

/**
 * A .csv file has no cell types: a field is typed from its text when read, so text that reads back as a number
 * or a boolean (`"42"`, `"true"`, `"1e3"`) cannot be kept as text. Such a string is refused with 400 before
 * anything is written, never stored as something else (the client sends the JSON number or boolean, or asks for
 * `?input=user_entered` to have it stored as the sheet would read it).
 */
export function assertCsvKeepsText(mutations: readonly Mutation[], options: WriteOptions): void {
  mutations.forEach((mutation, index) => {
    if (mutation.op === 'delete') return;
    for (const [field, value] of Object.entries(mutation.values)) {
      if (typeof value !== 'string') continue;
      // Only what stays text (user_entered input may parse as a number, a boolean or a date, as intended).
      if (interpretInput(value, { ...options, allowFormulas: false }).kind !== 'text') continue;
      const back = readCsvCell(textOf(value, options))?.typed ?? null;
      if (back === value || typeof back === 'string') continue;
      throw new AppError(
        'invalid_body',
        `The value of field "${field}" is the text ${JSON.stringify(value)}, which a .csv file cannot keep apart from the ${typeof back === 'boolean' ? 'boolean' : 'number'} ${JSON.stringify(back)} (CSV has no cell types). Send it as a JSON ${typeof back === 'boolean' ? 'boolean' : 'number'}, or add ?input=user_entered to store it as the sheet reads it.`,
        { field, index },
      );
    }
  });
}

export class CsvDocument implements WorkbookDocument {
  readonly #records: CsvRecord[];
  readonly #name: string;
  readonly #delimiter: string;
  readonly #eol: string;
  readonly #bom: boolean;
  readonly #finalNewline: boolean;
  #tab: TabSnapshot | null = null;
  readonly #limits: GridLimits | undefined;

  constructor(init: {
    records: CsvRecord[];
    name: string;
    delimiter: string;
    eol: string;
    bom: boolean;
    finalNewline: boolean;
    limits: GridLimits | undefined;
  }) {
    this.#records = init.records;
    this.#name = init.name;
    this.#delimiter = init.delimiter;
    this.#eol = init.eol;
    this.#bom = init.bom;
    this.#finalNewline = init.finalNewline;
    this.#limits = init.limits;
  }

  static parse(bytes: Uint8Array, fileName: string, limits?: GridLimits): CsvDocument {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const bom = buf.subarray(0, 3).equals(BOM);
    const body = bom ? buf.subarray(3) : buf;
    const text = body.toString('utf8');
    const firstLf = text.indexOf('\n');
    const eol = firstLf > 0 && text[firstLf - 1] === '\r' ? '\r\n' : '\n';
    const delimiter = detectDelimiter(text);
    const name = path.basename(fileName, path.extname(fileName));
    refuseOversizedCsv(text, delimiter, name, limits);
    let parsed: { record: string[]; info: { bytes: number } }[];
    try {
      parsed = parse(body, {
        delimiter,
        record_delimiter: ['\r\n', '\n'],
        relax_column_count: true,
        relax_quotes: true,
        skip_empty_lines: false,
        info: true,
      }) as unknown as { record: string[]; info: { bytes: number } }[];
    } catch (e) {
      throw new AppError('upstream_error', `Could not read CSV file: ${(e as Error).message}`);
    }
    // `info.bytes` is the byte offset after each record: slice the original text of every record from it
    // (csv-parse's own `raw` option loses the \n of CRLF endings).
    let offset = 0;
    const records = parsed.map(({ record, info }) => {
      let raw = body.subarray(offset, info.bytes).toString('utf8');
      offset = info.bytes;
      if (raw.endsWith('\r\n')) raw = raw.slice(0, -2);
      else if (raw.endsWith('\n')) raw = raw.slice(0, -1);
      return { fields: record, raw };
    });
    // A new (empty) file gets the conventional trailing newline; otherwise keep what the file had.
    const finalNewline = text === '' || text.endsWith('\n');
    return new CsvDocument({ records, name, delimiter, eol, bom, finalNewline, limits });
  }

  tab(sourceSheetId: string): TabSnapshot | undefined {
    if (sourceSheetId !== CSV_SHEET_ID) return undefined;
    this.#tab ??= buildTab(
      CSV_SHEET_ID,
      this.#name,
      this.#records.map((r) => r.fields.map(readCsvCell)),
      this.#limits,
    );
    return this.#tab;
  }

  tabs(): TabSnapshot[] {
    return [this.tab(CSV_SHEET_ID) as TabSnapshot];
  }

  apply(sourceSheetId: string, plan: WritePlan, options: WriteOptions): void {
    const tab = this.tab(sourceSheetId);
    if (!tab) throw new AppError('sheet_not_found', `No tab with id ${sourceSheetId}`);
    this.#tab = null;
    const width = plan.header.length;
    const headerIndex = plan.newHeader ? 0 : tab.headerRow - 1;

    for (const { row, cells } of plan.updates) {
      const record = this.#records[headerIndex + row] as CsvRecord;
      const fields = [...record.fields];
      while (fields.length < width) fields.push('');
      for (const { column, value } of cells) fields[column] = textOf(value, options);
      this.#records[headerIndex + row] = { fields, raw: null };
    }
    for (const row of plan.deletes) this.#records.splice(headerIndex + row, 1);

    if (plan.newHeader) {
      // Empty file (or only blank lines): the appended keys become the header on line 1.
      const header = { fields: plan.header.map(guardCsvText), raw: null };
      if (this.#records.length === 0) this.#records.push(header);
      else this.#records[0] = header;
    }
    let at = headerIndex + 1 + tab.typed.length - plan.deletes.length;
    for (const cells of plan.appends) {
      const fields = new Array<string>(width).fill('');
      for (const { column, value } of cells) fields[column] = textOf(value, options);
      this.#records.splice(at, 0, { fields, raw: null });
      at++;
    }
  }

  #quote(field: string): string {
    const needs =
      field.includes(this.#delimiter) || field.includes('"') || field.includes('\n') || field.includes('\r');
    return needs ? `"${field.replace(/"/g, '""')}"` : field;
  }

  async serialize(): Promise<readonly Uint8Array[]> {
    const lines = this.#records.map(
      (r) => r.raw ?? r.fields.map((f) => this.#quote(f)).join(this.#delimiter),
    );
    let text = lines.join(this.#eol);
    if (lines.length > 0 && this.#finalNewline) text += this.#eol;
    const body = Buffer.from(text, 'utf8');
    return this.#bom ? [BOM, body] : [body];
  }
}
