/**
 * A file's read kept on disk by its content, so a start (or a connect followed by `serve`) answers from the
 * kept read instead of parsing the same bytes again: the parse thread's start and a million-row scan cost
 * seconds, reading back its result a fraction of that. What is kept is exactly what the parse thread sends
 * (engines.ts `readOffThread`'s payload), so a kept read is received like a fresh one and nothing downstream
 * knows the difference.
 *
 * Kept by content, never by date: the key is the SHA-256 of the file's bytes with the engine, the read's
 * limits, the format of what is kept and the version of the code, so a file saved back with its old size and
 * time (a restore, `cp -p`) is still read anew. One kept read per file path (its latest parse); each segment
 * carries a CRC-32, checked when it is read back, and any doubt (a torn or foreign file, another format) means
 * a parse, as without it. Files 0600 in a 0700 folder (lib/private-files.ts): they hold what the sheet held.
 *
 * The layout: `SPKEPT01`, the header's length (u32, little-endian), the header (JSON), then the payload's
 * skeleton (V8's serializer, with the big buffers left out by id) and the buffers, each at a multiple of 8.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, statfs, utimes } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import type { FileLimits } from '../../../config.ts';
import { workerScriptUrl } from '../../../lib/archive-path.ts';
import { pacer } from '../../../lib/pacer.ts';
import { packageVersion, runningFromSource } from '../../../lib/package-file.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../../lib/private-files.ts';
import type { KeptReadsPolicy } from '../../kept-reads.ts';
import { readCheckedSegments, type SegmentLayout } from './kept-segments.ts';
import type { SegmentsJob, SegmentsReply } from './kept-segments-thread.ts';

const SEGMENTS_THREAD_URL = workerScriptUrl('kept-segments-thread', import.meta.url);

/**
 * What is kept, in which form. Raise it whenever a payload an engine sends changes shape (cell-tab.ts
 * `EncodedTab`, csv-read.ts `CsvRead`, ooxml-document.ts `ReadTab`): reads kept in the old shape are then
 * never used.
 */
const KEPT_FORMAT = 1;
const MAGIC = Buffer.from('SPKEPT01', 'latin1');
/** A kept read not used for this long is removed when another is kept (a file no longer connected). */
const UNUSED_DAYS = 30;
const DAY_MS = 86_400_000;
/** A file being written beside its kept read; one this old was left by a process that stopped meanwhile. */
const PART = '.part';
const PART_HOURS = 1;
const HOUR_MS = 3_600_000;
/** Hashed a slice at a time, the event loop let go between slices: 48 MB of a million-row file take 27 ms. */
const HASH_SLICE = 4 * 1024 * 1024;
/**
 * A kept file this large is read back on a thread of its own (`readSegmentsOffThread`): its page faults and CRCs
 * would hold the service's thread a few milliseconds a megabyte. A smaller one is read inline, sooner than a thread
 * starts (a 100,000-row read keeps 11 MB).
 */
const OFF_THREAD_FROM_BYTES = 16 * 1024 * 1024;

/** Where one parse's result goes to be kept. */
export interface KeepAs {
  file: string;
  key: string;
  minFreeBytes: number;
}

/**
 * A parse's result as the parse thread sent it: its skeleton and the buffers it moved, and the CRC-32s of the
 * skeleton then of each buffer (`skeletonOf`, `crcsOf`).
 */
export interface ReadToKeep {
  skeleton: Uint8Array;
  buffers: readonly ArrayBuffer[];
  crcs: readonly number[];
}

interface Header {
  key: string;
  skeleton: number;
  buffers: number[];
  crcs: number[];
}

/**
 * The kept read's file for the workbook at `filePath`; `what: 'prepared'`, the file of what a write prepared
 * from the same bytes (parse-or-kept.ts `keepPrepared`), kept the same way under the same key.
 */
export function keptReadFile(
  kept: KeptReadsPolicy,
  filePath: string,
  what: 'read' | 'prepared' = 'read',
): string {
  const name = createHash('sha256').update(path.resolve(filePath)).digest('hex').slice(0, 32);
  return path.join(kept.dir, `${name}.${what}`);
}

