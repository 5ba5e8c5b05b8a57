import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { sortByFloatKey } from "../../../src/util/float-key-sort.js";

/** The comparator sort it replaces: by key, ties by index ascending (stable) in both directions. */
function reference(keys: readonly number[], descending: boolean): number[] {
  const order = keys.map((_, i) => i);
  return order.sort((a, b) => (descending ? keys[b] - keys[a] : keys[a] - keys[b]) || a - b);
}

const order = (keys: number[], descending: boolean) => [...sortByFloatKey(Float64Array.from(keys), keys.length, descending)];

describe("sortByFloatKey", () => {
  test("ascending and descending, ties keep index order in both directions", () => {
    const keys = [5, 1, 5, 3, 1, 5, 0];
    expect(order(keys, false)).toEqual([6, 1, 4, 3, 0, 2, 5]);
    expect(order(keys, true)).toEqual([0, 2, 5, 3, 1, 4, 6]);
  });

  test("0 and -0 are one key; negatives, fractions, huge and tiny values are in numeric order", () => {
    const keys = [0, -0, 1e-300, 5e-324, -1, -1e300, 1.5, 1.25, Number.MAX_VALUE, Infinity, -Infinity, 0];
    expect(order(keys, false)).toEqual(reference(keys, false));
    expect(order(keys, true)).toEqual(reference(keys, true));
    expect(order([-0, 0, -0], true)).toEqual([0, 1, 2]);
  });

  test("empty and single", () => {
    expect(order([], true)).toEqual([]);
    expect(order([42], false)).toEqual([0]);
  });

  test("sorts only the first n keys, into a caller's array", () => {
    const out = new Uint32Array(8).fill(99);
    sortByFloatKey(Float64Array.from([3, 1, 2, -7, -8]), 3, false, out);
    expect([...out]).toEqual([1, 2, 0, 99, 99, 99, 99, 99]);
    expect(() => sortByFloatKey(new Float64Array(4), 4, false, new Uint32Array(3))).toThrow(RangeError);
  });

  test("matches the stable comparator sort on random keys with many ties (TVL-like, >= 0)", () => {
    const tvl = fc.oneof(
      fc.constantFrom(0, 1, 10_000, 10_000.5, 123.25),
      fc.double({ min: 0, max: 1e12, noNaN: true }),
      fc.integer({ min: 0, max: 50 }).map((n) => n * 1000),
    );
    fc.assert(
      fc.property(fc.array(tvl, { maxLength: 3000 }), fc.boolean(), (keys, descending) => {
        expect(order(keys, descending)).toEqual(reference(keys, descending));
      }),
      { numRuns: 200 },
    );
  });

  test("matches on any non-NaN doubles", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true }), { maxLength: 500 }), fc.boolean(), (keys, descending) => {
        // the comparator treats -0 and 0 as equal, so does the sort
        expect(order(keys, descending)).toEqual(reference(keys, descending));
      }),
      { numRuns: 200 },
    );
  });

  test("a larger sort after a smaller one reuses nothing stale", () => {
    const small = [3, 2, 1];
    expect(order(small, false)).toEqual([2, 1, 0]);
    const big = Array.from({ length: 5000 }, (_, i) => (i * 7919) % 101);
    expect(order(big, true)).toEqual(reference(big, true));
    expect(order(small, true)).toEqual([0, 1, 2]);
  });
});
