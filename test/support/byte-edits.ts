/**
 * Hostile bytes for the snapshot readers' property tests: random byte changes, cuts and insertions of a
 * valid file (fast-check), and a value's bytes as comparable text.
 */
import fc from "fast-check";
import type { CompiledChain } from "../../src/tables/compiled-chain.js";
import { poolJson } from "../../src/tables/pool-table.js";

export type ByteEdit = [at: number, value: number, kind: "set" | "cut" | "insert"];

/** One to four edits of a file of `length` bytes. */
export function byteEdits(length: number): fc.Arbitrary<ByteEdit[]> {
  return fc.array(
    fc.tuple(fc.nat(length - 1), fc.integer({ min: 0, max: 255 }), fc.constantFrom("set" as const, "cut" as const, "insert" as const)),
    {
      minLength: 1,
      maxLength: 4,
    },
  );
}

/** `valid` with the edits applied in order (a position past a cut wraps around). */
export function applyByteEdits(valid: Uint8Array, edits: readonly ByteEdit[]): Buffer {
  let bytes = Buffer.from(valid);
  for (const [at, value, kind] of edits) {
    const p = at % Math.max(1, bytes.length);
    if (kind === "set") bytes[p] = value;
    else if (kind === "cut") bytes = bytes.subarray(0, p);
    else bytes = Buffer.concat([bytes.subarray(0, p), Buffer.from([value]), bytes.subarray(p)]);
  }
  return bytes;
}

/**
 * A value (a compiled chain, a token index) as plain comparable data: every typed array as its type and bytes
 * (their shared buffers' sizes differ between two builds), the keys in `skip` left out (a build's duration, a
 * file's mtime).
 */
export function comparable(value: unknown, skip: readonly string[] = []): unknown {
  if (ArrayBuffer.isView(value))
    return `${value.constructor.name}:${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64")}`;
  if (Array.isArray(value)) return value.map((v) => comparable(v, skip));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !skip.includes(k))
        .map(([k, v]) => [k, comparable(v, skip)]),
    );
  }
  return value;
}

/**
 * A compiled chain as `comparable` data, its pools' JSON as served (one value per pool): an incremental build
 * keeps unchanged pools' JSON in the previous build's blocks (kept-pool-json.ts), a full build writes one block.
 */
export function comparableChain(chain: CompiledChain, skip: readonly string[] = []): unknown {
  const json = Array.from({ length: chain.pools.count }, (_, i) => poolJson(chain.pools, i));
  return comparable({ ...chain, pools: { ...chain.pools, json } }, skip);
}
