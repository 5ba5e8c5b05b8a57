/**
 * Lookups in a change set's address lists (shared columns of lowercase
 * addresses sorted ascending: byte order is string order), without decoding
 * the column.
 */
import { findSortedRow, type StringColumn } from "../tables/shared-columns.js";

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
  return findSortedRow(column, address) >= 0;
}
