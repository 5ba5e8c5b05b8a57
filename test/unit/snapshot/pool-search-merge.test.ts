/**
 * The pool-search index of an incremental build (PoolSearchIndexBuilder.finish with the previous file's orders:
 * orders and per-token lists merged, pool-order-merge.ts) held against the index of a full build of the same
 * pools, every column to the element, after random edits: pools removed, added, changed (keys, tokens or both),
 * reordered; tokens removed, added and renumbered; keys that tie (broken by address). Pool counts and edit counts
 * are drawn so that both the merged and the distributed token lists run (MERGE_LISTS_UP_TO).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PoolType, SnapshotPool } from "../../../src/api/snapshot-format.js";
import { PoolSearchIndexBuilder } from "../../../src/snapshot/compile-pool-search.js";
import type { PreviousPoolOrders } from "../../../src/snapshot/pool-order-merge.js";
import { mergedPairIndex, pairIndex } from "../../../src/snapshot/pool-pairs.js";
import { buildAddressTable } from "../../../src/tables/address-hash-table.js";
import { POOL_TYPES, type PoolSearchIndexData } from "../../../src/tables/pool-search-index.js";
import { POOL_ADDRESS_WIDTH } from "../../../src/tables/pool-table.js";
import { prng, type Prng } from "../../support/prng.js";

/** What the index reads of a pool: its address, keys (few values: ties), type, protocol and token rows. */
interface Pool {
  readonly address: string;
  readonly tvl: number;
  /** yield, volume, fees of the four timeframes. */
  readonly stats: readonly number[];
  readonly type: PoolType;
  readonly protocol: string;
  readonly tokens: readonly number[];
}

/** A file's pools and token count; `keptFrom` as the chain's writer sets it (1 + previous pool, or 0: decoded). */
interface File {
  readonly tokenCount: number;
  readonly pools: readonly Pool[];
}

const PROTOCOLS = ["p", "q", "r"];

function record(pool: Pool): SnapshotPool {
  const s = pool.stats;
  const period = (t: number) => ({ yield: s[t]!, swapVolumeUsd: s[4 + t]!, feesUsd: s[8 + t]! });
  return {
    address: pool.address,
    type: pool.type,
    protocolId: pool.protocol,
    totalValueLockedUsd: pool.tvl,
    stats: { stats24h: period(0), stats7d: period(1), stats30d: period(2), stats90d: period(3) },
  } as unknown as SnapshotPool;
}

/** What an incremental build of the next file is handed of `file`'s build (`built`). */
function previousOrders(
  built: { data: PoolSearchIndexData; orders: Uint32Array },
  file: File,
  keptFrom: Int32Array,
  rowOf: Int32Array,
  nextAddresses: readonly string[] | null = null,
): PreviousPoolOrders {
  const pools = buildAddressTable(
    file.pools.map((p) => p.address),
    POOL_ADDRESS_WIDTH,
  );
  // Sometimes with the next file's pool table (a decoded pool at a previous pool's address is then placed by it).
  const table = nextAddresses === null ? null : buildAddressTable(nextAddresses, POOL_ADDRESS_WIDTH);
  return { index: built.data, pools, table, orders: built.orders, keptFrom, rowOf };
}

function index(
  file: File,
  previous: PreviousPoolOrders | null,
  addresses: readonly string[] = file.pools.map((p) => p.address),
): { data: PoolSearchIndexData; orders: Uint32Array } {
  const builder = new PoolSearchIndexBuilder({
    chainId: 8453,
    tokenCount: file.tokenCount,
    protocolIds: PROTOCOLS,
    poolCount: file.pools.length,
    wrappedRow: -1,
    wrappedJsonBytes: 0,
    nativeTokenJson: new Uint8Array(0),
  });
  for (const pool of file.pools) builder.add(record(pool), Uint32Array.from(pool.tokens), []);
  const data = builder.finish(addresses, previous);
  return { data, orders: builder.orders! };
}

let serial = 0;
const address = (rng: Prng) => `0x${rng.int(0, 3)}${(++serial).toString(16).padStart(39, "0")}`;
const value = (rng: Prng) => rng.pick([0, 0, 1, 2.5, 100]);

function randomPool(rng: Prng, tokenCount: number, at = address(rng)): Pool {
  const tokens = Array.from({ length: rng.int(2, 3) }, () => rng.int(0, tokenCount - 1));
  // Sometimes a token twice (a pool counts once in its list).
  if (rng.chance(0.1)) tokens.push(tokens[0]!);
  return {
    address: at,
    tvl: value(rng),
    stats: Array.from({ length: 12 }, () => value(rng)),
    type: rng.pick(POOL_TYPES),
    protocol: rng.pick(PROTOCOLS),
    tokens,
  };
}

