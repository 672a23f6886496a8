/**
 * The stored format of a baseline, its own and versioned, independent of the change feed's JSON (the feed may
 * change shape without touching restore). A baseline is a checkpoint (the whole tab) plus the row edits
 * recorded after it (its redo); both are blobs of this format:
 *
 *   gzip( "SPB" | format version (1 byte) | kind (1 byte: C checkpoint, R redo) | body )
 *
 * Format 2 (written now): a checkpoint's body is frames, each a 4-byte little-endian length and a V8 structured
 * clone: first `{ name, header, rows: count }` (and `read`, the identity of the read the rows came from, when
 * known: an optional field, so the format stays 2), then the rows (positional, one typed cell per header column:
 * string, number, boolean or null) a slice of up to 2,000 at a time, so a tab of a million rows is encoded and
 * decoded a slice at a time between other work (`encodeCheckpointPaced`, `decodeCheckpointPaced`) and
 * compressed on the thread pool. A redo's body is one structured clone of `[change, row, cells | null][]` in the
 * row diff's order. Format 1 (read still): the same, but a checkpoint's body is one structured clone of
 * `{ name, header, rows }`.
 * A blob of another format or kind, or whose body does not have this shape, decodes to null: its baseline is
 * treated as never stored (the next look is a first sight), never as rows that changed.
 *
 * A checkpoint's blob is made, stored and read in parts of up to 1 MB (`Parts`: the gzip stream cut in order), so
 * no step ever holds or writes it in one piece: at a million rows it is tens of MB, and one statement storing it
 * held the service for a quarter of a second.
 */
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { deserialize, serialize } from 'node:v8';
import { createGunzip, createGzip, gunzipSync, gzipSync } from 'node:zlib';
import { freeBytes } from '../../lib/free-buffer.ts';
import { LengthFrames } from '../../lib/length-frames.ts';
import { pacer } from '../../lib/pacer.ts';
import { rowsEqual } from '../../lib/row-equality.ts';
import type { CellValue } from '../../sources/source.ts';
import type { RowEdit, TabContent } from '../baselines.ts';

export const BASELINE_FORMAT = 2;
const READABLE = [1, 2];
const MAGIC = [0x53, 0x50, 0x42]; // "SPB"
const CHECKPOINT = 0x43; // "C"
const REDO = 0x52; // "R"
const CHANGES = ['inserted', 'updated', 'deleted'] as const;
/** Rows per frame of a checkpoint: a few milliseconds of work each. */
const SLICE = 2_000;
/** The largest part of a checkpoint's blob: a few milliseconds for a database to store. */
export const PART_BYTES = 1 << 20;

/** A checkpoint's blob as it is stored: its gzip stream cut into parts, in order. */
export type Parts = readonly Buffer[];

/** A blob held whole, cut into parts (views of it, not copies). */
function cut(blob: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  for (let at = 0; at < blob.length; at += PART_BYTES) parts.push(blob.subarray(at, at + PART_BYTES));
  return parts;
}

/** The parts as one buffer (the one part itself when there is one). */
function joined(parts: Parts): Buffer {
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}

const head = (kind: number) => Buffer.from([...MAGIC, BASELINE_FORMAT, kind]);

function frame(body: unknown): Buffer[] {
  const bytes = serialize(body);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(bytes.length);
  return [length, bytes];
}

/** The blob's format and body, or undefined when it is not a readable blob of this kind. */
function unpack(kind: number, bytes: Buffer): { format: number; body: Buffer } | undefined {
  const ours = MAGIC.every((b, i) => bytes[i] === b) && READABLE.includes(bytes[3] ?? 0) && bytes[4] === kind;
  return ours ? { format: bytes[3] as number, body: bytes.subarray(5) } : undefined;
}

function gunzipped(blob: Buffer): Buffer | undefined {
  try {
    return gunzipSync(blob);
  } catch {
    return undefined;
  }
}

