/**
 * Writes a new zip from an opened one: every entry the caller did not replace is copied as it is (local
 * header, compressed bytes, data descriptor and central record; only the record's offset changes), so
 * parts SheetPort does not understand survive byte for byte. Replaced and added parts are deflated fresh.
 * `newZip` writes a package from scratch the same way (new-workbook.ts).
 */
import { crc32, deflateRawSync } from 'node:zlib';
import type { Precompressed } from './chunked-deflate.ts';
import type { ArchiveEntry, ZipArchive } from './zip-archive.ts';

const LOCAL_SIG = 0x04034b50;
const CENTRAL_SIG = 0x02014b50;
const EOCD_SIG = 0x06054b50;
const UTF8_FLAG = 0x0800;
const MAX32 = 0xffffffff;

/**
 * New content per part name (bytes, or already deflated); null removes the part. Names not in the archive
 * are added at the end.
 */
export type PartChanges = ReadonlyMap<string, Uint8Array | Precompressed | null>;

interface Written {
  local: Buffer[];
  central: Buffer;
}

/** MS-DOS date and time of `at` (what the local and central headers hold). */
function dosDateTime(at: Date): { time: number; date: number } {
  const time = (at.getHours() << 11) | (at.getMinutes() << 5) | (at.getSeconds() >> 1);
  const date = ((at.getFullYear() - 1980) << 9) | ((at.getMonth() + 1) << 5) | at.getDate();
  return { time, date };
}

function freshEntry(name: string, content: Uint8Array | Precompressed, offset: number, now: Date): Written {
  const nameBytes = Buffer.from(name, 'utf8');
  const deflated: Precompressed = content instanceof Uint8Array ? precompressed(content) : content;
  const common: HeaderFields = {
    flags: /^[\x20-\x7e]*$/.test(name) ? 0 : UTF8_FLAG,
    ...dosDateTime(now),
    crc: deflated.crc32,
    compressedSize: deflated.compressedSize,
    size: deflated.size,
    nameLength: nameBytes.length,
  };
  const local = Buffer.alloc(30);
  local.writeUInt32LE(LOCAL_SIG, 0);
  writeHeaderFields(local, 4, common);
  local.writeUInt16LE(0, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(CENTRAL_SIG, 0);
  central.writeUInt16LE(20, 4);
  writeHeaderFields(central, 6, common);
  central.writeUInt32LE(offset, 42);
  return { local: [local, nameBytes, ...deflated.chunks], central: Buffer.concat([central, nameBytes]) };
}

/** The fields a local header and its central directory entry share, in the same order. */
interface HeaderFields {
  flags: number;
  time: number;
  date: number;
  crc: number;
  compressedSize: number;
  size: number;
  nameLength: number;
}

/**
 * Writes the shared fields from `at` on (4 in a local header, 6 in a central entry, after "version made by"):
 * version needed 2.0, flags, method 8 (deflate), DOS time and date, CRC-32, sizes, name length.
 */
function writeHeaderFields(header: Buffer, at: number, f: HeaderFields): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(f.flags, at + 2);
  header.writeUInt16LE(8, at + 4);
  header.writeUInt16LE(f.time, at + 6);
  header.writeUInt16LE(f.date, at + 8);
  header.writeUInt32LE(f.crc, at + 10);
  header.writeUInt32LE(f.compressedSize, at + 14);
  header.writeUInt32LE(f.size, at + 18);
  header.writeUInt16LE(f.nameLength, at + 22);
}

function precompressed(content: Uint8Array): Precompressed {
  const compressed = deflateRawSync(content);
  return {
    chunks: [compressed],
    compressedSize: compressed.length,
    crc32: crc32(content),
    size: content.length,
  };
}

/** The entry's own central record, pointing at its new place. */
function copiedEntry(entry: ArchiveEntry, offset: number): Written {
  // Its bytes were let go for a form the package holds (zip-archive.ts `withoutParts`): copying would lose it.
  if (entry.released) throw new Error(`the part "${entry.name}" was let go and not written anew`);
  const central = Buffer.from(entry.central);
  if (central.readUInt32LE(42) === MAX32) patchZip64Offset(central, offset);
  else central.writeUInt32LE(offset, 42);
  return { local: [entry.local], central };
}

/** A ZIP64 record keeps its offset in the extra field, after whichever sizes are also there. */
function patchZip64Offset(central: Buffer, offset: number): void {
  const nameLength = central.readUInt16LE(28);
  const extraEnd = 46 + nameLength + central.readUInt16LE(30);
  let at = 46 + nameLength;
  while (at + 4 <= extraEnd) {
    const id = central.readUInt16LE(at);
    const length = central.readUInt16LE(at + 2);
    if (id === 1) {
      let slot = at + 4;
      if (central.readUInt32LE(24) === MAX32) slot += 8;
      if (central.readUInt32LE(20) === MAX32) slot += 8;
      central.writeBigUInt64LE(BigInt(offset), slot);
      return;
    }
    at += 4 + length;
  }
}

/** Entries laid out one after the other, then the central directory. */
class ZipOutput {
  readonly #chunks: Buffer[] = [];
  readonly #centrals: Buffer[] = [];
  offset = 0;

  push(written: Written): void {
    for (const chunk of written.local) {
      this.#chunks.push(chunk);
      this.offset += chunk.length;
    }
    this.#centrals.push(written.central);
  }

  /** The entries so far, then the central directory and its end record: the file, in consecutive chunks. */
  finish(): Buffer[] {
    const directoryStart = this.offset;
    const directory = Buffer.concat(this.#centrals);
    const count = this.#centrals.length;
    if (directoryStart + directory.length > MAX32 || count > 0xffff) {
      throw new Error('the workbook is too large to save (over 4 GB or 65,535 parts)');
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(EOCD_SIG, 0);
    end.writeUInt16LE(count, 8);
    end.writeUInt16LE(count, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(directoryStart, 16);
    return [...this.#chunks, directory, end];
  }
}

/** The new package, in consecutive chunks (the copied entries' bytes are not copied again). */
export function writeZip(archive: ZipArchive, changes: PartChanges, now = new Date()): Buffer[] {
  const out = new ZipOutput();
  const seen = new Set<string>();
  for (const entry of archive.entries) {
    seen.add(entry.name);
    const change = changes.get(entry.name);
    if (change === null) continue;
    out.push(
      change === undefined ? copiedEntry(entry, out.offset) : freshEntry(entry.name, change, out.offset, now),
    );
  }
  for (const [name, content] of changes) {
    if (!seen.has(name) && content !== null) out.push(freshEntry(name, content, out.offset, now));
  }
  return out.finish();
}

/** A new zip of `parts`, deflated, in the order given (a new package: new-workbook.ts). */
export function newZip(parts: ReadonlyMap<string, Uint8Array>, now = new Date()): Uint8Array {
  const out = new ZipOutput();
  for (const [name, content] of parts) out.push(freshEntry(name, content, out.offset, now));
  return Buffer.concat(out.finish());
}
