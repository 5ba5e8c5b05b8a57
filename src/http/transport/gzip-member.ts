/**
 * A gzip member (RFC 1952) stitched from pieces without compressing them
 * together: the varying envelope prefix and suffix travel as stored deflate
 * blocks, the `data` between them as raw deflate compressed beforehand (once
 * per snapshot and body, see compression-cache.ts) and ended with a sync flush,
 * so it is byte-aligned, not final, and refers to nothing before it. The CRC-32
 * of the whole uncompressed body is continued across the pieces.
 */
import { constants, crc32, deflateRawSync } from "node:zlib";

const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** The largest stored block. */
const MAX_STORED = 0xffff;

/**
 * crc32 continued over `bytes`. Node's zlib.crc32 answers 0 for some empty
 * buffers (zlib's crc32() with a null pointer), whatever the running value:
 * an empty piece must leave the value as it is.
 */
export function crc32Continue(bytes: Uint8Array | string, crc: number): number {
  return bytes.length === 0 ? crc : crc32(bytes, crc);
}

/** `data` compressed for stitching: raw deflate ending in a sync flush (byte-aligned, not final). */
export interface DeflatedPiece {
  readonly deflated: Buffer;
  /** CRC-32 of the uncompressed bytes. */
  readonly crc: number;
  /** Uncompressed length. */
  readonly length: number;
}

export function deflatePiece(data: Uint8Array, level = 6): DeflatedPiece {
  return { deflated: deflateRawSync(data, { level, finishFlush: constants.Z_SYNC_FLUSH }), crc: crc32Continue(data, 0), length: data.length };
}

/** Stored deflate blocks holding `bytes` (the last one final when `final`). */
function storedBlocks(bytes: Buffer, final: boolean, out: Buffer[]): void {
  let at = 0;
  do {
    const length = Math.min(MAX_STORED, bytes.length - at);
    const last = at + length === bytes.length;
    const head = Buffer.allocUnsafe(5);
    head[0] = final && last ? 1 : 0;
    head.writeUInt16LE(length, 1);
    head.writeUInt16LE(~length & 0xffff, 3);
    out.push(head, bytes.subarray(at, at + length));
    at += length;
  } while (at < bytes.length);
}

/** Data longer than this has its CRC combined arithmetically rather than read again. */
const COMBINE_ABOVE_BYTES = 16 * 1024;

/**
 * The gzip member of prefix + data + suffix. `raw` is the uncompressed data
 * (small data is cheaper to read again than to combine CRCs over).
 */
export function gzipMember(prefix: Buffer, data: DeflatedPiece, suffix: Buffer, raw?: Uint8Array): Buffer {
  const parts: Buffer[] = [HEADER];
  storedBlocks(prefix, false, parts);
  parts.push(data.deflated);
  storedBlocks(suffix, true, parts);
  const head = crc32Continue(prefix, 0);
  const withData = raw !== undefined && data.length <= COMBINE_ABOVE_BYTES ? crc32Continue(raw, head) : crc32Combine(head, data.crc, data.length);
  const crc = crc32Continue(suffix, withData);
  const trailer = Buffer.allocUnsafe(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE((prefix.length + data.length + suffix.length) >>> 0, 4);
  parts.push(trailer);
  return Buffer.concat(parts);
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