/** The key of a read of `bytes` by `engine` under `limits`. */
export async function keptReadKey(bytes: Uint8Array, engine: string, limits: FileLimits): Promise<string> {
  const hash = createHash('sha256');
  const pace = pacer();
  for (let at = 0; at < bytes.byteLength; at += HASH_SLICE) {
    hash.update(bytes.subarray(at, at + HASH_SLICE));
    await pace();
  }
  const { maxCells, maxTextChars, maxInflatedBytes, maxPartRatio } = limits;
  const read = JSON.stringify({ engine, maxCells, maxTextChars, maxInflatedBytes, maxPartRatio });
  return `${KEPT_FORMAT} ${codeVersion()} ${read} ${hash.digest('hex')}`;
}

let cachedCodeVersion: string | undefined;

/**
 * The version of the code that reads: SheetPort's, and when it runs from a checkout's sources (which change
 * without a new version), the time of its newest source file, so a read kept by other code is never used.
 */
function codeVersion(): string {
  if (cachedCodeVersion === undefined) {
    let newest = 0;
    if (runningFromSource()) {
      const server = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
      for (const name of readdirSync(server, { recursive: true, encoding: 'utf8' })) {
        if (name.endsWith('.ts')) newest = Math.max(newest, statSync(path.join(server, name)).mtimeMs);
      }
    }
    cachedCodeVersion = `${packageVersion()}${newest ? `+${newest}` : ''}`;
  }
  return cachedCodeVersion;
}

