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

export function encodeStringColumn(values: readonly string[]): StringColumn {
  return encodeByteColumn(values.map((v) => encoder.encode(v)));
}

/** Concatenates byte strings into one shared blob with n+1 offsets. */
export function encodeByteColumn(parts: readonly Uint8Array[]): StringColumn {
  let total = 0;
  for (const p of parts) total += p.length;
  if (total > 0xffffffff) throw new Error(`column of ${total} bytes exceeds the 4 GiB offset range`);
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

export function columnBytes(column: StringColumn, i: number): Uint8Array {
  return column.bytes.subarray(column.offsets[i], column.offsets[i + 1]);
}

export function utf8(value: string): Uint8Array {
  return encoder.encode(value);
}