/**
 * The next file: tokens renumbered (some removed, some added), pools removed, changed and added, the order shuffled
 * sometimes. The pools kept hold no removed token. Returns the file, each pool's keptFrom and the token rows' map.
 */
function next(rng: Prng, file: File, edits: number): { file: File; keptFrom: Int32Array; rowOf: Int32Array } {
  // Tokens: a new numbering, some gone, some new.
  const dropping = rng.chance(0.3);
  const order = Array.from({ length: file.tokenCount }, (_, r) => r).filter(() => !(dropping && rng.chance(0.05)));
  if (rng.chance(0.5)) order.sort(() => rng.next() - 0.5);
  for (let k = rng.int(0, 2); k > 0; k--) order.splice(rng.int(0, order.length), 0, -1);
  if (order.length < 2) order.push(-1, -1);
  const rowOf = new Int32Array(file.tokenCount).fill(-1);
  order.forEach((r, t) => {
    if (r >= 0) rowOf[r] = t;
  });
  const tokenCount = order.length;
  const entries: { pool: Pool; from: number }[] = [];
  const changed = new Set<number>();
  for (let k = 0; k < edits; k++) changed.add(rng.int(0, file.pools.length - 1));
  file.pools.forEach((pool, j) => {
    const holdsGone = pool.tokens.some((r) => rowOf[r] < 0);
    if (changed.has(j) || holdsGone) {
      switch (rng.int(0, 3)) {
        case 0: // removed
          return;
        case 1: // new tokens, same keys
          entries.push({ pool: { ...pool, tokens: randomPool(rng, tokenCount).tokens }, from: -1 });
          return;
        case 2: // new keys, same tokens (when they are all still there)
          if (!holdsGone) {
            entries.push({ pool: { ...randomPool(rng, tokenCount, pool.address), tokens: pool.tokens.map((r) => rowOf[r]!) }, from: -1 });
            return;
          }
          entries.push({ pool: randomPool(rng, tokenCount, pool.address), from: -1 });
          return;
        default: // everything new, same address
          entries.push({ pool: randomPool(rng, tokenCount, pool.address), from: -1 });
          return;
      }
    }
    // Kept, or decoded all the same (its bytes changed, not what the index reads).
    entries.push({ pool: { ...pool, tokens: pool.tokens.map((r) => rowOf[r]!) }, from: rng.chance(0.02) ? -1 : j });
  });
  for (let k = rng.int(0, Math.ceil(edits / 2)); k > 0; k--)
    entries.splice(rng.int(0, entries.length), 0, { pool: randomPool(rng, tokenCount), from: -1 });
  if (rng.chance(0.3)) entries.sort(() => rng.next() - 0.5);
  return {
    file: { tokenCount, pools: entries.map((e) => e.pool) },
    keptFrom: Int32Array.from(entries.map((e) => e.from + 1)),
    rowOf,
  };
}

function randomFile(rng: Prng, poolCount: number): File {
  const tokenCount = rng.int(2, Math.max(2, poolCount));
  return { tokenCount, pools: Array.from({ length: poolCount }, () => randomPool(rng, tokenCount)) };
}

/** The pair lists of `file` merged from `built`'s (null: not in order), as mergedPairIndex makes them. */
function mergedPairs(built: PoolSearchIndexData, file: File, keptFrom: Int32Array, rowOf: Int32Array) {
  const newOf = new Int32Array(built.poolCount).fill(-1);
  keptFrom.forEach((k, i) => {
    if (k > 0) newOf[k - 1] = i;
  });
  const decoded = Uint32Array.from(file.pools.flatMap((_, i) => (keptFrom[i] === 0 ? [i] : [])));
  const poolTokenStart = new Uint32Array(file.pools.length + 1);
  file.pools.forEach((p, i) => (poolTokenStart[i + 1] = poolTokenStart[i]! + p.tokens.length));
  const poolTokens = Uint32Array.from(file.pools.flatMap((p) => p.tokens));
  const merged = mergedPairIndex({ index: built, rowOf, newOf, decoded }, poolTokens, poolTokenStart, file.pools.length, file.tokenCount);
  return { merged, full: pairIndex(poolTokens, poolTokenStart, file.pools.length, file.tokenCount) };
}

const plain = (data: PoolSearchIndexData) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v as Uint32Array) : v]));

