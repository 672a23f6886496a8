/**
 * A piece of rows compressed on a real piece thread (piece-threads.ts): it inflates to the bytes sent, and the
 * bytes are taken over: a buffer of their own is given back once the thread has answered (a million-row sheet
 * sends 347 MB of them), while a view into a larger buffer leaves that buffer as it was (others read it).
 */
import { describe, expect, it } from 'vitest';
import { inflatePieceBytes } from '../../../../server/sources/workbook/ooxml/chunked-deflate.ts';
import { deflatePieceOffThread } from '../../../../server/sources/workbook/ooxml/piece-threads.ts';

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
