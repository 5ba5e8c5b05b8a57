/**
 * The sorts the pool-search orders are made of (compile-pool-search.ts sorts every pool with them;
 * pool-order-merge.ts only the decoded ones): pools in address order, then by a key descending with ties by address;
 * and isFirstOccurrence, which the token walks over a pool's tokens share.
 */
import { sortByFloatKey } from "../util/float-key-sort.js";

/** Scratch arrays of sortByKey for lists of up to `n` pools. */
export const sortScratch = (n: number) => ({ keys: new Float64Array(n), order: new Uint32Array(n) });

/**
 * The first `count` pools of `byAddress` (in address order) by their key at `keys[base + pool]`, descending, ties by
 * address (a stable radix sort over the address order), written to `out` from `outAt`.
 */
export function sortByKey(
  byAddress: Uint32Array,
  count: number,
  keys: Float64Array,
  base: number,
  scratch: ReturnType<typeof sortScratch>,
  out: Uint32Array,
  outAt: number,
): void {
  for (let r = 0; r < count; r++) scratch.keys[r] = keys[base + byAddress[r]];
  sortByFloatKey(scratch.keys, count, true, scratch.order);
  for (let j = 0; j < count; j++) out[outAt + j] = byAddress[scratch.order[j]];
}

/** Whether rows[j] is the first of its value in rows[from..j] (pools hold a handful of tokens). */
export function isFirstOccurrence(rows: Uint32Array, from: number, j: number): boolean {
  const row = rows[j];
  for (let i = from; i < j; i++) if (rows[i] === row) return false;
  return true;
}

/**
 * Pool indices in code-unit order of their addresses: a radix sort on the
 * first 13 hex digits (52 bits: exact as a double; hex digits sort like their
 * lowercase characters), then runs with equal digits by the whole string.
 */
export function addressOrder(addresses: readonly string[]): Uint32Array {
  const n = addresses.length;
  const prefix = new Float64Array(n);
  for (let i = 0; i < n; i++) prefix[i] = parseInt(addresses[i].slice(2, 15), 16);
  const order = sortByFloatKey(prefix, n, false);
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && prefix[order[end]] === prefix[order[start]]) end++;
    if (end - start > 1) {
      const run = Array.from(order.subarray(start, end)).sort((a, b) =>
        addresses[a] < addresses[b] ? -1 : addresses[a] > addresses[b] ? 1 : 0,
      );
      order.set(run, start);
    }
    start = end;
  }
  return order;
}
