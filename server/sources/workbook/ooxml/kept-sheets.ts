/**
 * A large workbook's sheets as a write holds them (cut into pieces of rows, each deflated: sheet-xml-load.ts),
 * in a form kept on disk beside the file's kept read, so a restart on the same bytes takes them back instead of
 * inflating, cutting and deflating every sheet again (a million rows: 3.1-3.5 s of both cores before the first
 * write after a restart could start; the kept form, 68 MB, is read back and checked on a thread of its own in
 * about 0.7 s, beside the package's parse, and its pieces made in 33 ms).
 *
 * Only sheets as they were made are kept: every piece closed, nothing moved or changed since. The form is data
 * only (strings, numbers, typed arrays, each piece's bytes in a buffer of its own), checked whole before any of
 * it is taken; anything unexpected means the sheets are prepared from the file as without it.
 */
import type { PreparedForm } from '../document.ts';
import type { DeflatedPiece } from './chunked-deflate.ts';
import type { FormulaFacts } from './formula-reach.ts';
import type { OoxmlPackage } from './ooxml-package.ts';
import { RowPiece } from './row-piece.ts';
import { SheetXml } from './sheet-xml.ts';

/** Raise when the form below changes shape: a form kept in another is then never taken. */
const KEPT_SHEETS_FORMAT = 1;

/** One sheet: its text around the rows, then per piece its row count, bytes and facts (rows' numbers and lengths joined). */
interface KeptSheet {
  part: string;
  prefix: string;
  head: string;
  tail: string;
  counts: number[];
  numbers: Int32Array;
  lengths: Int32Array;
  compressed: Uint8Array[];
  crcs: number[];
  sizes: number[];
  formulas: boolean[];
  reach: number[];
  shared: boolean[];
}

interface KeptSheets {
  format: number;
  sheets: KeptSheet[];
}

/** The package's held sheets in their kept form, or null when there is none or one is no longer as made. */
export function keptSheetsOf(pkg: OoxmlPackage): PreparedForm | null {
  const sheets: KeptSheet[] = [];
  const buffers = new Set<ArrayBuffer>();
  for (const [part, sheet] of pkg.sheets) {
    if (sheet.changed || pkg.texts.has(part)) return null;
    const kept = keptSheetOf(part, sheet, buffers);
    if (!kept) return null;
    sheets.push(kept);
  }
  if (sheets.length === 0) return null;
  const payload: KeptSheets = { format: KEPT_SHEETS_FORMAT, sheets };
  return { payload, buffers: [...buffers] };
}

function keptSheetOf(part: string, sheet: SheetXml, buffers: Set<ArrayBuffer>): KeptSheet | null {
  const pieces: NonNullable<RowPiece['closedAsMade']>[] = [];
  for (const piece of sheet.pieces) {
    const made = piece.closedAsMade;
    if (!made) return null;
    pieces.push(made);
  }
  const total = pieces.reduce((sum, piece) => sum + piece.numbers.length, 0);
  const numbers = new Int32Array(total);
  const lengths = new Int32Array(total);
  let at = 0;
  for (const piece of pieces) {
    numbers.set(piece.numbers, at);
    lengths.set(piece.lengths, at);
    at += piece.numbers.length;
  }
  buffers.add(numbers.buffer);
  buffers.add(lengths.buffer);
  const compressed = pieces.map(({ deflated }) => {
    const bytes = deflated.compressed;
    // A view spanning its whole buffer is kept as it is; any other is copied into one of its own.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const view = own ? new Uint8Array(bytes.buffer, 0, bytes.byteLength) : new Uint8Array(bytes);
    buffers.add(view.buffer as ArrayBuffer);
    return view;
  });
  return {
    part,
    prefix: sheet.prefix,
    head: sheet.head,
    tail: sheet.tail,
    counts: pieces.map((piece) => piece.numbers.length),
    numbers,
    lengths,
    compressed,
    crcs: pieces.map((piece) => piece.deflated.crc),
    sizes: pieces.map((piece) => piece.deflated.size),
    formulas: pieces.map((piece) => piece.facts.formulas),
    reach: pieces.map((piece) => piece.facts.reach),
    shared: pieces.map((piece) => piece.facts.shared),
  };
}

/**
 * Holds the sheets of a kept form (`keptSheetsOf` of a package on the very same bytes) in `pkg`, unless one is
 * held already. True when every sheet was taken; false, taking none, when the form is not one this code keeps
 * or does not fit the package.
 */
export function takeKeptSheets(pkg: OoxmlPackage, form: unknown): boolean {
  if (!isKeptSheets(form)) return false;
  for (const sheet of form.sheets) {
    if (!pkg.archive.has(sheet.part) || pkg.sheets.has(sheet.part) || pkg.texts.has(sheet.part)) return false;
  }
  for (const sheet of form.sheets) pkg.sheets.set(sheet.part, sheetOf(sheet));
  return true;
}

function sheetOf(kept: KeptSheet): SheetXml {
  const pieces: RowPiece[] = [];
  let at = 0;
  kept.counts.forEach((count, i) => {
    const bytes = kept.compressed[i] as Uint8Array;
    const deflated: DeflatedPiece = {
      compressed: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      crc: kept.crcs[i] as number,
      size: kept.sizes[i] as number,
    };
    const facts: FormulaFacts = {
      formulas: kept.formulas[i] as boolean,
      reach: kept.reach[i] as number,
      shared: kept.shared[i] as boolean,
    };
    // Copies, not views: a piece's numbers are sent to piece threads, and a view would carry the whole array.
    const numbers = kept.numbers.slice(at, at + count);
    const lengths = kept.lengths.slice(at, at + count);
    pieces.push(RowPiece.closed(deflated, numbers, lengths, facts));
    at += count;
  });
  return new SheetXml({ prefix: kept.prefix, head: kept.head, tail: kept.tail, pieces });
}

const isString = (value: unknown) => typeof value === 'string';
const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

function isKeptSheets(form: unknown): form is KeptSheets {
  const kept = form as Partial<KeptSheets> | null;
  return (
    typeof kept === 'object' &&
    kept !== null &&
    kept.format === KEPT_SHEETS_FORMAT &&
    Array.isArray(kept.sheets) &&
    kept.sheets.length > 0 &&
    kept.sheets.every(isKeptSheet)
  );
}

/** Every field of the shape expected, every per-piece list as long as the counts, the counts adding up. */
function isKeptSheet(value: unknown): value is KeptSheet {
  const sheet = value as Partial<KeptSheet> | null;
  if (typeof sheet !== 'object' || sheet === null) return false;
  if (![sheet.part, sheet.prefix, sheet.head, sheet.tail].every(isString)) return false;
  const { counts, numbers, lengths, compressed, crcs, sizes, formulas, reach, shared } = sheet;
  if (!(numbers instanceof Int32Array && lengths instanceof Int32Array)) return false;
  if (!Array.isArray(counts) || !counts.every(isCount)) return false;
  const pieces = counts.length;
  const lists = [compressed, crcs, sizes, formulas, reach, shared];
  if (!lists.every((list) => Array.isArray(list) && list.length === pieces)) return false;
  const rows = counts.reduce((sum, count) => sum + count, 0);
  return (
    numbers.length === rows &&
    lengths.length === rows &&
    (compressed as unknown[]).every((bytes) => bytes instanceof Uint8Array) &&
    (crcs as unknown[]).every(Number.isInteger) &&
    [...(sizes as unknown[]), ...(reach as unknown[])].every(isCount) &&
    [...(formulas as unknown[]), ...(shared as unknown[])].every((flag) => typeof flag === 'boolean')
  );
}
