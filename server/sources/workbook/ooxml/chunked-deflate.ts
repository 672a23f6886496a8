/**
 * A worksheet part deflated in pieces (its head, runs of rows, its tail), each by its own deflater ended
 * with a full flush, so the compressed pieces are independent: they concatenate into one valid deflate
 * stream, and each one inflates alone. The part's CRC-32 is the CRCs of its pieces combined
 * (crc32-combine.ts), so a piece that did not change is never read or compressed again.
 */
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';
import { freeBuffersUnder } from '../../../lib/free-buffer.ts';
import { crc32Combine } from './crc32-combine.ts';

/**
 * A part's deflated bytes, as consecutive chunks (written one after another, never copied into one buffer),
 * with their total length and the CRC-32 and length of what they inflate to (what a zip entry records).
 */
export interface Precompressed {
  chunks: readonly Buffer[];
  compressedSize: number;
  crc32: number;
  size: number;
}

/** One independently deflated piece of a part. Never changed once made: a new text makes a new piece. */
export interface DeflatedPiece {
  readonly compressed: Buffer;
  /** CRC-32 and length of the piece's own uncompressed bytes. */
  readonly crc: number;
  readonly size: number;
}

/**
 * The compression level of the pieces SheetPort writes: zlib's fastest. A delete near the top of a large sheet
 * compresses every piece below it again, and level 1 does that 3.5 times faster than zlib's default (6), for
 * a sheet part about a quarter larger (32 MB of sheet XML: 5.8 MB against 4.6 MB). The next save in Excel
 * compresses the file its own way again.
 */
const PIECE_LEVEL = 1;

/**
 * `final`: the part's last piece, which ends the stream; every other piece ends with a full flush. `level` 0
 * stores the text as it is: its compressed size then changes only with its length.
 */
export function deflatePiece(text: string, final: boolean, level = PIECE_LEVEL): DeflatedPiece {
  return deflatePieceBytes(Buffer.from(text, 'utf8'), final, level);
}

/**
 * `bytes` in an ArrayBuffer of their own (copied when they are a view into a larger one): what a piece's bytes
 * must be to pass between threads. Sent, a view would carry its whole buffer; moved, it would take the buffer
 * from whatever else uses it (a small Buffer lives in Node's shared pool, which cannot be moved at all).
 */
export function ownBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

/**
 * Output room for zlib to write a whole result into one buffer, with a margin so the buffer never fills: zlib
 * writes in chunks of `chunkSize` (16 KB by default), joins them into another buffer and leaves them to the
 * collector, and a full last chunk makes it allocate one more to look for more output. On a piece thread, whose
 * heap is too small for its collector to run often, those chunks held tens of MB for as long as it lived.
 */
const ROOM_MARGIN = 64;

/** The room raw deflate's output can need at any level (zlib's `deflateBound`, rounded up). */
function deflateRoom(length: number): number {
  return length + (length >> 12) + (length >> 14) + (length >> 25) + 16 + ROOM_MARGIN;
}

/**
 * The UTF-8 bytes of a piece that is not the last one (its stream has no end, which a sync flush accepts),
 * inflated into one buffer of its own.
 */
export function inflatePieceBytes(piece: DeflatedPiece): Buffer {
  return inflateRawSync(piece.compressed, {
    finishFlush: constants.Z_SYNC_FLUSH,
    maxOutputLength: Math.max(1, piece.size),
    chunkSize: piece.size + ROOM_MARGIN,
  });
}

/** The text of a piece that is not the last one. */
export function inflatePiece(piece: DeflatedPiece): string {
  return inflatePieceBytes(piece).toString('utf8');
}

/** `deflatePiece` of bytes already encoded. */
export function deflatePieceBytes(bytes: Uint8Array, final: boolean, level = PIECE_LEVEL): DeflatedPiece {
  return {
    compressed: deflateRawSync(bytes, {
      level,
      finishFlush: final ? constants.Z_FINISH : constants.Z_FULL_FLUSH,
    }),
    crc: crc32(bytes),
    size: bytes.length,
  };
}

/**
 * Joins pieces into the part, remembering the running CRC after each: while the leading pieces are the same
 * objects as last time, their combined CRC is last time's, so an append combines one or two CRCs, not all.
 */
export class PieceJoiner {
  #pieces: DeflatedPiece[] = [];
  #running: { crc: number; size: number }[] = [];

  join(pieces: readonly DeflatedPiece[]): Precompressed {
    const running: { crc: number; size: number }[] = [];
    let crc = 0;
    let size = 0;
    let samePrefix = true;
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as DeflatedPiece;
      samePrefix &&= this.#pieces[i] === piece;
      if (samePrefix) ({ crc, size } = this.#running[i] as { crc: number; size: number });
      else {
        crc = crc32Combine(crc, piece.crc, piece.size);
        size += piece.size;
      }
      running.push({ crc, size });
    }
    this.#pieces = [...pieces];
    this.#running = running;
    const chunks = pieces.map((p) => p.compressed);
    const compressedSize = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    return { chunks, compressedSize, crc32: crc, size };
  }
}

/**
 * `deflatePieceBytes` for a piece that goes to another thread: compressed into one buffer with room for any
 * result, copied into a buffer of exactly its size (moved to the service's thread), and the first given back at
 * once; no chunk is left for the collector.
 */
export function deflatePieceBytesOwned(bytes: Uint8Array, final: boolean): DeflatedPiece {
  const out = deflateRawSync(bytes, {
    level: PIECE_LEVEL,
    finishFlush: final ? constants.Z_FINISH : constants.Z_FULL_FLUSH,
    chunkSize: deflateRoom(bytes.length),
  });
  const own = ownBytes(out);
  if (own !== out) freeBuffersUnder([out]);
  return {
    compressed: Buffer.from(own.buffer, own.byteOffset, own.length),
    crc: crc32(bytes),
    size: bytes.length,
  };
}

const deflateRawAsync = promisify(deflateRaw);

/** `deflatePiece` on the thread pool: a large sheet's pieces compress while the service answers. */
export function deflatePieceAsync(text: string, final: boolean): Promise<DeflatedPiece> {
  return deflatePieceBytesAsync(Buffer.from(text, 'utf8'), final);
}

/** `deflatePieceBytes` on the thread pool. */
export async function deflatePieceBytesAsync(bytes: Uint8Array, final: boolean): Promise<DeflatedPiece> {
  const compressed = await deflateRawAsync(bytes, {
    level: PIECE_LEVEL,
    finishFlush: final ? constants.Z_FINISH : constants.Z_FULL_FLUSH,
  });
  return { compressed, crc: crc32(bytes), size: bytes.length };
}
