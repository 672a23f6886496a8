/**
 * A .csv file as one tab. We keep each record's original text, so a write re-emits untouched records
 * byte for byte ("007" stays 007, "1,000" keeps its quotes) and only re-serializes the records it changes,
 * with the file's own delimiter, line ending and BOM. Writing quotes a field only when it has to.
 *
 * CSV has no types: numbers are written canonically (`String(n)`), booleans as `true`/`false` (what our
 * reader types back as booleans), dates as ISO text. No write creates a formula: text that a spreadsheet
 * would run is stored behind a leading `'` (csv-formula-guard.ts).
 */

import { AppError } from '../../errors.ts';
import { noteSharedRows, rowsAround } from '../../lib/shared-rows.ts';
import { interpretInput } from '../input.ts';
import type { CellWrite, WritePlan } from '../plan.ts';
import { isoOfDate } from '../serial-dates.ts';
import type { CellValue, Mutation, TabSnapshot, WriteOptions } from '../source.ts';
import type { GridLimits } from '../tab.ts';
import { rowCountOf } from '../tab-rows.ts';
import { guardCsvText } from './csv-formula-guard.ts';
import { BOM, CSV_SHEET_ID, type CsvLayout } from './csv-layout.ts';
import { type CsvRead, csvNameOf, readCsv } from './csv-read.ts';
import { fieldsOfRecord } from './csv-scan.ts';
import { type CsvTab, csvRow, decodeCsvTab, isBlankRow } from './csv-tab.ts';
import type { WorkbookDocument } from './document.ts';
import { readCsvCell } from './values.ts';

export { CSV_SHEET_ID, detectDelimiter } from './csv-layout.ts';

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
      return isoOfDate(parsed.value) ?? parsed.text;
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

/** One record of the file as the document holds it: the index of a record of the bytes read, or new text. */
type Piece = number | string;

const LF = 0x0a;
const CR = 0x0d;

/**
 * The file as a write edits it: the bytes read (never copied), each record either one of theirs or new text, and
 * the tab. Reading it costs no parse here: the parse thread found the records and typed the tab.
 */
export class CsvDocument implements WorkbookDocument {
  readonly #name: string;
  readonly #layout: CsvLayout;
  readonly #limits: GridLimits | undefined;
  #bytes: Buffer;
  #starts: Float64Array;
  #ends: Float64Array;
  /**
   * The file's records, in order; null while they are the records read followed by `#after` (an append-only
   * document never makes this array of a million entries).
   */
  #pieces: Piece[] | null = null;
  #after: string[] = [];
  #tab: CsvTab;
  /** The tab's version after the last write, while its rows are still to be made (`#current`). */
  #later: (() => CsvTab) | null = null;
  /**
   * Whether the file's end is exactly what a save of the document would write there (its last line ending is the
   * file's own), so lines written after it give the file a save would.
   */
  #cleanEnd: boolean;
  /** The records the writes since the last save added at the file's end, when that is all they did; else null. */
  #added: string[] | null = [];

  constructor(read: CsvRead, bytes: Uint8Array, tab: CsvTab, name: string, limits: GridLimits | undefined) {
    this.#name = name;
    this.#layout = read.layout;
    this.#limits = limits;
    this.#bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#starts = read.starts;
    this.#ends = read.ends;
    this.#tab = tab;
    this.#cleanEnd = this.#endIsClean();
  }

  static parse(bytes: Uint8Array, fileName: string, limits?: GridLimits): CsvDocument {
    const read = readCsv(bytes, fileName, limits);
    return new CsvDocument(read, bytes, decodeCsvTab(read.tab), csvNameOf(fileName), limits);
  }

