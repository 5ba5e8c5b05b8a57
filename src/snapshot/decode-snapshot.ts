/**
 * Bytes of a snapshot file → one plain JavaScript value (not validated yet).
 *
 * Plain MessagePack from any language decodes here: maps become plain objects
 * (non-string keys become their string form; a `__proto__` key is renamed by
 * msgpackr and never touches a prototype), arrays become arrays. Integers
 * within ±2^53 come back as numbers; a 64-bit integer beyond that comes back as
 * a bigint, which validation then rejects with a clear path (it cannot be
 * represented exactly as a JavaScript number).
 *
 * Decoding is pure JavaScript, on purpose (msgpackr's `unpack-no-eval` build, never wired to the native
 * addon, whose process-global table other threads reset mid-decode): docs/decisions/001-msgpack-reader.md.
 * test/pipeline/decode-race.test.ts decodes in several threads while others load the addon and compares
 * every result byte for byte.
 */
import { createRequire } from "node:module";
import type { Options, Unpackr as UnpackrClass } from "msgpackr";
import { SnapshotError } from "./snapshot-error.js";

/** msgpackr's decoder build that never uses the native addon (no typings of its own: same API as msgpackr's). */
const { Unpackr } = createRequire(import.meta.url)("msgpackr/unpack-no-eval") as { Unpackr: typeof UnpackrClass };

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

/**
 * Decodes one record of a snapshot whose bytes are known to hold exactly one
 * MessagePack value (msgpack-layout.ts found its end); `path` names it in errors.
 */
export function decodeSnapshotRecord(bytes: Uint8Array, path: string): unknown {
  try {
    return unpackr.unpack(bytes);
  } catch (error) {
    throw new SnapshotError("decode", `${path}: ${decodeError(error, bytes.length).message}`, { cause: error, path });
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
