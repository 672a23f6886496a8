/**
 * A small reader of a zip's central directory (APPNOTE 6.3: end of central directory record, ZIP64 record
 * and the central file headers). It reads only the directory, a few kB at the end of the file, so the
 * declared sizes of every part are known before anything is inflated. Pure: bytes in, entries out.
 */

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate; anything else no spreadsheet writer uses. */
  method: number;
  encrypted: boolean;
  compressedSize: number;
  /** As declared by the directory; `inflatesWithin` checks that the data keeps to it. */
  uncompressedSize: number;
  localHeaderOffset: number;
}

/** The bytes are not a zip at all, or a damaged one. Messages may quote part names: keep them off clients. */
export class ZipFormatError extends Error {}

/** A part that inflates past the size its header declares: a zip bomb whose headers lie. */
export class PartTooLarge extends Error {}

/** A directory listing more entries than the caller allows: refused before a single one is read. */
export class TooManyEntries extends Error {
  readonly count: number;
  constructor(count: number) {
    super(`the zip lists ${count} entries`);
    this.count = count;
  }
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const EOCD_SIZE = 22;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;
const MAX_COMMENT = 0xffff;

function findEndOfDirectory(buf: Buffer): number {
  const last = buf.length - EOCD_SIZE;
  const first = Math.max(0, last - MAX_COMMENT);
  for (let at = last; at >= first; at--) {
    if (buf.readUInt32LE(at) === EOCD_SIG && at + EOCD_SIZE + buf.readUInt16LE(at + 20) <= buf.length) {
      return at;
    }
  }
  throw new ZipFormatError('no end of central directory record (the file is cut short or not a zip)');
}

function u64(buf: Buffer, at: number): number {
  const n = buf.readBigUInt64LE(at);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipFormatError('a ZIP64 size is out of range');
  return Number(n);
}

/** Where the central directory is and how many entries it holds, ZIP64 included. */
function directoryBounds(buf: Buffer, eocd: number): { offset: number; size: number; count: number } {
  let count = buf.readUInt16LE(eocd + 10);
  let size = buf.readUInt32LE(eocd + 12);
  let offset = buf.readUInt32LE(eocd + 16);
  const locator = eocd - 20;
  if (locator >= 0 && buf.readUInt32LE(locator) === ZIP64_LOCATOR_SIG) {
    const record = u64(buf, locator + 8);
    if (record + 56 > buf.length || buf.readUInt32LE(record) !== ZIP64_EOCD_SIG) {
      throw new ZipFormatError('the ZIP64 end of central directory record is missing');
    }
    count = u64(buf, record + 32);
    size = u64(buf, record + 40);
    offset = u64(buf, record + 48);
  }
  if (offset + size > buf.length)
    throw new ZipFormatError('the central directory lies past the end of the file');
  return { offset, size, count };
}

/** Sizes and offset that did not fit 32 bits are in the ZIP64 extra field (id 1), in this order. */
function applyZip64Extra(buf: Buffer, extraStart: number, extraEnd: number, entry: ZipEntry): void {
  let at = extraStart;
  while (at + 4 <= extraEnd) {
    const id = buf.readUInt16LE(at);
    const length = buf.readUInt16LE(at + 2);
    const body = at + 4;
    at = body + length;
    if (id !== 1) continue;
    let field = body;
    const next = (): number => {
      if (field + 8 > Math.min(at, extraEnd)) throw new ZipFormatError('a ZIP64 extra field is too short');
      const value = u64(buf, field);
      field += 8;
      return value;
    };
    if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next();
    if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
    if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next();
    return;
  }
}

/** The entries of the zip's central directory; more than `maxEntries` are refused before any is read. */
export function readZipDirectory(bytes: Uint8Array, maxEntries = Number.POSITIVE_INFINITY): ZipEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < EOCD_SIZE) throw new ZipFormatError('the file is too short to be a zip');
  const { offset, size, count } = directoryBounds(buf, findEndOfDirectory(buf));
  if (count > maxEntries) throw new TooManyEntries(count);
  const entries: ZipEntry[] = [];
  let at = offset;
  const end = offset + size;
  for (let i = 0; i < count; i++) {
    if (at + CENTRAL_SIZE > end || buf.readUInt32LE(at) !== CENTRAL_SIG) {
      throw new ZipFormatError('the central directory is damaged');
    }
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    const nameStart = at + CENTRAL_SIZE;
    const extraStart = nameStart + nameLength;
    const next = extraStart + extraLength + commentLength;
    if (next > end) throw new ZipFormatError('the central directory is damaged');
    const entry: ZipEntry = {
      name: buf.toString('utf8', nameStart, extraStart),
      method: buf.readUInt16LE(at + 10),
      encrypted: (buf.readUInt16LE(at + 8) & 1) === 1,
      compressedSize: buf.readUInt32LE(at + 20),
      uncompressedSize: buf.readUInt32LE(at + 24),
      localHeaderOffset: buf.readUInt32LE(at + 42),
    };
    applyZip64Extra(buf, extraStart, extraStart + extraLength, entry);
    if (entry.localHeaderOffset + LOCAL_SIZE + entry.compressedSize > offset) {
      throw new ZipFormatError(`part "${entry.name}" lies past the start of the central directory`);
    }
    entries.push(entry);
    at = next;
  }
  return entries;
}

/** Where an entry's compressed data starts: after its local header, whose name and extra lengths may differ. */
export function entryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localHeaderOffset;
  if (at + LOCAL_SIZE > buf.length || buf.readUInt32LE(at) !== LOCAL_SIG) {
    throw new ZipFormatError(`the local header of part "${entry.name}" is damaged`);
  }
  const start = at + LOCAL_SIZE + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  if (start + entry.compressedSize > buf.length) {
    throw new ZipFormatError(`part "${entry.name}" is cut short`);
  }
  return buf.subarray(start, start + entry.compressedSize);
}
