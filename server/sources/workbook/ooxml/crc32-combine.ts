/**
 * CRC-32 of two byte runs joined, from the CRC of each and the second's length (zlib's crc32_combine, which
 * Node does not expose): what lets a rewritten sheet part reuse the CRC of every compressed piece it did not
 * change, wherever that piece is. zlib's own method since 1.2.12: multiply crc(A) by x^(8 * length of B)
 * modulo the CRC polynomial, that power made from a table of x^(2^k), so a combine costs a few hundred
 * operations (the matrix method before it cost a hundred times more, a fifth of a second for a sheet of a
 * million rows).
 */

const POLY = 0xedb88320;

/** a(x) * b(x) modulo the polynomial, in the reflected bit order CRC-32 uses. */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  let bb = b >>> 0;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= bb;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    bb = bb & 1 ? (bb >>> 1) ^ POLY : bb >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0..31. */
const X2N = (() => {
  const table = new Uint32Array(32);
  let p = 0x40000000; // x^1
  table[0] = p;
  for (let k = 1; k < 32; k++) table[k] = p = multiplyModP(p, p);
  return table;
})();

/** x^(n * 2^k) modulo the polynomial. */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  let rest = n;
  for (let bit = k; rest > 0; bit++) {
    if (rest % 2 === 1) p = multiplyModP(X2N[bit & 31]!, p);
    rest = Math.floor(rest / 2);
  }
  return p;
}

/** CRC-32 of A followed by B, given crc32(A), crc32(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  return (multiplyModP(x2nModP(lengthB, 3), crcA >>> 0) ^ crcB) >>> 0;
}
