/**
 * Compressing a worksheet part so the next write pays only for what it changed. The part is deflated in
 * pieces (the head, blocks of rows, the tail), each by its own deflater ended with a full flush, so the
 * compressed pieces are independent and simply concatenate into one valid deflate stream. A piece whose
 * rows are the same strings as last time is reused as it is, wherever it is; the part's CRC-32 is the CRCs of
 * its pieces combined (crc32-combine.ts), so an unchanged piece is never read again.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { crc32Combine } from './crc32-combine.ts';
import type { SheetXml } from './sheet-xml.ts';

/**
 * Rows per piece: an append recompresses the last piece only (about 100 KB of XML for typical rows, a
 * millisecond or two), and pieces stay big enough that compressing them apart costs little in size.
 */
const ROWS_PER_PIECE = 500;

interface Piece {
  /** The texts the piece was made of (row XML strings are compared by identity first, so this is cheap). */
  texts: string[];
  /** Whether it ends the stream (the last piece), or ends with a full flush. */
  final: boolean;
  compressed: Buffer;
  /** CRC-32 and length of the piece's own uncompressed bytes. */
  crc: number;
  size: number;
  /** The part's CRC-32 and length up to the end of this piece, as of the compress that placed it here. */
  runningCrc: number;
  runningSize: number;
}

export interface Precompressed {
  compressed: Buffer;
  crc32: number;
  size: number;
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class ChunkedDeflate {
  #pieces: Piece[] = [];

  /** The sheet's current text, deflated, reusing every piece that did not change. */
  compress(sheet: SheetXml): Precompressed {
    const groups: string[][] = [[sheet.head]];
    const rows = sheet.rows;
    for (let i = 0; i < rows.length; i += ROWS_PER_PIECE) {
      const end = Math.min(rows.length, i + ROWS_PER_PIECE);
      const texts = new Array<string>(end - i);
      for (let j = i; j < end; j++) texts[j - i] = rows[j]!.xml;
      groups.push(texts);
    }
    groups.push([sheet.tail]);
    const pieces: Piece[] = [];
    let crc = 0;
    let size = 0;
    // While every piece so far is the one from last time, the running CRC is last time's too.
    let samePrefix = true;
    for (let i = 0; i < groups.length; i++) {
      const texts = groups[i]!;
      const final = i === groups.length - 1;
      const old = this.#pieces[i];
      const reused = old !== undefined && old.final === final && sameTexts(old.texts, texts);
      const piece = reused ? old : deflated(texts, final);
      if (samePrefix && reused) {
        crc = piece.runningCrc;
        size = piece.runningSize;
      } else {
        samePrefix = false;
        crc = crc32Combine(crc, piece.crc, piece.size);
        size += piece.size;
        piece.runningCrc = crc;
        piece.runningSize = size;
      }
      pieces.push(piece);
    }
    this.#pieces = pieces;
    return { compressed: Buffer.concat(pieces.map((p) => p.compressed)), crc32: crc, size };
  }
}

function deflated(texts: string[], final: boolean): Piece {
  const bytes = Buffer.from(texts.join(''), 'utf8');
  return {
    texts,
    final,
    compressed: deflateRawSync(bytes, { finishFlush: final ? constants.Z_FINISH : constants.Z_FULL_FLUSH }),
    crc: crc32(bytes),
    size: bytes.length,
    runningCrc: 0,
    runningSize: 0,
  };
}
