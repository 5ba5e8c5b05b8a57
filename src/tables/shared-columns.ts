/**
 * Build-time helpers for the compiled index. Every column the serving threads
 * read lives in a SharedArrayBuffer, so a compiled snapshot can be handed to
 * any number of threads without copying.
 */
import { MAX_JSON_NUMBER_BYTES, writeJsonNumber } from "../util/json-number.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

type NumericArray = Float64Array | Uint32Array | Int32Array | Uint8Array;
type NumericArrayCtor<T> = { new (buffer: SharedArrayBuffer, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number };

export function sharedArray<T extends NumericArray>(Ctor: NumericArrayCtor<T>, length: number): T {
  return new Ctor(new SharedArrayBuffer(Math.max(1, length) * Ctor.BYTES_PER_ELEMENT), 0, length);
}

/** A copy of `values` in shared memory (what a serving thread is handed without a copy). */
export function sharedCopy<T extends NumericArray>(Ctor: NumericArrayCtor<T>, values: ArrayLike<number>): T {
  const copy = sharedArray(Ctor, values.length);
  copy.set(values);
  return copy;
}

/** A column of strings: UTF-8 bytes end to end plus n+1 offsets. */
export interface StringColumn {
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;
}

const MAX_COLUMN_BYTES = 0xffffffff;

function tooLarge(total: number): Error {
  return new Error(`column of ${total} bytes exceeds the 4 GiB offset range`);
}

/** How JSON.stringify writes each byte of UTF-8 text inside a string literal (null: as is). */
const JSON_ESCAPES: readonly (Uint8Array | null)[] = Array.from({ length: 256 }, (_, b) => {
  if (b >= 0x20 && b !== 0x22 && b !== 0x5c) return null;
  return encoder.encode(JSON.stringify(String.fromCharCode(b)).slice(1, -1));
});
/** 1 for the bytes JSON_ESCAPES escapes. */
const JSON_ESCAPED = Uint8Array.from(JSON_ESCAPES, (e) => (e === null ? 0 : 1));

/**
 * Appends values to a column, written once, straight into shared memory:
 * strings as UTF-8, raw bytes, or JSON string literals of UTF-8 bytes. A value
 * may be written in pieces (`write*`, then `endValue()`); `add*` write a whole
 * value. The blob starts at `expectedBytes` and grows by copying when a value
 * does not fit; only the bytes written are ever touched, so the unused tail
 * of the blob costs address space, not memory.
 */
export class StringColumnBuilder {
  private blob: Buffer;
  private at = 0;
  private ends: Uint32Array;
  private count = 0;

  /**
   * @param region shared memory to write into instead of a new blob (its length is the room; the builder
   *   moves to a blob of its own, by copying, when a value does not fit): two builders can fill two regions of
   *   one buffer, and `appendColumn` then joins them in place.
   */
  constructor(expectedCount = 1024, expectedBytes = 1 << 16, region?: Uint8Array) {
    this.blob = region ? Buffer.from(region.buffer, region.byteOffset, region.length) : sharedBuffer(Math.max(64, expectedBytes));
    this.ends = new Uint32Array(Math.max(16, expectedCount));
  }

  get length(): number {
    return this.count;
  }

  /** Bytes written so far into the current (unfinished) value. */
  get valueBytes(): number {
    return this.at - (this.count > 0 ? this.ends[this.count - 1] : 0);
  }

  /** Appends a string as UTF-8 (one whole value). */
  add(value: string): void {
    this.write(value);
    this.endValue();
  }

  /** Appends bytes as they are (one whole value). */
  addBytes(bytes: Uint8Array): void {
    this.writeBytes(bytes, 0, bytes.length);
    this.endValue();
  }

  /** Writes part of the current value: a string as UTF-8. */
  write(value: string): void {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes.
    this.reserve(value.length * 3);
    this.at += this.blob.write(value, this.at);
  }

  /** Writes part of the current value: bytes[start..end) as they are. */
  writeBytes(bytes: Uint8Array, start: number, end: number): void {
    const length = end - start;
    this.reserve(length);
    const blob = this.blob;
    let at = this.at;
    if (length > 64) blob.set(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end), at);
    else for (let k = start; k < end; k++) blob[at++] = bytes[k];
    this.at += length;
  }

  /** Writes part of the current value: a string the caller knows is ASCII, byte per code unit. */
  writeAscii(value: string): void {
    this.reserve(value.length);
    const blob = this.blob;
    let at = this.at;
    for (let i = 0; i < value.length; i++) blob[at++] = value.charCodeAt(i);
    this.at = at;
  }

  /** Writes part of the current value: a number as JSON.stringify writes it. */
  writeNumber(value: number): void {
    this.reserve(MAX_JSON_NUMBER_BYTES);
    this.at = writeJsonNumber(this.blob, this.at, value);
  }

  /** Writes part of the current value: one byte. */
  writeByte(byte: number): void {
    this.reserve(1);
    this.blob[this.at++] = byte;
  }

  /**
   * Writes part of the current value: the JSON string literal (quotes
   * included) of the UTF-8 text bytes[start..end), byte for byte what
   * JSON.stringify gives for that text.
   */
  writeJsonString(bytes: Uint8Array, start: number, end: number): void {
    this.reserve((end - start) * 6 + 2);
    const blob = this.blob;
    let at = this.at;
    blob[at++] = 0x22;
    for (let k = start; k < end; k++) {
      const b = bytes[k];
      if (JSON_ESCAPED[b] === 0) blob[at++] = b;
      else {
        const escape = JSON_ESCAPES[b]!;
        for (let e = 0; e < escape.length; e++) blob[at++] = escape[e];
      }
    }
    blob[at++] = 0x22;
    this.at = at;
  }

  /** Ends the current value. */
  endValue(): void {
    if (this.count === this.ends.length) this.growEnds();
    if (this.at > MAX_COLUMN_BYTES) throw tooLarge(this.at);
    this.ends[this.count++] = this.at;
  }

  private growEnds(): void {
    const grown = new Uint32Array(this.ends.length * 2);
    grown.set(this.ends);
    this.ends = grown;
  }

  /**
   * Appends every value of `column` (another builder's finished column). When `column` lies in this builder's
   * buffer after what is written here (two regions of one buffer), its bytes move down in place and no
   * second copy is ever held; otherwise they are copied.
   */
  appendColumn(column: StringColumn): void {
    const { bytes, offsets } = column;
    const n = offsets.length - 1;
    const base = offsets[0];
    const length = offsets[n] - base;
    if (this.at + length > MAX_COLUMN_BYTES) throw tooLarge(this.at + length);
    const blob = this.blob;
    const start = bytes.byteOffset + base;
    if (bytes.buffer === blob.buffer && start >= blob.byteOffset + this.at) {
      // The other region follows this one: widen the view over it and move its bytes down (memmove).
      this.blob = Buffer.from(blob.buffer, blob.byteOffset, start + length - blob.byteOffset);
      this.blob.copyWithin(this.at, start - blob.byteOffset, start + length - blob.byteOffset);
    } else {
      this.reserve(length);
      this.blob.set(bytes.subarray(base, base + length), this.at);
    }
    const shift = this.at - base;
    this.at += length;
    for (let i = 1; i <= n; i++) {
      if (this.count === this.ends.length) this.growEnds();
      this.ends[this.count++] = offsets[i] + shift;
    }
  }

  /** Appends values [from, to) of `column` (whole values, their bytes copied in one piece). */
  appendValues(column: StringColumn, from: number, to: number): void {
    const { bytes, offsets } = column;
    const base = offsets[from];
    const length = offsets[to] - base;
    this.reserve(length);
    this.blob.set(bytes.subarray(base, base + length), this.at);
    const shift = this.at - base;
    this.at += length;
    if (this.at > MAX_COLUMN_BYTES) throw tooLarge(this.at);
    for (let i = from + 1; i <= to; i++) {
      if (this.count === this.ends.length) this.growEnds();
      this.ends[this.count++] = offsets[i] + shift;
    }
  }

  /** The bytes of the value last ended (a view, valid until the next write). */
  lastValue(): Uint8Array {
    const n = this.count;
    return this.blob.subarray(n > 1 ? this.ends[n - 2] : 0, n > 0 ? this.ends[n - 1] : 0);
  }

  /**
   * Extends a region builder's room to the end of its buffer: the region after it is no longer another
   * builder's (see the constructor). Nothing changes for a builder in a blob of its own.
   */
  claimRest(): void {
    const blob = this.blob;
    const end = blob.buffer.byteLength;
    if (blob.byteOffset + blob.length < end) this.blob = Buffer.from(blob.buffer, blob.byteOffset, end - blob.byteOffset);
  }

  /** The column (a view of the shared blob); the builder is spent afterwards. */
  finish(): StringColumn {
    const bytes = new Uint8Array(this.blob.buffer, this.blob.byteOffset, this.at);
    const offsets = sharedArray(Uint32Array, this.count + 1);
    offsets.set(this.ends.subarray(0, this.count), 1);
    this.blob = EMPTY;
    this.at = 0;
    return { bytes, offsets };
  }

  /** Room for maxBytes more. */
  private reserve(maxBytes: number): void {
    const need = this.at + maxBytes;
    if (need <= this.blob.length) return;
    const grown = sharedBuffer(Math.max(need, Math.ceil(this.blob.length * 1.5)));
    grown.set(this.blob.subarray(0, this.at));
    this.blob = grown;
  }
}

