/**
 * A piece of rows compressed on a real piece thread (piece-threads.ts): it inflates to the bytes sent, and the
 * bytes are taken over: a buffer of their own is given back once the thread has answered (a million-row sheet
 * sends 347 MB of them), while a view into a larger buffer leaves that buffer as it was (others read it).
 */

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deflatePieceBytesOwned,
  inflatePieceBytes,
} from '../../../../server/sources/workbook/ooxml/chunked-deflate.ts';
import {
  deflatePieceOffThread,
  endIdlePieceThreads,
  runningPieceThreads,
} from '../../../../server/sources/workbook/ooxml/piece-threads.ts';

const rows = (from: number, count: number) =>
  Array.from(
    { length: count },
    (_, i) => `<row r="${from + i}"><c r="A${from + i}"><v>${i}</v></c></row>`,
  ).join('');

describe('a piece compressed on a piece thread', () => {
  it('inflates to the bytes sent, and gives back a buffer of their own once answered', async () => {
    const text = Buffer.from(rows(1, 2_000));
    const own = new Uint8Array(text); // its own ArrayBuffer, as Buffer.concat makes a piece's bytes
    const piece = await deflatePieceOffThread(own);
    expect(inflatePieceBytes(piece).equals(text)).toBe(true);
    expect(own.byteLength).toBe(0);
  });

  it('leaves a larger buffer alone when sent a view into it', async () => {
    const chunk = Buffer.from(rows(1, 3_000));
    const view = chunk.subarray(100, chunk.length - 100);
    const sent = Buffer.from(view);
    const piece = await deflatePieceOffThread(view);
    expect(inflatePieceBytes(piece).equals(sent)).toBe(true);
    expect(chunk.byteLength).toBe(sent.length + 200);
    expect(view.equals(sent)).toBe(true);
  });
});

describe('a piece made to go to another thread', () => {
  it('owns exactly its buffer and inflates to its bytes, compressible or not', () => {
    for (const bytes of [
      Buffer.from(rows(1, 4_000)),
      randomBytes(300_000),
      Buffer.alloc(0),
      Buffer.from('x'),
    ]) {
      const piece = deflatePieceBytesOwned(bytes, false);
      // Its own buffer, of its own length: it moves whole, and holds no room zlib was given.
      expect(piece.compressed.byteOffset).toBe(0);
      expect(piece.compressed.buffer.byteLength).toBe(piece.compressed.byteLength);
      expect(piece.size).toBe(bytes.length);
      expect(inflatePieceBytes(piece).equals(bytes)).toBe(true);
    }
  });
});

describe('piece threads ended when idle', () => {
  it('end at once when asked, and start again for the next piece', async () => {
    const text = Buffer.from(rows(1, 500));
    await deflatePieceOffThread(Buffer.from(text));
    expect(runningPieceThreads()).toBeGreaterThan(0);
    endIdlePieceThreads();
    // Ended: each leaves the list when its thread exits.
    while (runningPieceThreads() > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const piece = await deflatePieceOffThread(Buffer.from(text));
    expect(inflatePieceBytes(piece).equals(text)).toBe(true);
    expect(runningPieceThreads()).toBe(1);
  });

  it('keeps a thread that has work, which answers', async () => {
    const text = Buffer.from(rows(1, 20_000));
    const pending = deflatePieceOffThread(Buffer.from(text));
    endIdlePieceThreads();
    const piece = await pending;
    expect(inflatePieceBytes(piece).equals(text)).toBe(true);
    // Its thread answered and lives on (a thread ended would have answered nothing, and left the list).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runningPieceThreads()).toBe(1);
  });
});
