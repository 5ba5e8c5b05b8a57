/**
 * Bytes of a snapshot file → one plain JavaScript value (not validated yet).
 *
 * Plain MessagePack from any language decodes here: maps become plain objects
 * (non-string keys become their string form; a `__proto__` key is renamed by
 * msgpackr and never touches a prototype), arrays become arrays. Integers
 * within ±2^53 come back as numbers; a 64-bit integer beyond that comes back as
 * a bigint, which validation then rejects with a clear path (it cannot be
 * represented exactly as a JavaScript number).
 */
import { Unpackr, type Options } from "msgpackr";
import { SnapshotError } from "./snapshot-error.js";

const unpackr = new Unpackr({
  useRecords: false,
  mapsAsObjects: true,
  // "auto": uint64/int64 within ±2^53 → number, beyond → bigint. msgpackr
  // supports it; its typings (2.1.3) only list "bigint" | "number" | "string".
  int64AsType: "auto" as Options["int64AsType"],
});

const MAX_DETAIL_CHARS = 120;

export function decodeSnapshotBytes(bytes: Uint8Array): unknown {
  if (bytes.length === 0) {
    throw new SnapshotError("decode", "the file is empty (0 bytes): a push in progress or an interrupted copy?");
  }
  try {
    // unpack() throws when the value ends past the buffer (truncated file) and
    // when bytes remain after the first complete value (trailing garbage).
    return unpackr.unpack(bytes);
  } catch (error) {
    throw decodeError(error, bytes.length);
  }
}

function decodeError(error: unknown, length: number): SnapshotError {
  const detail = error instanceof Error ? error.message : String(error);
  const incomplete = typeof error === "object" && error !== null && (error as { incomplete?: unknown }).incomplete === true;
  let message: string;
  if (incomplete) {
    message = `truncated MessagePack data: the file (${length} bytes) ends in the middle of the value; a half-written push?`;
  } else if (detail.startsWith("Data read, but end of buffer not reached")) {
    message = `unexpected bytes after the MessagePack value: the file (${length} bytes) must hold exactly one map`;
  } else if (error instanceof RangeError && /call stack/i.test(detail)) {
    message = `not a valid snapshot: MessagePack nesting is too deep (${length} bytes)`;
  } else {
    message = `not valid MessagePack (${length} bytes): ${truncate(detail, MAX_DETAIL_CHARS)}`;
  }
  return new SnapshotError("decode", message, { cause: error });
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