/** A Buffer over new shared memory (zero-filled lazily by the system). */
function sharedBuffer(length: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(length), 0, length);
}

const EMPTY = Buffer.alloc(0);

export function encodeStringColumn(values: readonly string[]): StringColumn {
  let maxBytes = 0;
  for (let i = 0; i < values.length; i++) maxBytes += values[i].length * 3;
  const builder = new StringColumnBuilder(values.length, maxBytes);
  for (let i = 0; i < values.length; i++) builder.add(values[i]);
  return builder.finish();
}

/** Concatenates byte strings into one shared blob with n+1 offsets. */
export function encodeByteColumn(parts: readonly Uint8Array[]): StringColumn {
  let total = 0;
  for (const p of parts) total += p.length;
  if (total > MAX_COLUMN_BYTES) throw tooLarge(total);
  const bytes = sharedArray(Uint8Array, total);
  const offsets = sharedArray(Uint32Array, parts.length + 1);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    offsets[i] = at;
    bytes.set(parts[i], at);
    at += parts[i].length;
  }
  offsets[parts.length] = at;
  return { bytes, offsets };
}

export function columnString(column: StringColumn, i: number): string {
  return decoder.decode(column.bytes.subarray(column.offsets[i], column.offsets[i + 1]));
}

/**
 * Every string of a column, decoded in one call when the column is ASCII
 * (then byte offsets are string offsets), else one decode per value.
 */
