/**
 * CRC-32 of two byte runs joined, from the CRC of each and the second's length (zlib's crc32_combine, which
 * Node does not expose): what lets a rewritten sheet part reuse the CRC of every compressed piece it did not
 * change, wherever that piece is.
 */

function times(matrix: Uint32Array, vector: number): number {
  let sum = 0;
  let v = vector >>> 0;
  for (let i = 0; v !== 0; i++, v >>>= 1) if (v & 1) sum ^= matrix[i]!;
  return sum >>> 0;
}

function square(out: Uint32Array, matrix: Uint32Array): void {
  for (let n = 0; n < 32; n++) out[n] = times(matrix, matrix[n]!);
}

/** CRC-32 of A followed by B, given crc32(A), crc32(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  // The operator for one zero bit, then squared into operators for 2, 4, 8... zero bits.
  odd[0] = 0xedb88320;
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row >>> 0;
  square(even, odd); // 2 zero bits
  square(odd, even); // 4 zero bits
  let crc = crcA >>> 0;
  let length = lengthB;
  // Apply length zero bytes to crcA, one bit of the length at a time (the first square gives one byte).
  do {
    square(even, odd);
    if (length % 2 === 1) crc = times(even, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
    square(odd, even);
    if (length % 2 === 1) crc = times(odd, crc);
    length = Math.floor(length / 2);
  } while (length !== 0);
  return (crc ^ crcB) >>> 0;
}
