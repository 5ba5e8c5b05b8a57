/** CRC-32 (zlib's), continued across pieces or combined from two: ETags, gzip members, pool checksums. */
import { crc32 } from "node:zlib";

/**
 * crc32 continued over `bytes`. Node's zlib.crc32 answers 0 for some empty
 * buffers (zlib's crc32() with a null pointer), whatever the running value:
 * an empty piece must leave the value as it is.
 */
export function crc32Continue(bytes: Uint8Array | string, crc: number): number {
  return bytes.length === 0 ? crc : crc32(bytes, crc);
}

// ------------------------------------------------- crc32_combine (zlib 1.2.12's algorithm)

const POLY = 0xedb88320;

/** a(x) * b(x) modulo the CRC-32 polynomial (reflected bit order, as zlib's multmodp). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^n) modulo the polynomial, n = 0..31. */
const X2N = (() => {
  const table = new Uint32Array(32);
  let p = 1 << 30; // x^1
  table[0] = p;
  for (let n = 1; n < 32; n++) table[n] = p = multModP(p, p);
  return table;
})();

/** x^(n * 2^k) modulo the polynomial. */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  while (n > 0) {
    if (n & 1) p = multModP(X2N[k & 31], p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The CRC-32 of A followed by B from crc(A), crc(B) and B's length, without reading B. */
export function crc32Combine(crc1: number, crc2: number, length2: number): number {
  return (multModP(x2nModP(length2, 3), crc1 >>> 0) ^ crc2) >>> 0;
}
