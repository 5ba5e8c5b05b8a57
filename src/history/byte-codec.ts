/**
 * The history store's own byte encoding (docs/decisions/014-history-store.md): a growable writer and a
 * reader of unsigned varints (up to 2^53), little-endian float64 and bytes, and the decimal form of a
 * number. A value the snapshot states as a short decimal (prices to 10 significant digits, USD amounts
 * to the cent) is stored as its integer digits and its number of decimals, `zigzag(m) * 16 + k` as a
 * varint: 3 to 6 bytes where a float64 takes 8, decoded exactly (`m / 10^k` is the correctly rounded
 * quotient of two exact doubles, so it is the number the decimal text reads as). Anything else (more
 * than 15 decimals, a magnitude past 2^48, -0) is stored as its float64 bits.
 */

const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);
/** |m| of the decimal form stays below this: zigzag(m) * 16 + 15 is then a safe integer (below 2^53; format 2 let
 * |m| = 2^48 through, whose code 2^53 + k is not). */
const MAX_MANTISSA = 2 ** 48;
const TWO_32 = 2 ** 32;

const zigzag = (m: number) => (m >= 0 ? m * 2 : -m * 2 - 1);
const unzigzag = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

/**
 * The decimal code of `x` (zigzag(m) * 16 + k with x === m / 10^k, k the fewest decimals), or -1 when it
 * has none (then it is stored as float64).
 */
export function decimalCode(x: number): number {
  if (x === 0) return Object.is(x, -0) ? -1 : 0;
  for (let k = 0; k < 16; k++) {
    const p = POW10[k];
    const m = Math.round(x * p);
    if (m / p === x) {
      if (m >= MAX_MANTISSA || m <= -MAX_MANTISSA) return -1;
      return zigzag(m) * 16 + k;
    }
  }
  return -1;
}

/** The mantissa of `ref` at `k` decimals, when a value can be written as a difference from it; else null. */
function refMantissa(ref: number | undefined, k: number): number | null {
  if (ref === undefined) return null;
  const m = Math.round(ref * POW10[k]);
  return m < MAX_MANTISSA && m > -MAX_MANTISSA ? m : null;
}

/**
 * The decimal code of `x` written against a reference value (format 3: the entity's previous record, or the
 * value a unit's number is drawn near): `zigzag(m - r) * 16 + k`, where `m / 10^k` is `x` with the fewest
 * decimals `k` and `r` is `ref` rounded to `k` decimals (`x`'s own code when `ref` is undefined or reaches
 * 2^48 at that scale). A walking value then takes the bytes of its step, not of its digits. -1: `x` has no
 * decimal form, or the difference does not fit a safe integer (it is then stored as float64).
 */
export function deltaCode(x: number, ref: number | undefined): number {
  const code = decimalCode(x);
  if (code < 0) return -1;
  const k = code % 16;
  const r = refMantissa(ref, k);
  if (r === null) return code;
  const out = zigzag(unzigzag((code - k) / 16) - r) * 16 + k;
  return out <= Number.MAX_SAFE_INTEGER ? out : -1;
}

/** The number of a code deltaCode wrote against the same `ref`. */
export function deltaValue(code: number, ref: number | undefined): number {
  const k = code % 16;
  const d = unzigzag((code - k) / 16);
  const r = refMantissa(ref, k);
  const m = r === null ? d : r + d;
  return k === 0 ? m : m / POW10[k];
}

/** Appends bytes to a buffer that grows as needed. */
export class ByteSink {
  private buf: Uint8Array;
  private view: DataView;
  at = 0;

  constructor(initial = 4096) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.at++] = v;
  }

  u16(v: number): void {
    this.room(2);
    this.view.setUint16(this.at, v, true);
    this.at += 2;
  }

  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.at, v, true);
    this.at += 4;
  }

  /** An unsigned integer below 2^53, 7 bits a byte. */
  varint(v: number): void {
    this.room(8);
    while (v >= 128) {
      this.buf[this.at++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    this.buf[this.at++] = v;
  }

  f64(v: number): void {
    this.room(8);
    this.view.setFloat64(this.at, v, true);
    this.at += 8;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  /** Overwrites a u32 written before (at byte `offset`). */
  patchU32(offset: number, v: number): void {
    this.view.setUint32(offset, v, true);
  }

  /** A copy of what was written (the sink is reused). */
  take(): Buffer {
    const out = Buffer.allocUnsafe(this.at);
    out.set(this.buf.subarray(0, this.at));
    this.at = 0;
    return out;
  }
}

/** Reads what a ByteSink wrote. */
export class ByteSource {
  at: number;
  end: number;
  private view: DataView;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    end = buf.length,
  ) {
    this.at = start;
    this.end = end;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get more(): boolean {
    return this.at < this.end;
  }

  u8(): number {
    return this.buf[this.at++];
  }

  u16(): number {
    const v = this.view.getUint16(this.at, true);
    this.at += 2;
    return v;
  }

  u32(): number {
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }

  varint(): number {
    let b = this.buf[this.at++];
    if (b < 128) return b;
    let v = b & 127;
    let scale = 128;
    for (;;) {
      b = this.buf[this.at++];
      v += (b & 127) * scale;
      if (b < 128) return v;
      scale *= 128;
    }
  }

  f64(): number {
    const v = this.view.getFloat64(this.at, true);
    this.at += 8;
    return v;
  }
}

/** A big-endian key of fixed fields (LMDB orders keys by their bytes). */
export class KeyWriter {
  private readonly buf: Buffer;
  private at = 0;

  constructor(size = 64) {
    this.buf = Buffer.alloc(size);
  }

  reset(): this {
    this.at = 0;
    return this;
  }

  u8(v: number): this {
    this.buf[this.at++] = v;
    return this;
  }

  u16(v: number): this {
    this.buf.writeUInt16BE(v, this.at);
    this.at += 2;
    return this;
  }

  u32(v: number): this {
    this.buf.writeUInt32BE(v >>> 0, this.at);
    this.at += 4;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.buf.set(b, this.at);
    this.at += b.length;
    return this;
  }

  /** The key (a view of the writer's buffer: valid until the next reset). */
  view(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  /** The key as its own copy. */
  copy(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.at));
  }
}

/** Reads a big-endian u32 of a key. */
export function keyU32(key: Uint8Array, at: number): number {
  return ((key[at] * 256 + key[at + 1]) * 256 + key[at + 2]) * 256 + key[at + 3];
}

export { TWO_32 };
