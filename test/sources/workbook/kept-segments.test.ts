/**
 * A kept read's segments read back (guard/kept-segments.ts): a small kept file inline, a large one (16 MB or more)
 * on the kept-segments thread, which reads from the file the service's thread opened and sends the segments back
 * moved. Both give back exactly what was kept, across more segments than one `readv` takes and with segments of
 * every padding, and neither gives back anything from a damaged or cut file. Real files, the real thread (from
 * source here, as a checkout runs it; test/cli/package.test.ts checks the build carries its script).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { crcsOf, keepRead, readKept, skeletonOf } from '../../../server/sources/workbook/guard/kept-read.ts';
import { removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

/**
 * A payload like a kept sheet's: `count` small byte arrays of uneven lengths (so each is padded differently), two
 * larger typed arrays, and plain fields; every byte from a seeded sequence, so a byte read from the wrong place shows.
 */
function payloadOf(count: number, bigLength: number) {
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed >>> 24;
  };
  const pieces = Array.from({ length: count }, (_, i) => {
    const bytes = new Uint8Array(new ArrayBuffer(1000 + ((i * 37) % 3001)));
    for (let k = 0; k < bytes.length; k++) bytes[k] = next();
    return bytes;
  });
  const numbers = new Int32Array(bigLength);
  for (let k = 0; k < numbers.length; k += 97) numbers[k] = k * 3 - next();
  const lengths = new Float64Array(count).map((_, i) => pieces[i]!.length + 0.5);
  // And a segment of no bytes.
  pieces.splice(count >> 1, 0, new Uint8Array(new ArrayBuffer(0)));
  return {
    payload: { format: 1, name: 'Orders', pieces, numbers, lengths },
    buffers: [...pieces.map((p) => p.buffer), numbers.buffer, lengths.buffer],
  };
}

/** `payloadOf` kept at a file of its own under `key`; the file's path and size. */
async function kept(count: number, bigLength: number) {
  const dir = await tempDir();
  const file = path.join(dir, 'kept.read');
  const { payload, buffers } = payloadOf(count, bigLength);
  const skeleton = skeletonOf(payload, buffers);
  await keepRead(
    { file, key: 'the key', minFreeBytes: 0 },
    { skeleton, buffers, crcs: crcsOf(skeleton, buffers) },
  );
  return { file, size: (await fs.stat(file)).size, expected: payloadOf(count, bigLength).payload };
}

type Payload = ReturnType<typeof payloadOf>['payload'];

const bytesOf = (view: ArrayBufferView) => Buffer.from(view.buffer, view.byteOffset, view.byteLength);

/** `read` is `expected`: every field, every byte (compared as bytes: 24 MB element by element is slow). */
function expectSame(read: unknown, expected: Payload) {
  const { pieces, numbers, ...rest } = read as Payload;
  const { pieces: expectedPieces, numbers: expectedNumbers, ...expectedRest } = expected;
  expect(rest).toEqual(expectedRest);
  expect(pieces).toHaveLength(expectedPieces.length);
  expect(pieces.every((piece, i) => bytesOf(piece).equals(bytesOf(expectedPieces[i]!)))).toBe(true);
  expect(pieces.every((piece) => piece instanceof Uint8Array)).toBe(true);
  expect(numbers).toBeInstanceOf(Int32Array);
  expect(bytesOf(numbers).equals(bytesOf(expectedNumbers))).toBe(true);
}

describe("a kept read's segments read back", () => {
  // 1,200 segments: three readv calls. 24 MB of numbers: over the size read on the thread.
  const shapes = [
    { name: 'a small kept file, read inline', count: 1200, bigLength: 100_000, large: false },
    {
      name: 'a large kept file, read on the kept-segments thread',
      count: 1200,
      bigLength: 6_000_000,
      large: true,
    },
  ];

  for (const { name, count, bigLength, large } of shapes) {
    it(`${name}: exactly what was kept, and nothing from a damaged or cut file`, async () => {
      const { file, size, expected } = await kept(count, bigLength);
      expect(size >= 16 * 1024 * 1024).toBe(large);
      expectSame(await readKept(file, 'the key'), expected);
      expect(await readKept(file, 'another key')).toBeNull();

      const whole = await fs.readFile(file);
      // A byte flipped in a small segment near the start, in the large one, and in the last segment.
      for (const at of [Math.floor(size * 0.02), Math.floor(size * 0.6), size - 5]) {
        const damaged = Buffer.from(whole);
        damaged[at] = damaged[at]! ^ 0x5a;
        await fs.writeFile(file, damaged);
        expect(await readKept(file, 'the key')).toBeNull();
      }
      // Cut short, and cut then padded back to its size with zeros.
      await fs.writeFile(file, whole.subarray(0, size - 8));
      expect(await readKept(file, 'the key')).toBeNull();
      await fs.writeFile(file, Buffer.concat([whole.subarray(0, size - 4096), Buffer.alloc(4096)]));
      expect(await readKept(file, 'the key')).toBeNull();

      // Whole again: read again.
      await fs.writeFile(file, whole);
      expectSame(await readKept(file, 'the key'), expected);
    }, 60_000);
  }
});
