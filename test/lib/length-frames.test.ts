/**
 * Length-prefixed frames cut out of a stream (lib/length-frames.ts): whatever the chunk bounds (inside a
 * length, inside a body, many frames in one chunk, empty frames), the frames come out whole and in order, and
 * bytes of a frame not yet complete are counted as pending.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LengthFrames } from '../../server/lib/length-frames.ts';

function framed(bodies: Buffer[]): Buffer {
  return Buffer.concat(
    bodies.flatMap((body) => {
      const length = Buffer.alloc(4);
      length.writeUInt32LE(body.length);
      return [length, body];
    }),
  );
}

describe('LengthFrames', () => {
  it('gives back every frame whole and in order, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (arrays, cuts) => {
          const bodies = arrays.map((a) => Buffer.from(a));
          const stream = framed(bodies);
          const at = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
          const split = new LengthFrames();
          const out: Buffer[] = [];
          let from = 0;
          for (const to of [...at, stream.length]) {
            out.push(...split.push(stream.subarray(from, to)).map((f) => Buffer.from(f)));
            from = to;
          }
          expect(out).toEqual(bodies);
          expect(split.pending).toBe(0);
        },
      ),
    );
  });

  it('counts the bytes of a frame cut short as pending', () => {
    const split = new LengthFrames();
    const stream = framed([Buffer.from('whole'), Buffer.from('cut short')]);
    const frames = split.push(stream.subarray(0, stream.length - 3));
    expect(frames.map(String)).toEqual(['whole']);
    expect(split.pending).toBe(4 + 'cut short'.length - 3);
  });
});
