/**
 * Buffers given back at once (lib/free-buffer.ts): a view that owns its whole buffer is freed and reads as
 * empty; a slice of a larger buffer (a small Buffer from Node's shared pool, a subarray) is left alone, so
 * the other slices keep their bytes; and the process's ArrayBuffer memory falls by the freed size at once,
 * with no collection in between.
 */
import { describe, expect, it } from 'vitest';
import { freeBytes } from '../../server/lib/free-buffer.ts';

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
