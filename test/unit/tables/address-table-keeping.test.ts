/**
 * buildAddressTableKeeping (an incremental build's pool table: the kept pools' address bytes copied from the
 * previous table, runs in one piece) held against buildAddressTable of the same addresses, every column to the byte,
 * after random series of removals, additions, edits (a pool decoded again at the same address) and reorderings.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildAddressTable, buildAddressTableKeeping, type AddressTableData } from "../../../src/tables/address-hash-table.js";
import { POOL_ADDRESS_WIDTH } from "../../../src/tables/pool-table.js";
import { prng, type Prng } from "../../support/prng.js";

let serial = 0;
/** V2/V3 (42 characters) and V4 (66) addresses. */
const address = (rng: Prng) => `0x${(++serial).toString(16).padStart(rng.chance(0.3) ? 64 : 40, "0")}`;

/** The next file's addresses and, per entry, 1 + the previous entry it keeps, or 0 (decoded: new or changed). */
function next(rng: Prng, previous: readonly string[]): { addresses: string[]; keptFrom: Int32Array } {
  const entries: { address: string; from: number }[] = [];
  previous.forEach((a, j) => {
    if (rng.chance(0.1)) return; // removed
    entries.push({ address: a, from: rng.chance(0.15) ? -1 : j }); // changed (decoded) or kept
  });
  for (let k = rng.int(0, 4); k > 0; k--) entries.splice(rng.int(0, entries.length), 0, { address: address(rng), from: -1 });
  if (rng.chance(0.2)) entries.sort(() => rng.next() - 0.5);
  return { addresses: entries.map((e) => e.address), keptFrom: Int32Array.from(entries.map((e) => e.from + 1)) };
}

const plain = (t: AddressTableData) => ({ ...t, keys: Array.from(t.keys), keyLength: Array.from(t.keyLength), slots: Array.from(t.slots) });

describe("an address table keeping the previous table's entries is buildAddressTable's", () => {
  it("after random series of removals, additions, edits and reorderings (property)", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 0, max: 120 }), fc.integer({ min: 1, max: 4 }), (seed, count, steps) => {
        const rng = prng(seed);
        let addresses = Array.from({ length: count }, () => address(rng));
        let table = buildAddressTable(addresses, POOL_ADDRESS_WIDTH);
        for (let s = 0; s < steps; s++) {
          const step = next(rng, addresses);
          const kept = buildAddressTableKeeping(step.addresses, POOL_ADDRESS_WIDTH, table, step.keptFrom);
          expect(plain(kept)).toEqual(plain(buildAddressTable(step.addresses, POOL_ADDRESS_WIDTH)));
          addresses = step.addresses;
          table = kept;
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reads no kept entry's address string, and refuses a table of another width", () => {
    const previous = buildAddressTable(["0xaa", "0xbb", "0xcc"], POOL_ADDRESS_WIDTH);
    // Entries 0 and 1 kept (previous 1 and 2), entry 2 new: the strings of kept entries are not read.
    const kept = buildAddressTableKeeping(["(unread)", "(unread)", "0xdd"], POOL_ADDRESS_WIDTH, previous, Int32Array.from([2, 3, 0]));
    expect(plain(kept)).toEqual(plain(buildAddressTable(["0xbb", "0xcc", "0xdd"], POOL_ADDRESS_WIDTH)));
    expect(() => buildAddressTableKeeping(["0xaa"], 42, previous, Int32Array.from([1]))).toThrow(/width 66, not 42/);
  });
});