  #endIsClean(): boolean {
    const b = this.#bytes;
    const n = b.length;
    if (this.#count() === 0) return false;
    if (!this.#layout.finalNewline) return b[n - 1] !== CR;
    return this.#layout.eol === '\r\n' ? b[n - 2] === CR && b[n - 1] === LF : b[n - 2] !== CR;
  }

  tab(sourceSheetId: string): TabSnapshot | undefined {
    return sourceSheetId === CSV_SHEET_ID ? this.#current() : undefined;
  }

  tabs(): TabSnapshot[] {
    return [this.#current()];
  }

  apply(sourceSheetId: string, plan: WritePlan, options: WriteOptions): void {
    if (sourceSheetId !== CSV_SHEET_ID)
      throw new AppError('sheet_not_found', `No tab with id ${sourceSheetId}`);
    if (plan.newHeader) {
      this.#applyByRebuild(plan, options);
      return;
    }
    const tab = this.#current();
    const appendOnly = plan.updates.length === 0 && plan.deletes.length === 0;
    const pieces = appendOnly && this.#pieces === null ? null : this.#records();
    const headerIndex = tab.headerRow - 1;
    const width = plan.header.length;
    const updated: { index: number; row: CellValue[] }[] = [];
    for (const { row, cells } of plan.updates) {
      const fields = this.#fieldsOf(headerIndex + row);
      while (fields.length < width) fields.push('');
      for (const { column, value } of cells) fields[column] = textOf(value, options);
      pieces![headerIndex + row] = this.#line(fields);
      updated.push({ index: row - 1, row: csvRow(fields, tab) });
    }
    for (const row of plan.deletes) pieces!.splice(headerIndex + row, 1);
    let at = headerIndex + 1 + rowCountOf(tab) - plan.deletes.length;
    const atEnd = at === this.#count();
    const added: string[] = [];
    const addedRows: CellValue[][] = [];
    for (const cells of plan.appends) {
      const fields = new Array<string>(width).fill('');
      for (const { column, value } of cells) fields[column] = textOf(value, options);
      const line = this.#line(fields);
      if (pieces) pieces.splice(at++, 0, line);
      else if (atEnd) this.#after.push(line);
      else this.#records().splice(at++, 0, line);
      added.push(line);
      addedRows.push(csvRow(fields, tab));
    }
    // The records are edited; the tab's rows (a copy of a million at most writes) are made when first asked for:
    // the file layer asks while the saved file is flushed (`makeLater`).
    this.#later = () => this.#rowsAfter(tab, updated, plan.deletes, addedRows);

    const onlyAdded = appendOnly && atEnd && this.#cleanEnd;
    this.#added = onlyAdded && this.#added ? [...this.#added, ...added] : null;
  }

  /** The tab after a write's rows: `updated` (0-based), then the data rows `deletes` one by one, then `added`. */
  #rowsAfter(
    tab: CsvTab,
    updated: readonly { index: number; row: CellValue[] }[],
    deletes: readonly number[],
    addedRows: CellValue[][],
  ): CsvTab {
    const columns = tab.header.length;
    const appendOnly = updated.length === 0 && deletes.length === 0;
    // Appends alone copy the old rows once, at their final length (below); other writes edit a copy here.
    const typed = appendOnly ? tab.typed : tab.typed.slice();
    /** A cell of the last column was emptied: the tab may have become narrower. */
    let lastColumnLost = false;
    for (const { index, row } of updated) {
      if (typed[index]![columns - 1] !== null && row[columns - 1] === null) lastColumnLost = true;
      typed[index] = row;
    }
    for (const row of deletes) {
      if (typed[row - 1]![columns - 1] !== null) lastColumnLost = true;
      typed.splice(row - 1, 1);
    }
    // Pushing onto a copy of a million rows would grow it again (another 12 MB a write): one concat instead.
    let rows = addedRows.length > 0 ? typed.concat(addedRows) : typed;
    // The tab builder's rules: trailing rows without a cell are not rows, the width is the widest row's.
    if (rows === tab.typed && rows.length > 0 && isBlankRow(rows[rows.length - 1]!)) rows = rows.slice();
    while (rows.length > 0 && isBlankRow(rows[rows.length - 1]!)) rows.pop();
    if (deletes.length === 0)
      noteKeptRows(
        tab.typed,
        rows,
        updated.map(({ index }) => index),
        addedRows.length,
      );
    const narrower = lastColumnLost && !reachesColumn(tab, rows, columns);
    return narrower ? this.#reread() : tab.withRows(rows);
  }

  /** The tab as the writes left it, its rows made now if the last write left them for later. */
  #current(): CsvTab {
    if (this.#later) {
      // Cleared only once made: a failure leaves every later ask failing too, never the version before the write.
      this.#tab = this.#later();
      this.#later = null;
    }
    return this.#tab;
  }

  makeLater(): void {
    this.#current();
  }

