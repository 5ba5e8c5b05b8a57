/**
 * A gzip member (RFC 1952) stitched from pieces without compressing them
 * together: the varying envelope prefix and suffix travel as stored deflate
 * blocks, the `data` between them as raw deflate compressed beforehand (once
 * per snapshot and body, see compression-cache.ts) and ended with a sync flush,
 * so it is byte-aligned, not final, and refers to nothing before it. The CRC-32
 * of the whole uncompressed body is continued across the pieces.
 */
import { constants, deflateRawSync } from "node:zlib";
import { crc32Combine, crc32Continue } from "../../util/crc32.js";

const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** The largest stored block. */
const MAX_STORED = 0xffff;

/** `data` compressed for stitching: raw deflate ending in a sync flush (byte-aligned, not final). */
export interface DeflatedPiece {
  readonly deflated: Buffer;
  /** CRC-32 of the uncompressed bytes. */
  readonly crc: number;
  /** Uncompressed length. */
  readonly length: number;
}

export function deflatePiece(data: Uint8Array, level = 6): DeflatedPiece {
  return {
    deflated: deflateRawSync(data, { level, finishFlush: constants.Z_SYNC_FLUSH }),
    crc: crc32Continue(data, 0),
    length: data.length,
  };
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
  const withData =
    raw !== undefined && data.length <= COMBINE_ABOVE_BYTES ? crc32Continue(raw, head) : crc32Combine(head, data.crc, data.length);
  const crc = crc32Continue(suffix, withData);
  const trailer = Buffer.allocUnsafe(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE((prefix.length + data.length + suffix.length) >>> 0, 4);
  parts.push(trailer);
  return Buffer.concat(parts);
}
