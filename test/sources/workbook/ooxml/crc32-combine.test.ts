/** The CRC-32 of two runs joined, from their CRCs and the second's length, is zlib's CRC of the joined bytes. */
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../../../server/sources/workbook/ooxml/crc32-combine.ts';

describe('crc32Combine', () => {
  it('gives the CRC of the joined bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 5000 }), (a, b) => {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }),
      { numRuns: 300 },
    );
    const big = Buffer.alloc(3_000_017, 0x61);
    expect(crc32Combine(crc32('head'), crc32(big), big.length)).toBe(
      crc32(Buffer.concat([Buffer.from('head'), big])),
    );
  });
});
