/**
 * Lookups in a change set's address lists (shared columns of lowercase
 * addresses sorted ascending: byte order is string order), without decoding
 * the column.
 */
import type { StringColumn } from "../tables/shared-columns.js";

/** Entries of the column. */
export function listLength(column: StringColumn): number {
  return column.offsets.length - 1;
}

/** Entry i as text (lowercase hex: one byte per character). */
export function listEntry(column: StringColumn, i: number): string {
  const { bytes, offsets } = column;
  return Buffer.from(bytes.buffer, bytes.byteOffset + offsets[i], offsets[i + 1] - offsets[i]).toString("latin1");
}

/** Whether the sorted column holds `address` (lowercase): a binary search comparing bytes with the text's code units. */
export function listIncludes(column: StringColumn, address: string): boolean {
  const { bytes, offsets } = column;
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const from = offsets[mid];
    const length = offsets[mid + 1] - from;
    let order = 0;
    const shared = Math.min(length, address.length);
    for (let k = 0; k < shared && order === 0; k++) order = bytes[from + k] - address.charCodeAt(k);
    if (order === 0) order = length - address.length;
    if (order === 0) return true;
    if (order < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
