/**
 * A zip package opened for surgical work: the directory is read once per archive opened
 * (guard/zip-directory.ts; the package check before a parse reads it on its own), parts are inflated one at a
 * time and only when asked for, and each entry's raw bytes (local header, compressed data, data descriptor)
 * and central record stay reachable so a writer can copy them untouched.
 */
import { inflateRawSync } from 'node:zlib';
import { AppError } from '../../../errors.ts';
import { entryData, PartTooLarge, readZipDirectory, type ZipEntry } from '../guard/zip-directory.ts';
import { MAX_PART_TEXT_BYTES, partTooLongForText } from '../guard/zip-sizes.ts';

const CENTRAL_SIG = 0x02014b50;
const DESCRIPTOR_SIG = 0x08074b50;
const CENTRAL_SIZE = 46;

export interface ArchiveEntry extends ZipEntry {
  /** The entry's central directory record as the file holds it (offset field to be patched on copy). */
  central: Buffer;
  /** Local header + compressed data + data descriptor: what a copy writes verbatim. */
  local: Buffer;
  crc32: number;
  /** The part's bytes were let go (`withoutParts`): whoever holds it must write it anew. */
  released?: true;
}

/** What a package whose bytes do not read as a zip (or whose deflate streams are broken) is. */
export function damaged(): AppError {
  return new AppError('upstream_error', 'Could not read workbook: the zip package is damaged.');
}

/** The raw central records in directory order (readZipDirectory already checked their bounds). */
function centralRecords(buf: Buffer, count: number): Buffer[] {
  let at = findDirectoryStart(buf);
  const records: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== CENTRAL_SIG) throw damaged();
    const size =
      CENTRAL_SIZE + buf.readUInt16LE(at + 28) + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    records.push(buf.subarray(at, at + size));
    at += size;
  }
  return records;
}

function findDirectoryStart(buf: Buffer): number {
  for (let at = buf.length - 22; at >= Math.max(0, buf.length - 22 - 0xffff); at--) {
    if (buf.readUInt32LE(at) !== 0x06054b50) continue;
    const locator = at - 20;
    if (locator >= 0 && buf.readUInt32LE(locator) === 0x07064b50) {
      const record = Number(buf.readBigUInt64LE(locator + 8));
      return Number(buf.readBigUInt64LE(record + 48));
    }
    return buf.readUInt32LE(at + 16);
  }
  throw damaged();
}

/** Length of the data descriptor after an entry's data (general purpose flag bit 3), 0 when none. */
function descriptorLength(buf: Buffer, flags: number, dataEnd: number, zip64: boolean): number {
  if ((flags & 8) === 0) return 0;
  const signed = dataEnd + 4 <= buf.length && buf.readUInt32LE(dataEnd) === DESCRIPTOR_SIG;
  return (signed ? 4 : 0) + (zip64 ? 20 : 12);
}

export class ZipArchive {
  readonly bytes: Buffer;
  readonly entries: ArchiveEntry[];
  readonly #byName = new Map<string, ArchiveEntry>();
  /** Case-insensitive lookup: part names are case-insensitive in OPC. */
  readonly #byLowerName = new Map<string, ArchiveEntry>();

  private constructor(bytes: Buffer, entries: ArchiveEntry[]) {
    this.bytes = bytes;
    this.entries = entries;
    for (const entry of entries) {
      this.#byName.set(entry.name, entry);
      this.#byLowerName.set(entry.name.toLowerCase(), entry);
    }
  }

  static open(bytes: Uint8Array): ZipArchive {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let directory: ZipEntry[];
    try {
      directory = readZipDirectory(buf);
    } catch {
      throw damaged();
    }
    const records = centralRecords(buf, directory.length);
    const entries = directory.map((entry, i): ArchiveEntry => {
      const central = records[i] as Buffer;
      const data = entryData(buf, entry);
      const dataEnd = data.byteOffset - buf.byteOffset + data.length;
      const flags = central.readUInt16LE(8);
      const zip64 = entry.compressedSize >= 0xffffffff || entry.uncompressedSize >= 0xffffffff;
      const end = dataEnd + descriptorLength(buf, flags, dataEnd, zip64);
      return {
        ...entry,
        central,
        local: buf.subarray(entry.localHeaderOffset, end),
        crc32: central.readUInt32LE(16),
      };
    });
    return new ZipArchive(buf, entries);
  }

  /**
   * This archive without the bytes of `parts`, which the caller holds in another form (a sheet held as compressed
   * pieces): every other entry is copied into a buffer of its own, so the file's bytes (tens of MB for a large
   * sheet) can go. The entries keep their order; those left out read as missing, and a writer must be given
   * their new content (zip-writer.ts refuses to copy them).
   */
  withoutParts(parts: ReadonlySet<string>): ZipArchive {
    let size = 0;
    for (const entry of this.entries) if (!parts.has(entry.name)) size += entry.local.length;
    const bytes = Buffer.allocUnsafe(size);
    let at = 0;
    const entries = this.entries.map((entry): ArchiveEntry => {
      const central = Buffer.from(entry.central); // a copy: the old records are slices of the file's bytes
      if (parts.has(entry.name)) return { ...entry, central, local: Buffer.alloc(0), released: true };
      const local = bytes.subarray(at, at + entry.local.copy(bytes, at));
      const moved: ArchiveEntry = { ...entry, central, local, localHeaderOffset: at };
      at += local.length;
      return moved;
    });
    return new ZipArchive(bytes, entries);
  }

  entry(name: string): ArchiveEntry | undefined {
    return this.#byName.get(name) ?? this.#byLowerName.get(name.toLowerCase());
  }

  has(name: string): boolean {
    return this.entry(name) !== undefined;
  }

  /** A part's bytes as stored (`method` 0: as they are, 8: deflated) and the size they inflate to. */
  compressed(name: string): { data: Uint8Array; method: number; size: number } | undefined {
    const entry = this.entry(name);
    if (!entry || entry.released) return undefined;
    return { data: entryData(this.bytes, entry), method: entry.method, size: entry.uncompressedSize };
  }

  /** The inflated part, capped at its declared size (a lying header cannot inflate past it: PartTooLarge). */
  read(name: string): Buffer | undefined {
    const entry = this.entry(name);
    if (!entry || entry.released) return undefined;
    const data = entryData(this.bytes, entry);
    if (entry.method === 0) return Buffer.from(data);
    try {
      const size = Math.max(1, entry.uncompressedSize);
      // One output chunk the size of the part (up to 64 MB): zlib's default 16 KB chunks cost a third more.
      return inflateRawSync(data, {
        maxOutputLength: size,
        chunkSize: Math.min(Math.max(size, 64 * 1024), 64 * 1024 * 1024),
      });
    } catch (e) {
      // zlib stopped at the declared size: the headers lie about what this part holds.
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new PartTooLarge();
      throw damaged();
    }
  }

  /** The part as text (UTF-8, BOM dropped); undefined when the package has no such part. */
  text(name: string): string | undefined {
    const size = this.entry(name)?.uncompressedSize ?? 0;
    // Only a worksheet gets here past the directory's checks (guard/zip-sizes.ts): refused before it inflates.
    if (size > MAX_PART_TEXT_BYTES) throw partTooLongForText(name, size);
    const bytes = this.read(name);
    if (!bytes) return undefined;
    const text = bytes.toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}
