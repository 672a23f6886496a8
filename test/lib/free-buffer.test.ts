/**
 * Buffers given back at once (lib/free-buffer.ts): a view that owns its whole buffer is freed and reads as
 * empty; a slice of a larger buffer (a small Buffer from Node's shared pool, a subarray) is left alone, so
 * the other slices keep their bytes; and the process's ArrayBuffer memory falls by the freed size at once,
 * with no collection in between. A buffer held for background work (holdBytes) is freed only once every hold
 * on it is released, and then at once if a free was asked meanwhile.
 */

import { createGzip, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { freeBuffersUnder, freeBytes, holdBytes } from '../../server/lib/free-buffer.ts';

describe('freeBytes', () => {
  it('frees a buffer the view spans, at once', () => {
    const size = 64 * 1024 * 1024;
    const before = process.memoryUsage().arrayBuffers;
    const cells = new Float64Array(size / 8);
    cells.fill(1.5);
    expect(process.memoryUsage().arrayBuffers - before).toBeGreaterThanOrEqual(size);
    freeBytes(cells);
    expect(cells.length).toBe(0);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(size / 2);
  });

  it('leaves a slice of a shared buffer alone', () => {
    const pooled = Buffer.from('abc');
    const neighbour = Buffer.from('xyz');
    expect(pooled.byteLength).toBeLessThan(pooled.buffer.byteLength); // from Node's pool, as small Buffers are
    freeBytes(pooled);
    expect(pooled.toString()).toBe('abc');
    expect(neighbour.toString()).toBe('xyz');

    const whole = new Uint8Array([1, 2, 3, 4]);
    freeBytes(whole.subarray(1, 3));
    expect([...whole]).toEqual([1, 2, 3, 4]);
  });

  it('takes a view already freed, and a Buffer that owns its bytes', () => {
    const owned = Buffer.alloc(10_000, 7);
    freeBytes(owned);
    expect(owned.length).toBe(0);
    expect(() => freeBytes(owned)).not.toThrow();
  });
});

describe('freeBuffersUnder', () => {
  it('frees the buffers under a stream’s output chunks once they are copied, each once', () => {
    const text = Buffer.from('row,'.repeat(2_000_000));
    const chunks: Buffer[] = [];
    const gzip = createGzip({ level: 1, chunkSize: 1 << 16 });
    gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
    return new Promise<void>((done) => {
      gzip.on('end', () => {
        const whole = Buffer.concat(chunks);
        const before = process.memoryUsage().arrayBuffers;
        freeBuffersUnder(chunks);
        expect(chunks.every((chunk) => chunk.length === 0)).toBe(true);
        expect(before - process.memoryUsage().arrayBuffers).toBeGreaterThanOrEqual(whole.length);
        expect(gunzipSync(whole).equals(text)).toBe(true); // the copy keeps every byte
        done();
      });
      gzip.end(text);
    });
  });

  it('leaves Node’s shared pool alone', () => {
    const small = Buffer.from('abc');
    const neighbour = Buffer.from('xyz');
    freeBuffersUnder([small, small, gzipSync('x')]);
    expect(small.toString()).toBe('abc');
    expect(neighbour.toString()).toBe('xyz');
  });
});

describe('holdBytes', () => {
  it('puts off a free until the last hold is released, and frees then', () => {
    const cells = new Float64Array(1000).fill(2.5);
    const other = new Uint8Array(100).fill(1);
    const releaseWrite = holdBytes([cells.buffer as ArrayBuffer, other.buffer as ArrayBuffer]);
    const releaseCopy = holdBytes([cells.buffer as ArrayBuffer]);
    freeBytes(cells);
    expect(cells[999]).toBe(2.5); // still read by the work holding it
    releaseWrite();
    releaseWrite(); // a second release of the same hold counts once
    expect(cells[999]).toBe(2.5);
    releaseCopy();
    expect(cells.length).toBe(0);
    // Not asked to be freed while held: released, it is left as it was.
    expect([...other.subarray(0, 3)]).toEqual([1, 1, 1]);
    freeBytes(other);
    expect(other.length).toBe(0);
  });
});