  #count(): number {
    return this.#pieces ? this.#pieces.length : this.#starts.length + this.#after.length;
  }

  /** The records as one array (made on the first write that needs it). */
  #records(): Piece[] {
    if (!this.#pieces) {
      // Made at its length at once: grown a push at a time, a million records were copied about twenty times.
      const read = this.#starts.length;
      const pieces = new Array<Piece>(read + this.#after.length);
      for (let i = 0; i < read; i++) pieces[i] = i;
      this.#after.forEach((line, i) => {
        pieces[read + i] = line;
      });
      this.#pieces = pieces;
      this.#after = [];
    }
    return this.#pieces;
  }

  /** A write the records alone cannot follow (a header made for an empty file): applied to fields, read again. */
  #applyByRebuild(plan: WritePlan, options: WriteOptions): void {
    const tab = this.#current();
    const lines: Piece[] = this.#records().slice();
    const headerIndex = plan.newHeader ? 0 : tab.headerRow - 1;
    const header = plan.header.map(guardCsvText);
    if (lines.length === 0) lines.push(this.#line(header));
    else lines[0] = this.#line(header);
    let at = headerIndex + 1 + tab.typed.length;
    for (const cells of plan.appends) {
      const fields = new Array<string>(plan.header.length).fill('');
      for (const { column, value } of cells) fields[column] = textOf(value, options);
      lines.splice(at++, 0, this.#line(fields));
    }
    this.#pieces = lines;
    this.#tab = this.#reread();
    this.#added = null;
  }

  /** The document's tab read anew from what a save would write (rare: the grid's shape changed). */
  #reread(): CsvTab {
    const bytes = Buffer.concat(this.#chunks());
    return CsvDocument.parse(bytes, `${this.#name}.csv`, this.#limits).#tab;
  }

  /** The fields of record k. */
  #fieldsOf(k: number): string[] {
    const read = this.#starts.length;
    const piece = this.#pieces ? this.#pieces[k] : k < read ? k : this.#after[k - read];
    if (piece === undefined) return [];
    const bytes =
      typeof piece === 'string'
        ? Buffer.from(piece, 'utf8')
        : this.#bytes.subarray(this.#starts[piece], this.#ends[piece]);
    return fieldsOfRecord(bytes, this.#layout.delimiter);
  }

  #line(fields: readonly string[]): string {
    return fields.map((f) => this.#quote(f)).join(this.#layout.delimiter);
  }

  #quote(field: string): string {
    const d = this.#layout.delimiter;
    const needs = field.includes(d) || field.includes('"') || field.includes('\n') || field.includes('\r');
    return needs ? `"${field.replace(/"/g, '""')}"` : field;
  }

  /**
   * The bytes the writes since the last save add after the file's last byte, when that is all they change: the
   * file with them is exactly what `serialize` gives. Null when the writes changed anything else.
   */
  appendedBytes(): Uint8Array | null {
    const added = this.#added;
    if (!added || added.length === 0) return null;
    const { eol, finalNewline } = this.#layout;
    const text = finalNewline ? added.map((l) => l + eol).join('') : added.map((l) => eol + l).join('');
    return Buffer.from(text, 'utf8');
  }

  /** The file now holds what the document does (written either way). */
  saved(): void {
    this.#added = [];
    this.#cleanEnd = this.#count() > 0;
  }

  async serialize(): Promise<readonly Uint8Array[]> {
    return this.#chunks();
  }

  /**
   * The file as chunks: runs of untouched records straight from the bytes read (their own line endings
   * between them), new records as text, joined by the file's line ending.
   */
  #chunks(): Buffer[] {
    const { eol, bom, finalNewline } = this.#layout;
    const chunks: Buffer[] = bom ? [BOM] : [];
    const pieces = this.#records();
    let text = '';
    for (let k = 0; k < pieces.length; ) {
      if (k > 0) text += eol;
      const piece = pieces[k]!;
      if (typeof piece === 'string') {
        text += piece;
        k++;
        continue;
      }
      let last = piece;
      k++;
      while (k < pieces.length && pieces[k] === last + 1) {
        last++;
        k++;
      }
      if (text) chunks.push(Buffer.from(text, 'utf8'));
      text = '';
      chunks.push(this.#bytes.subarray(this.#starts[piece], this.#ends[last]));
    }
    if (pieces.length > 0 && finalNewline) text += eol;
    if (text) chunks.push(Buffer.from(text, 'utf8'));
    return chunks;
  }
}

/** What the parse thread's read of a .csv becomes in the service: its tab, and the document a write edits. */
export function receivedCsv(read: CsvRead) {
  // Its rows are made behind its first answers: a million rows take about a second of this thread.
  const tab = decodeCsvTab(read.tab);
  return {
    tabs: [tab],
    documentFor: async (bytes: Uint8Array, fileName: string, limits?: GridLimits) =>
      new CsvDocument(read, bytes, tab, csvNameOf(fileName), limits),
  };
}

/** Whether any row (the header's included) still has a cell in column `columns`. */
function reachesColumn(tab: CsvTab, typed: readonly (readonly unknown[])[], columns: number): boolean {
  if (tab.headerTexts[columns - 1] !== '') return true;
  return typed.some((row) => row[columns - 1] !== null);
}

/**
 * Without deletes, every row above the first updated and below the last (when none was added or dropped at the
 * end) is the old version's own: the change's diff starts past them (lib/shared-rows.ts).
 */
function noteKeptRows(
  old: CellValue[][],
  rows: CellValue[][],
  updated: readonly number[],
  added: number,
): void {
  const around = rowsAround(updated, old.length);
  const sameLength = added === 0 && rows.length === old.length;
  noteSharedRows(rows, old, around.head, sameLength ? around.tail : 0);
}
