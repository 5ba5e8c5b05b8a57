/**
 * Where MessagePack values lie in a buffer, found without decoding them.
 *
 * A snapshot's `pools` array is most of its file; decoding it whole builds
 * an object graph several times the file's size in a build worker. Knowing
 * where each pool's bytes start and end lets the build decode, validate and
 * compile one pool at a time (pool-stream.ts). Nothing here allocates per
 * value, and the walk keeps a count of values still to skip instead of
 * recursing, so hostile nesting cannot overflow the stack. The bytes may be
 * in memory or read from the file through a window (byte-source.ts): only
 * type bytes and lengths are read, payloads are stepped over.
 */
import { arraySource, type ByteSource } from "./byte-source.js";

const source = (bytes: Uint8Array | ByteSource): ByteSource => (bytes instanceof Uint8Array ? arraySource(bytes) : bytes);

/**
 * The offset just past the MessagePack value at `at`, or -1 when the bytes end
 * first, hold a byte MessagePack never uses (0xc1), or hold an extension value.
 * Extensions are refused because their meaning can depend on what came
 * before: msgpackr's record extension defines a structure once and later
 * values refer to it by a one-byte id, so values cut out of such a stream
 * cannot be decoded alone. (No snapshot field is an extension value.)
 */
export function valueEnd(from: Uint8Array | ByteSource, at: number): number {
  const bytes = source(from);
  const n = bytes.length;
  let p = at;
  let pending = 1;
  while (pending > 0) {
    if (p >= n) return -1;
    const b = bytes.byte(p);
    pending--;
    if (b <= 0x7f || b >= 0xe0)
      p += 1; // positive or negative fixint
    else if (b <= 0x8f) {
      pending += 2 * (b & 0x0f); // fixmap
      p += 1;
    } else if (b <= 0x9f) {
      pending += b & 0x0f; // fixarray
      p += 1;
    } else if (b <= 0xbf)
      p += 1 + (b & 0x1f); // fixstr
    else {
      const size = FIXED_SIZE[b - 0xc0];
      if (size > 0) p += size;
      else if (size === 0)
        return -1; // 0xc1, extensions
      else {
        // A length or count follows the type byte: 1, 2 or 4 bytes (big-endian).
        const width = LENGTH_WIDTH[b - 0xc0];
        if (p + 1 + width > n) return -1;
        const length = readLength(bytes, p + 1, width);
        p += 1 + width;
        if (b === 0xdc || b === 0xdd)
          pending += length; // array16/32
        else if (b === 0xde || b === 0xdf)
          pending += 2 * length; // map16/32
        else p += length; // bin, str
      }
    }
    // Every value still to skip takes at least one byte.
    if (pending > n - p) return -1;
  }
  return p <= n ? p : -1;
}

/**
 * valueEnd over a window of the bytes: `window[k]` is the byte at offset `base + k`, for k < window.length. The
 * end (an offset of the whole, as valueEnd's) when the value ends within the window; otherwise -1, and the caller
 * asks valueEnd, which decides (a value cut by the window's end, or a problem). So it never answers other than
 * valueEnd does; it only reads a plain array instead of calling the source per type byte.
 */
export function valueEndWithin(window: Uint8Array, base: number, at: number): number {
  const n = window.length;
  let p = at - base;
  let pending = 1;
  while (pending > 0) {
    if (p >= n) return -1;
    const b = window[p];
    pending--;
    if (b <= 0x7f || b >= 0xe0) p += 1;
    else if (b <= 0x8f) {
      pending += 2 * (b & 0x0f);
      p += 1;
    } else if (b <= 0x9f) {
      pending += b & 0x0f;
      p += 1;
    } else if (b <= 0xbf) p += 1 + (b & 0x1f);
    else {
      const size = FIXED_SIZE[b - 0xc0];
      if (size > 0) p += size;
      else if (size === 0) return -1;
      else {
        const width = LENGTH_WIDTH[b - 0xc0];
        if (p + 1 + width > n) return -1;
        const length =
          width === 1
            ? window[p + 1]
            : width === 2
              ? (window[p + 1] << 8) | window[p + 2]
              : window[p + 1] * 0x1000000 + ((window[p + 2] << 16) | (window[p + 3] << 8) | window[p + 4]);
        p += 1 + width;
        if (b === 0xdc || b === 0xdd) pending += length;
        else if (b === 0xde || b === 0xdf) pending += 2 * length;
        else p += length;
      }
    }
    if (pending > n - p) return -1;
  }
  return p <= n ? base + p : -1;
}

/**
 * Bytes taken by a value of type 0xc0 + i when fixed (type byte included);
 * 0 for what valueEnd refuses (the unused 0xc1, extensions), -1 when a length
 * or count follows.
 */
const FIXED_SIZE = new Int8Array([
  1,
  0,
  1,
  1, // c0 nil, c1 unused, c2 false, c3 true
  -1,
  -1,
  -1, // c4-c6 bin8/16/32
  0,
  0,
  0, // c7-c9 ext8/16/32
  5,
  9, // ca float32, cb float64
  2,
  3,
  5,
  9, // cc-cf uint8..uint64
  2,
  3,
  5,
  9, // d0-d3 int8..int64
  0,
  0,
  0,
  0,
  0, // d4-d8 fixext1/2/4/8/16
  -1,
  -1,
  -1, // d9-db str8/16/32
  -1,
  -1, // dc-dd array16/32
  -1,
  -1, // de-df map16/32
]);

/** Width of the length or count after type 0xc0 + i (where FIXED_SIZE is -1). */
const LENGTH_WIDTH = new Uint8Array([
  0,
  0,
  0,
  0,
  1,
  2,
  4, // bin
  0,
  0,
  0, // ext (refused)
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  1,
  2,
  4, // str
  2,
  4, // array
  2,
  4, // map
]);

/** A big-endian unsigned integer of 1, 2 or 4 bytes at `at`. */
function readLength(bytes: ByteSource, at: number, width: number): number {
  if (width === 1) return bytes.byte(at);
  if (width === 2) return (bytes.byte(at) << 8) | bytes.byte(at + 1);
  return bytes.byte(at) * 0x1000000 + ((bytes.byte(at + 1) << 16) | (bytes.byte(at + 2) << 8) | bytes.byte(at + 3));
}

/** Where a map starts: its entry count and the offset of its first key; null when `at` holds no map. */
export function mapHeader(bytes: Uint8Array | ByteSource, at: number): { count: number; body: number } | null {
  return collectionHeader(source(bytes), at, 0x80, 0xde);
}

/** Where an array starts: its item count and the offset of its first item; null when `at` holds no array. */
export function arrayHeader(bytes: Uint8Array | ByteSource, at: number): { count: number; body: number } | null {
  return collectionHeader(source(bytes), at, 0x90, 0xdc);
}

function collectionHeader(bytes: ByteSource, at: number, fixBase: number, type16: number): { count: number; body: number } | null {
  if (at >= bytes.length) return null;
  const b = bytes.byte(at);
  if (b >= fixBase && b <= fixBase + 0x0f) return { count: b & 0x0f, body: at + 1 };
  if (b === type16 && at + 3 <= bytes.length) return { count: readLength(bytes, at + 1, 2), body: at + 3 };
  if (b === type16 + 1 && at + 5 <= bytes.length) return { count: readLength(bytes, at + 1, 4), body: at + 5 };
  return null;
}
