/**
 * The stored format of a baseline, its own and versioned, independent of the change feed's JSON (the feed may
 * change shape without touching restore). A baseline is a checkpoint (the whole tab) plus the row edits
 * recorded after it (its redo); both are blobs of this format:
 *
 *   gzip( "SPB" | format version (1 byte) | kind (1 byte: C checkpoint, R redo) | V8 structured clone of the body )
 *
 * Format 1 bodies: a checkpoint is `{ name, header, rows }` (rows positional, one typed cell per header
 * column: string, number, boolean or null); a redo is `[change, row, cells | null][]` in the row diff's order.
 * A blob of another format or kind, or whose body does not have this shape, decodes to null: its baseline is
 * treated as never stored (the next look is a first sight), never as rows that changed.
 */
import { deserialize, serialize } from 'node:v8';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { RowEdit, TabContent } from '../repositories/baselines.ts';
import type { CellValue } from '../sources/source.ts';

export const BASELINE_FORMAT = 1;
const MAGIC = [0x53, 0x50, 0x42]; // "SPB"
const CHECKPOINT = 0x43; // "C"
const REDO = 0x52; // "R"
const CHANGES = ['inserted', 'updated', 'deleted'] as const;

function encode(kind: number, body: unknown): Buffer {
  const head = Buffer.from([...MAGIC, BASELINE_FORMAT, kind]);
  return gzipSync(Buffer.concat([head, serialize(body)]), { level: 1 });
}

function decode(kind: number, blob: Buffer): unknown {
  let bytes: Buffer;
  try {
    bytes = gunzipSync(blob);
  } catch {
    return undefined;
  }
  const ours = MAGIC.every((b, i) => bytes[i] === b) && bytes[3] === BASELINE_FORMAT && bytes[4] === kind;
  if (!ours) return undefined;
  try {
    return deserialize(bytes.subarray(5));
  } catch {
    return undefined;
  }
}

export function encodeCheckpoint(content: TabContent): Buffer {
  return encode(CHECKPOINT, { name: content.name, header: content.header, rows: content.typed });
}

/** A checkpoint's content, or null when the blob is not a format-1 checkpoint. */
export function decodeCheckpoint(blob: Buffer): TabContent | null {
  const body = decode(CHECKPOINT, blob) as { name?: unknown; header?: unknown; rows?: unknown } | undefined;
  if (!body || typeof body.name !== 'string' || !isStringArray(body.header)) return null;
  const { rows } = body;
  if (!Array.isArray(rows) || !rows.every(isRow)) return null;
  return { name: body.name, header: body.header, typed: rows as CellValue[][] };
}

export function encodeRedo(edits: readonly RowEdit[]): Buffer {
  return encode(
    REDO,
    edits.map((e) => [e.change, e.row, e.cells]),
  );
}

/** One recorded change's row edits, or null when the blob is not a format-1 redo. */
export function decodeRedo(blob: Buffer): RowEdit[] | null {
  const body = decode(REDO, blob);
  if (!Array.isArray(body)) return null;
  const edits: RowEdit[] = [];
  for (const item of body) {
    if (!Array.isArray(item) || item.length !== 3) return null;
    const [change, row, cells] = item as [unknown, unknown, unknown];
    if (!CHANGES.includes(change as RowEdit['change']) || !Number.isInteger(row) || (row as number) < 1)
      return null;
    if (change === 'deleted' ? cells !== null : !isRow(cells)) return null;
    edits.push({
      change: change as RowEdit['change'],
      row: row as number,
      cells: cells as CellValue[] | null,
    });
  }
  return edits;
}

/**
 * The rows after one recorded change's edits. Unchanged rows are copied up to each edit: to its old index (a
 * deletion) or to its new index (the others); each edit comes at or after the one before it.
 */
export function applyEdits(old: readonly CellValue[][], edits: readonly RowEdit[]): CellValue[][] {
  const out: CellValue[][] = [];
  let oi = 0;
  for (const edit of edits) {
    const target = edit.row - 1;
    const copy = edit.change === 'deleted' ? target - oi : target - out.length;
    for (let n = 0; n < copy && oi < old.length; n++) out.push(old[oi++]!);
    if (edit.change !== 'inserted') oi++;
    if (edit.cells) out.push(edit.cells);
  }
  while (oi < old.length) out.push(old[oi++]!);
  return out;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** An array of typed cells (a tab's rows are as long as its header; a shorter one reads as empty cells). */
function isRow(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const v of value) {
    if (v !== null && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return false;
  }
  return true;
}