describe("an incremental pool-search index is the full build's", () => {
  it("after random series of removals, additions, changes, reorderings and renumbered tokens (property)", () => {
    let merged = 0;
    let pairsMerged = 0;
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 160 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 4 }),
        (seed, poolCount, series) => {
          const rng = prng(seed);
          let file = randomFile(rng, poolCount);
          let built = index(file, null);
          for (const edits of series) {
            const step = next(rng, file, edits);
            const full = index(step.file, null);
            const withTable = rng.chance(0.7) ? step.file.pools.map((p) => p.address) : null;
            const previous = previousOrders(built, file, step.keptFrom, step.rowOf, withTable);
            const incremental = index(step.file, previous);
            expect(plain(incremental.data)).toEqual(plain(full.data));
            expect(Array.from(incremental.orders)).toEqual(Array.from(full.orders));
            if (step.keptFrom.filter((k) => k === 0).length * 10 <= step.file.pools.length) merged++;
            // The pair lists merged alone (pool-pairs.ts), when the kept tokens and pools keep their order.
            const pairs = mergedPairs(built.data, step.file, step.keptFrom, step.rowOf);
            if (pairs.merged !== null) {
              expect(plain(pairs.merged as PoolSearchIndexData)).toEqual(plain(pairs.full as PoolSearchIndexData));
              pairsMerged++;
            }
            file = step.file;
            built = incremental;
          }
        },
      ),
      { numRuns: 300 },
    );
    // The token lists were merged (not distributed from the orders) in many steps.
    expect(merged).toBeGreaterThan(150);
    // The pairs were merged (not sorted again) in many steps.
    expect(pairsMerged).toBeGreaterThan(100);
  });

  it("previous orders the merge refuses: kept pools' blank addresses are read from the previous table, then sorted (property)", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 120 }), fc.integer({ min: 0, max: 20 }), (seed, poolCount, edits) => {
        const rng = prng(seed);
        const file = randomFile(rng, poolCount);
        const built = index(file, null);
        const step = next(rng, file, edits);
        const full = index(step.file, null);
        // The writer leaves a kept pool's address blank when previous orders are handed on (compile-chain.ts).
        const blanked = step.file.pools.map((p, i) => (step.keptFrom[i] === 0 ? p.address : ""));
        // Orders one entry short: OrderMerge.of refuses them.
        const previous = { ...previousOrders(built, file, step.keptFrom, step.rowOf), orders: built.orders.subarray(1) };
        const refused = index(step.file, previous, blanked);
        expect(plain(refused.data)).toEqual(plain(full.data));
        expect(Array.from(refused.orders)).toEqual(Array.from(full.orders));
      }),
      { numRuns: 100 },
    );
  });

  it("a token losing its last pool, a pool changing tokens, a pool moving: each token's lists (merged)", () => {
    // Pools 0..5 over tokens 0..3 (token 3 only in pool 5), then 20 pools over tokens 4 and 5, kept throughout (so
    // one decoded pool is few enough for the lists to be merged).
    const pool = (i: number, tokens: number[], tvl: number): Pool => ({
      address: `0x${String(i).padStart(40, "0")}`,
      tvl,
      stats: Array.from({ length: 12 }, () => tvl),
      type: "V3",
      protocol: "p",
      tokens,
    });
    const filler = Array.from({ length: 20 }, (_, i) => pool(100 + i, [4, 5], i % 3));
    const first: File = {
      tokenCount: 6,
      pools: [
        pool(0, [0, 1], 5),
        pool(1, [0, 2], 5),
        pool(2, [1, 2], 5),
        pool(3, [0, 1], 9),
        pool(4, [2, 0], 1),
        pool(5, [3, 0], 7),
        ...filler,
      ],
    };
    const built = index(first, null);
    // Pool 5 gone (token 3 has no pool left), pool 1 now holds tokens 1 and 3 (changed), pool 3 moved to the front.
    const second: File = {
      tokenCount: 6,
      pools: [pool(3, [0, 1], 9), pool(0, [0, 1], 5), pool(1, [1, 3], 5), pool(2, [1, 2], 5), pool(4, [2, 0], 1), ...filler],
    };
    const keptFrom = Int32Array.from([4, 1, 0, 3, 5, ...filler.map((_, i) => 7 + i)]);
    const previous = previousOrders(built, first, keptFrom, Int32Array.from([0, 1, 2, 3, 4, 5]));
    const merged = index(second, previous).data;
    expect(plain(merged)).toEqual(plain(index(second, null).data));
    const list = (t: number) => Array.from(merged.tokenPools.subarray(merged.tokenPoolStart[t], merged.tokenPoolStart[t + 1]));
    // TVL order (key 0), ties by address: pools 0, 1 (decoded) and 2, all at 5, in address order.
    expect(list(0)).toEqual([0, 1, 4]);
    expect(list(1)).toEqual([0, 1, 2, 3]);
    expect(list(2)).toEqual([3, 4]);
    expect(list(3)).toEqual([2]);
  });
});
