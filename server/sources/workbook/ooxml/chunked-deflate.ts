/**
 * Compressing a worksheet part so the next write pays only for what it changed. The part is deflated in
 * pieces (the head, blocks of rows, the tail), each by its own deflater ended with a full flush, so the
 * compressed pieces are independent and simply concatenate into one valid deflate stream. A piece whose
 * rows are the same strings as last time is reused as it is, and so is the CRC-32 of the unchanged prefix
 * (a CRC continues from the previous value, so only the pieces after the first change are read again).
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';
import type { SheetXml } from './sheet-xml.ts';

/** Rows per piece: small enough that an append recompresses little, big enough to compress well. */
const ROWS_PER_PIECE = 2000;

interface Piece {
  /** The texts the piece was made of (row XML strings are compared by identity first, so this is cheap). */
  texts: string[];
  compressed: Buffer;
  /** CRC-32 of the part's bytes up to the end of this piece. */
  runningCrc: number;
  /** Uncompressed bytes up to the end of this piece. */
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

  /** The sheet's current text, deflated, reusing every leading piece that did not change. */
  compress(sheet: SheetXml): Precompressed {
    const groups: string[][] = [[sheet.head]];
    for (let i = 0; i < sheet.rows.length; i += ROWS_PER_PIECE) {
      groups.push(sheet.rows.slice(i, i + ROWS_PER_PIECE).map((slot) => slot.xml));
    }
    groups.push([sheet.tail]);
    const pieces: Piece[] = [];
    let reusing = true;
    let crc = 0;
    let size = 0;
    groups.forEach((texts, i) => {
      const last = i === groups.length - 1;
      const old = this.#pieces[i];
      // The final piece always ends the stream; reuse it only when everything before it was reused too.
      if (
        reusing &&
        old &&
        sameTexts(old.texts, texts) &&
        (last ? this.#pieces.length === groups.length : true)
      ) {
        pieces.push(old);
        crc = old.runningCrc;
        size = old.runningSize;
        return;
      }
      reusing = false;
      const bytes = Buffer.from(texts.join(''), 'utf8');
      const compressed = deflateRawSync(bytes, {
        finishFlush: last ? constants.Z_FINISH : constants.Z_FULL_FLUSH,
      });
      crc = crc32(bytes, crc);
      size += bytes.length;
      pieces.push({ texts, compressed, runningCrc: crc, runningSize: size });
    });
    this.#pieces = pieces;
    return { compressed: Buffer.concat(pieces.map((p) => p.compressed)), crc32: crc, size };
  }
}