export function columnStrings(column: StringColumn): string[] {
  const { bytes, offsets } = column;
  const n = offsets.length - 1;
  const out: string[] = new Array(n);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const all = buffer.toString("utf8", offsets[0], offsets[n]);
  // Valid UTF-8 (every column is encoded from strings) decodes to as many
  // code units as bytes only when every byte is ASCII.
  if (all.length === offsets[n] - offsets[0]) {
    const base = offsets[0];
    for (let i = 0; i < n; i++) out[i] = all.slice(offsets[i] - base, offsets[i + 1] - base);
  } else {
    for (let i = 0; i < n; i++) out[i] = buffer.toString("utf8", offsets[i], offsets[i + 1]);
  }
  return out;
}

/**
 * The row of `column` whose value is `text` (one byte per character: ASCII, such as lowercase addresses), by a binary
 * search over the rows in ascending byte order (`order`, a permutation of the rows; absent: the rows as they are),
 * comparing bytes with the text's code units without decoding the column; -1 when none is.
 */
export function findSortedRow(column: StringColumn, text: string, order?: Uint32Array): number {
  const { bytes, offsets } = column;
  let low = 0;
  let high = (order === undefined ? offsets.length - 1 : order.length) - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const row = order === undefined ? mid : order[mid];
    const start = offsets[row];
    const length = offsets[row + 1] - start;
    const common = Math.min(length, text.length);
    let sign = 0;
    for (let k = 0; k < common && sign === 0; k++) sign = bytes[start + k] - text.charCodeAt(k);
    if (sign === 0) sign = length - text.length;
    if (sign === 0) return row;
    if (sign < 0) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/** Bytes [aStart, aEnd) of `a` against bytes [bStart, bEnd) of `b`, byte by byte, the shorter first on a tie (negative: a sorts first). */
export function compareBytes(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): number {
  const aLength = aEnd - aStart;
  const bLength = bEnd - bStart;
  const common = Math.min(aLength, bLength);
  for (let k = 0; k < common; k++) {
    const d = a[aStart + k] - b[bStart + k];
    if (d !== 0) return d;
  }
  return aLength - bLength;
}

export function columnBytes(column: StringColumn, i: number): Uint8Array {
  return column.bytes.subarray(column.offsets[i], column.offsets[i + 1]);
}

export function utf8(value: string): Uint8Array {
  return encoder.encode(value);
}
