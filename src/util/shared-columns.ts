/**
 * Build-time helpers for the compiled index. Every column the serving threads
 * read lives in a SharedArrayBuffer, so a compiled snapshot can be handed to
 * any number of threads without copying.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

type NumericArray = Float64Array | Uint32Array | Int32Array | Uint8Array;
type NumericArrayCtor<T> = { new (buffer: SharedArrayBuffer, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number };

export function sharedArray<T extends NumericArray>(Ctor: NumericArrayCtor<T>, length: number): T {
  return new Ctor(new SharedArrayBuffer(Math.max(1, length) * Ctor.BYTES_PER_ELEMENT), 0, length);
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
 * Appends values to a column: a value is written once into private chunks
 * (strings as UTF-8, raw bytes, or JSON string literals of UTF-8 bytes), and
 * `finish()` copies the chunks into one shared blob. A value may be written in
 * pieces (`write*`, then `endValue()`); `add*` write a whole value.
 */
export class StringColumnBuilder {
  private readonly chunkBytes: number;
  private readonly done: Buffer[] = [];
  private chunk: Buffer;
  private at = 0;
  /** Bytes in finished chunks. */
  private flushed = 0;
  private ends: Uint32Array;
  private count = 0;

  constructor(expectedCount = 1024, chunkBytes = 1 << 22) {
    this.chunkBytes = chunkBytes;
    this.chunk = Buffer.allocUnsafeSlow(chunkBytes);
    this.ends = new Uint32Array(Math.max(16, expectedCount));
  }

  get length(): number {
    return this.count;
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
    this.at += this.chunk.write(value, this.at);
  }

  /** Writes part of the current value: bytes[start..end) as they are. */
  writeBytes(bytes: Uint8Array, start: number, end: number): void {
    const length = end - start;
    this.reserve(length);
    const chunk = this.chunk;
    let at = this.at;
    if (length > 64) chunk.set(bytes.subarray(start, end), at);
    else for (let k = start; k < end; k++) chunk[at++] = bytes[k];
    this.at += length;
  }

  /**
   * Writes part of the current value: the JSON string literal (quotes
   * included) of the UTF-8 text bytes[start..end), byte for byte what
   * JSON.stringify gives for that text.
   */
  writeJsonString(bytes: Uint8Array, start: number, end: number): void {
    this.reserve((end - start) * 6 + 2);
    const chunk = this.chunk;
    let at = this.at;
    chunk[at++] = 0x22;
    for (let k = start; k < end; k++) {
      const b = bytes[k];
      if (JSON_ESCAPED[b] === 0) chunk[at++] = b;
      else {
        const escape = JSON_ESCAPES[b]!;
        for (let e = 0; e < escape.length; e++) chunk[at++] = escape[e];
      }
    }
    chunk[at++] = 0x22;
    this.at = at;
  }

  /** Ends the current value. */
  endValue(): void {
    const total = this.flushed + this.at;
    if (total > MAX_COLUMN_BYTES) throw tooLarge(total);
    if (this.count === this.ends.length) {
      const grown = new Uint32Array(this.ends.length * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    this.ends[this.count++] = total;
  }

  /** Copies everything into a shared column; the builder is spent afterwards. */
  finish(): StringColumn {
    const total = this.flushed + this.at;
    const bytes = sharedArray(Uint8Array, total);
    let at = 0;
    for (const part of this.done) {
      bytes.set(part, at);
      at += part.length;
    }
    bytes.set(this.chunk.subarray(0, this.at), at);
    const offsets = sharedArray(Uint32Array, this.count + 1);
    offsets.set(this.ends.subarray(0, this.count), 1);
    this.done.length = 0;
    this.chunk = Buffer.alloc(0);
    this.at = 0;
    return { bytes, offsets };
  }

  /** Room for maxBytes more in the current chunk (a value may span chunks: finish() joins them). */
  private reserve(maxBytes: number): void {
    if (this.at + maxBytes <= this.chunk.length) return;
    if (this.at > 0) {
      this.done.push(this.chunk.subarray(0, this.at));
      this.flushed += this.at;
    }
    this.chunk = Buffer.allocUnsafeSlow(Math.max(this.chunkBytes, maxBytes));
    this.at = 0;
  }
}

export function encodeStringColumn(values: readonly string[]): StringColumn {
  let chars = 0;
  for (let i = 0; i < values.length; i++) chars += values[i].length;
  const builder = new StringColumnBuilder(values.length, Math.min(1 << 22, Math.max(1024, chars + 64)));
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

export function columnBytes(column: StringColumn, i: number): Uint8Array {
  return column.bytes.subarray(column.offsets[i], column.offsets[i + 1]);
}

export function utf8(value: string): Uint8Array {
  return encoder.encode(value);
}