function structured(bytes: Buffer): unknown {
  try {
    return deserialize(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A checkpoint's first frame: its name, header and row count, and what the rows were read from when that is
 * known (`read`, TabContent's `readIdentity`; a reader that does not know the field skips it).
 */
function firstFrame(content: TabContent): Buffer[] {
  const { name, header, typed, readIdentity } = content;
  return frame({ name, header, rows: typed.length, ...(readIdentity ? { read: readIdentity } : {}) });
}

export function encodeCheckpoint(content: TabContent): Parts {
  const frames = firstFrame(content);
  for (let at = 0; at < content.typed.length; at += SLICE)
    frames.push(...frame(content.typed.slice(at, at + SLICE)));
  const bytes = packed(CHECKPOINT, frames);
  const blob = gzipSync(bytes, { level: 1 });
  freeBytes(bytes);
  return cut(blob);
}

/**
 * `encodeCheckpoint` a slice at a time (the service answers between them), each slice compressed on the
 * thread pool as it is made: the whole tab's uncompressed bytes (hundreds of MB at a million rows) are never
 * held at once, only the compressed parts and the slices the compressor has not taken yet.
 */
export async function encodeCheckpointPaced(content: TabContent): Promise<Parts> {
  const pace = pacer();
  // zlib gives its output a chunk per write: chunks are gathered into parts, never into a whole blob.
  const gzip = createGzip({ level: 1, chunkSize: 64 * 1024 });
  const parts: Buffer[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const endPart = () => {
    if (pending.length > 0) parts.push(Buffer.concat(pending));
    pending = [];
    pendingBytes = 0;
  };
  gzip.on('data', (chunk: Buffer) => {
    if (pendingBytes + chunk.length > PART_BYTES) endPart();
    pending.push(chunk);
    pendingBytes += chunk.length;
  });
  const ended = once(gzip, 'end');
  const put = async (frames: Buffer[]) => {
    for (const f of frames) if (!gzip.write(f)) await once(gzip, 'drain');
  };
  await put([head(CHECKPOINT), ...firstFrame(content)]);
  for (let at = 0; at < content.typed.length; at += SLICE) {
    await put(frame(content.typed.slice(at, at + SLICE)));
    await pace();
  }
  gzip.end();
  await ended;
  endPart();
  return parts;
}

/** The blob's bytes before compression; the frames' own buffers are given back as they are copied in. */
function packed(kind: number, frames: Buffer[]): Buffer {
  const bytes = Buffer.concat([head(kind), ...frames]);
  for (const f of frames) freeBytes(f);
  return bytes;
}

/** A checkpoint body's frames in order (undefined for one cut short). */
function* frames(body: Buffer): Generator<unknown> {
  for (let at = 0; at < body.length; ) {
    if (at + 4 > body.length) {
      yield undefined;
      return;
    }
    const length = body.readUInt32LE(at);
    if (at + 4 + length > body.length) {
      yield undefined;
      return;
    }
    yield structured(body.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
}

/** Fed to a checkpoint reader after a format 2 body's last frame. */
const END = Symbol('end of the frames');

/**
 * A checkpoint's content from a format 2 body's frames, fed one at a time (`next(frame)`, then `next(END)`),
 * or null: the one reading of the format, whether the frames come from a body held whole (`decodeCheckpoint`)
 * or as it inflates (`decodeCheckpointPaced`). It ends early (null) at the first frame that is not what it
 * should be.
 */
function* checkpointReader(): Generator<void, TabContent | null, unknown> {
  const first = (yield) as { name?: unknown; header?: unknown; rows?: unknown } | typeof END | undefined;
  if (first === END || !first || typeof first.rows !== 'number') return null;
  const typed: CellValue[][] = [];
  for (;;) {
    const rows = yield;
    if (rows === END) break;
    if (!Array.isArray(rows) || !rows.every(isRow)) return null;
    for (const row of rows) typed.push(row as CellValue[]);
  }
  if (typed.length !== first.rows) return null;
  return contentOf({ name: first.name, header: first.header, rows: typed });
}

function contentOf(body: unknown): TabContent | null {
  const { name, header, rows } = (body ?? {}) as { name?: unknown; header?: unknown; rows?: unknown };
  if (typeof name !== 'string' || !isStringArray(header)) return null;
  if (!Array.isArray(rows) || !rows.every(isRow)) return null;
  return { name, header, typed: rows as CellValue[][] };
}

/** A checkpoint's content, or null when the blob is not a readable checkpoint. */
export function decodeCheckpoint(parts: Parts): TabContent | null {
  const bytes = gunzipped(joined(parts));
  const unpacked = bytes && unpack(CHECKPOINT, bytes);
  if (!unpacked) return null;
  if (unpacked.format === 1) return contentOf(structured(unpacked.body));
  const reader = checkpointReader();
  reader.next(); // to its first `yield`
  for (const f of frames(unpacked.body)) {
    const step = reader.next(f);
    if (step.done) return step.value;
  }
  const step = reader.next(END);
  freeBytes(bytes); // the rows are copies
  return step.done ? step.value : null;
}

/**
 * `decodeCheckpoint` a frame at a time as the blob inflates (on the thread pool), the service answering between
 * slices: only the frames not yet read are held, never the whole inflated body (150 MB at a million rows).
 */
export function decodeCheckpointPaced(parts: Parts): Promise<TabContent | null> {
  return feedPaced(parts, checkpointReader(), (body) => contentOf(structured(body)));
}

/**
 * Whether a stored checkpoint holds exactly `content` (rows compared as the row diff compares them), read as it
 * inflates and never decoded whole: false at the first difference. A checkpoint made from a read with the
 * identity `content` was read with holds it without its rows being read (sources/read-identity.ts). Null when the
 * blob is not a readable checkpoint of format 2 (the caller decodes it the usual way).
 */
export function checkpointHolds(parts: Parts, content: TabContent): Promise<boolean | null> {
  return feedPaced(parts, checkpointComparer(content), () => null);
}

/**
 * Whether a stored checkpoint was made from a read with the identity `content` was read with (and the same name,
 * header and row count): its first frame alone is read, so its first part is all it needs. False for any other
 * checkpoint, or one whose first frame is not whole in `parts`.
 */
export async function checkpointNamed(parts: Parts, content: TabContent): Promise<boolean> {
  return (await feedPaced(parts, checkpointNamer(content), () => false)) === true;
}

type FirstFrame =
  | { name?: unknown; header?: unknown; rows?: unknown; read?: unknown }
  | typeof END
  | undefined;

/** Whether a checkpoint's first frame names the same tab, header and row count as `content`. */
function sameHead(
  first: FirstFrame,
  content: TabContent,
): first is Exclude<FirstFrame, typeof END | undefined> {
  if (first === END || !first || first.name !== content.name || first.rows !== content.typed.length)
    return false;
  const { header } = first;
  if (!isStringArray(header) || header.length !== content.header.length) return false;
  return header.every((h, i) => h === content.header[i]);
}

/** Made from a read of the very bytes, by the same code under the same limits: the same rows. */
const sameRead = (first: Exclude<FirstFrame, typeof END | undefined>, content: TabContent) =>
  content.readIdentity !== undefined && first.read === content.readIdentity;

function* checkpointNamer(content: TabContent): Generator<void, boolean, unknown> {
  const first = (yield) as FirstFrame;
  return sameHead(first, content) && sameRead(first, content);
}

function* checkpointComparer(content: TabContent): Generator<void, boolean, unknown> {
  const first = (yield) as FirstFrame;
  if (!sameHead(first, content)) return false;
  if (sameRead(first, content)) return true; // the same rows: not compared
  let at = 0;
  for (;;) {
    const rows = yield;
    if (rows === END) return at === content.typed.length;
    if (!Array.isArray(rows)) return false;
    for (const row of rows) {
      const now = content.typed[at++];
      if (now === undefined || !isRow(row) || !rowsEqual(row as CellValue[], now)) return false;
    }
  }
}

/**
 * Feeds a checkpoint blob's format 2 frames to `reader`, a frame at a time as the blob inflates, pausing between
 * slices, until the reader answers; a format 1 body (one structured clone) goes whole to `legacy`. Null for a
 * blob that is not a checkpoint, is not gzip, or is cut short.
 */
async function feedPaced<T>(
  parts: Parts,
  reader: Generator<void, T | null, unknown>,
  legacy: (body: Buffer) => T | null,
): Promise<T | null> {
  reader.next(); // to its first `yield`, ready for the first frame
  const pace = pacer();
  const split = new LengthFrames();
  const prefix = MAGIC.length + 2;
  let before = Buffer.alloc(0); // the first bytes, until the prefix ("SPB", format, kind) is whole
  let started = false;
  let whole: Buffer[] | null = null; // a format 1 body, read whole
  try {
    for await (const chunk of Readable.from(parts).pipe(createGunzip({ chunkSize: 64 * 1024 }))) {
      if (whole) {
        whole.push(chunk);
        continue;
      }
      let body = chunk as Buffer;
      if (!started) {
        before = Buffer.concat([before, body]);
        if (before.length < prefix) continue;
        const unpacked = unpack(CHECKPOINT, before);
        if (!unpacked) return null;
        if (unpacked.format === 1) {
          whole = [unpacked.body];
          continue;
        }
        started = true;
        body = unpacked.body;
      }
      for (const f of split.push(body)) {
        const step = reader.next(structured(f));
        if (step.done) return step.value;
        await pace();
      }
    }
  } catch {
    return null; // not gzip, or cut short
  }
  if (whole) return legacy(Buffer.concat(whole));
  if (!started) return null;
  // Bytes left over are a frame cut short.
  const step = reader.next(split.pending > 0 ? undefined : END);
  return step.done ? step.value : null;
}

export function encodeRedo(edits: readonly RowEdit[]): Buffer {
  const body = serialize(edits.map((e) => [e.change, e.row, e.cells]));
  return gzipSync(Buffer.concat([head(REDO), body]), { level: 1 });
}

/** One recorded change's row edits, or null when the blob is not a readable redo. */
export function decodeRedo(blob: Buffer): RowEdit[] | null {
  const bytes = gunzipped(blob);
  const unpacked = bytes && unpack(REDO, bytes);
  const body = unpacked ? structured(unpacked.body) : undefined;
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
