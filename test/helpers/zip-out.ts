/**
 * Writes zip packages for tests part by part, straight to disk: small parts deflated at once, big ones deflated
 * as they stream from a generator (hundreds of MB of XML never sit in memory), any entry's declared size set
 * at will (as a crafted file's may lie), and the directory written last (ZIP64 past 65,535 entries).
 */
import { once } from 'node:events';
import fs from 'node:fs';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

export interface Written {
  name: string;
  offset: number;
  crc: number;
  compressed: number;
  uncompressed: number;
}

function localHeader(name: string, crc: number, compressed: number, uncompressed: number): Buffer {
  const nameBytes = Buffer.from(name);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(8, 8); // deflate
  header.writeUInt32LE(crc >>> 0, 14);
  header.writeUInt32LE(compressed, 18);
  header.writeUInt32LE(uncompressed, 22);
  header.writeUInt16LE(nameBytes.length, 26);
  return Buffer.concat([header, nameBytes]);
}

function centralHeader(entry: Written, declared: number): Buffer {
  const nameBytes = Buffer.from(entry.name);
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(20, 6);
  header.writeUInt16LE(8, 10);
  header.writeUInt32LE(entry.crc >>> 0, 16);
  header.writeUInt32LE(entry.compressed, 20);
  header.writeUInt32LE(declared, 24);
  header.writeUInt16LE(nameBytes.length, 28);
  header.writeUInt32LE(entry.offset, 42);
  return Buffer.concat([header, nameBytes]);
}

/** A zip being written: parts go out one after the other, the directory at the end. */
export class ZipOut {
  readonly written: Written[] = [];
  position = 0;
  readonly #fd: number;
  /** Bytes put but not written yet, from `#flushed` on (many tiny parts would be as many system calls). */
  #pending: Buffer[] = [];
  #flushed = 0;

  constructor(file: string) {
    this.#fd = fs.openSync(file, 'w');
  }

  put(bytes: Buffer): void {
    this.#pending.push(bytes);
    this.position += bytes.length;
    if (this.position - this.#flushed > 1024 * 1024) this.#flush();
  }

  #flush(): void {
    const bytes = Buffer.concat(this.#pending);
    fs.writeSync(this.#fd, bytes, 0, bytes.length, this.#flushed);
    this.#pending = [];
    this.#flushed = this.position;
  }

  /** Each distinct text deflated once (a package of many parts repeats one). */
  readonly #deflated = new Map<string, Buffer>();

  small(name: string, text: string): void {
    const data = Buffer.from(text);
    const compressed = this.#deflated.get(text) ?? deflateRawSync(data);
    this.#deflated.set(text, compressed);
    this.packed(name, compressed, crc32(data), data.length);
  }

  /** A part whose packed (deflated) bytes are made already: its CRC-32 and unpacked size as they are. */
  packed(name: string, compressed: Buffer, crc: number, uncompressed: number): void {
    const entry = { name, offset: this.position, crc, compressed: compressed.length, uncompressed };
    this.put(localHeader(name, entry.crc, entry.compressed, entry.uncompressed));
    this.put(compressed);
    this.written.push(entry);
  }

  /** A part deflated as it streams out, from `chunks`, declared as `declared` bytes (its real size if unset). */
  async streamed(
    name: string,
    chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
    level: number,
    declared?: number,
  ) {
    const offset = this.position;
    this.put(localHeader(name, 0, 0, 0)); // sizes patched below
    const deflate = createDeflateRaw({ level });
    let compressed = 0;
    deflate.on('data', (chunk: Buffer) => {
      this.put(chunk);
      compressed += chunk.length;
    });
    let crc = 0;
    let uncompressed = 0;
    for await (const chunk of chunks) {
      crc = crc32(chunk, crc);
      uncompressed += chunk.length;
      if (!deflate.write(chunk)) await once(deflate, 'drain');
    }
    deflate.end();
    await once(deflate, 'end');
    this.#flush();
    const size = declared ?? uncompressed;
    fs.writeSync(this.#fd, localHeader(name, crc, compressed, size), 0, 30, offset);
    this.written.push({ name, offset, crc, compressed, uncompressed: size });
  }

  /**
   * The central directory of `entries` (the parts written, unless told otherwise), then the file is closed.
   * Over 65,535 entries the count is in a ZIP64 end record, as zip writers do.
   */
  close(entries: Written[] = this.written): void {
    try {
      const directoryStart = this.position;
      for (const entry of entries) this.put(centralHeader(entry, entry.uncompressed));
      const directorySize = this.position - directoryStart;
      if (entries.length > 0xffff) {
        const record = Buffer.alloc(56);
        record.writeUInt32LE(0x06064b50, 0);
        record.writeBigUInt64LE(44n, 4);
        record.writeUInt16LE(45, 12);
        record.writeUInt16LE(45, 14);
        record.writeBigUInt64LE(BigInt(entries.length), 24);
        record.writeBigUInt64LE(BigInt(entries.length), 32);
        record.writeBigUInt64LE(BigInt(directorySize), 40);
        record.writeBigUInt64LE(BigInt(directoryStart), 48);
        const locator = Buffer.alloc(20);
        locator.writeUInt32LE(0x07064b50, 0);
        locator.writeBigUInt64LE(BigInt(this.position), 8);
        locator.writeUInt32LE(1, 16);
        this.put(record);
        this.put(locator);
      }
      const end = Buffer.alloc(22);
      end.writeUInt32LE(0x06054b50, 0);
      end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
      end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
      end.writeUInt32LE(directorySize, 12);
      end.writeUInt32LE(directoryStart, 16);
      this.put(end);
      this.#flush();
    } finally {
      fs.closeSync(this.#fd);
    }
  }
}