/** The payload kept under `key` at `file`, or null when there is none, or any doubt about it. */
export async function readKept(file: string, key: string): Promise<unknown> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, 'r');
    const size = (await handle.stat()).size;
    const start = Buffer.alloc(MAGIC.length + 4);
    await handle.read(start, 0, start.length, 0);
    if (!start.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    const headerLength = start.readUInt32LE(MAGIC.length);
    if (headerLength > 1024 * 1024) return null;
    const headerBytes = Buffer.alloc(headerLength);
    await handle.read(headerBytes, 0, headerLength, start.length);
    const header = JSON.parse(headerBytes.toString('utf8')) as Header;
    if (header.key !== key || header.crcs.length !== header.buffers.length + 1) return null;
    const lengths = [header.skeleton, ...header.buffers];
    const offsets: number[] = [];
    let end = padded(start.length + headerLength);
    for (const length of lengths) {
      offsets.push(end);
      end = padded(end + length);
    }
    if (end !== size) return null;
    const layout = { offsets, lengths, crcs: header.crcs };
    const segments =
      size >= OFF_THREAD_FROM_BYTES
        ? await readSegmentsOffThread(handle.fd, layout)
        : await readCheckedSegments(handle.fd, layout);
    if (segments === null) return null;
    const payload = payloadOf(new Uint8Array(segments[0]!), segments.slice(1));
    // Used: a kept read is removed only after a month without use.
    const now = new Date();
    await utimes(file, now, now).catch(() => {});
    return payload;
  } catch {
    return null;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * `readCheckedSegments` on the kept-segments thread, from `fd` (open here until it answers), or null when it cannot
 * (the thread failed to start or ended).
 */
function readSegmentsOffThread(fd: number, layout: SegmentLayout): Promise<ArrayBuffer[] | null> {
  return new Promise((resolve) => {
    const worker = new Worker(SEGMENTS_THREAD_URL);
    worker.once('message', (reply: SegmentsReply) => resolve(reply.segments));
    worker.once('error', () => resolve(null));
    // After its answer this settles nothing: a promise takes its first answer only.
    worker.once('exit', () => resolve(null));
    const job: SegmentsJob = { fd, layout };
    worker.postMessage(job);
  });
}

/** The CRC-32 of the skeleton then of each buffer, taken by the parse thread before it sends them (a million rows: 30 ms). */
export function crcsOf(skeleton: Uint8Array, buffers: readonly ArrayBuffer[]): number[] {
  return [crc32(skeleton), ...buffers.map((buffer) => crc32(new Uint8Array(buffer)))];
}

/**
 * A payload's skeleton: V8's serialization of it with `buffers` left out by their index. Made by the parse thread,
 * which sends it in place of the payload: the service's thread reads it once (`payloadOf`) and keeps it as it is,
 * where serializing the payload again took it 0.9 s for a million rows of distinct texts.
 */
export function skeletonOf(payload: unknown, buffers: readonly ArrayBuffer[]): Uint8Array {
  const writer = new v8.Serializer();
  writer.writeHeader();
  for (const [id, buffer] of buffers.entries()) writer.transferArrayBuffer(id, buffer);
  writer.writeValue(payload);
  // In a buffer of its own, so the parse thread can move it rather than copy it.
  const released = writer.releaseBuffer();
  const skeleton = new Uint8Array(new ArrayBuffer(released.byteLength));
  skeleton.set(released);
  return skeleton;
}

/** The payload a skeleton and its buffers make (the buffers taken over, not copied). */
export function payloadOf(skeleton: Uint8Array, buffers: readonly ArrayBuffer[]): unknown {
  const reader = new v8.Deserializer(skeleton);
  reader.readHeader();
  for (const [id, buffer] of buffers.entries()) reader.transferArrayBuffer(id, buffer);
  return reader.readValue();
}

/**
 * Writes `read` (its buffers by reference) as the read kept at `as.file`: whole or not at all (a file beside
 * it, renamed into place), and only while the disk keeps its free space after it. Reads kept for files unused
 * for a month go. Written after the read has answered, while the service decodes it: the skeleton and the
 * CRCs are the parse thread's, so bytes changed meanwhile would only make the kept read refused. Best effort: any failure leaves no kept read and the reason unsaid (the next start parses the file,
 * as without one).
 */
export async function keepRead(as: KeepAs, read: ReadToKeep): Promise<void> {
  const { skeleton, buffers } = read;
  const segments = [skeleton, ...buffers.map((buffer) => new Uint8Array(buffer))];
  const header: Header = {
    key: as.key,
    skeleton: skeleton.byteLength,
    buffers: buffers.map((buffer) => buffer.byteLength),
    crcs: [...read.crcs],
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const lengthBytes = Buffer.alloc(4);
  lengthBytes.writeUInt32LE(headerBytes.length);
  const parts = [Buffer.concat([MAGIC, lengthBytes, headerBytes]), ...segments];
  const size = parts.reduce((end, part) => padded(end + part.byteLength), 0);
  const dir = path.dirname(as.file);
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const disk = await statfs(dir);
  if (disk.bavail * disk.bsize - size < as.minFreeBytes) return;
  await removeUnused(dir, as.file);
  // Its own name: two reads of one file in one process may keep at the same moment.
  const temporary = `${as.file}.${process.pid}.${randomUUID()}${PART}`;
  const handle = await open(temporary, 'wx', PRIVATE_FILE_MODE);
  try {
    let at = 0;
    for (const part of parts) {
      const { bytesWritten } = await handle.write(part, 0, part.byteLength, at);
      if (bytesWritten !== part.byteLength) throw new Error('short write');
      at = padded(at + part.byteLength);
    }
    await handle.truncate(size);
    await handle.close();
    await rename(temporary, as.file);
  } catch (e) {
    await handle.close().catch(() => {});
    await rm(temporary, { force: true });
    throw e;
  }
}

const padded = (offset: number) => Math.ceil(offset / 8) * 8;

/** Kept reads untouched for a month (but the one about to be kept), and what an interrupted keep left. */
async function removeUnused(dir: string, keeping: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(dir)) {
    const file = path.join(dir, name);
    if (file === keeping) continue;
    const info = await stat(file).catch(() => null);
    const oldest = now - (name.endsWith(PART) ? PART_HOURS * HOUR_MS : UNUSED_DAYS * DAY_MS);
    if (info?.isFile() && info.mtimeMs < oldest) await rm(file, { force: true });
  }
}
