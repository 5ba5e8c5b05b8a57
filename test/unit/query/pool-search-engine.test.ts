/**
 * The in-process pool-search engine (compile → pool-search index → searchPools)
 * against a full scan written here: random chains with two- to four-token pools
 * (a token twice in one pool included), sort keys drawn from a few values (many
 * ties, -0 among them), random sides, filters, keys and directions, every page
 * walked from the last pool's (key, chainId, address) at several limits.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../../../src/chains/chains.js";
import {
  POOL_SORT_KEY_COUNT,
  POOL_TYPES,
  sortKeyIndex,
  POOL_ORDER_FIELDS,
  POOL_TIMEFRAMES,
} from "../../../src/tables/pool-search-index.js";
import {
  searchPools,
  type PairSource,
  type PoolSearchQuery,
  type SearchChain,
  type SearchPosition,
} from "../../../src/query/pool-search.js";
import type { CompiledChain } from "../../../src/tables/compiled-chain.js";
import type { PoolType, SnapshotFile, SnapshotPool } from "../../../src/api/snapshot-format.js";
import {
  addr,
  algebraPool,
  chainFile,
  periodStats,
  poolToken,
  protocol,
  slipstreamPool,
  token,
  v2Pool,
  v3Pool,
  v4Pool,
} from "../../support/fixtures.js";
import { prng } from "../../support/prng.js";
import { compileFile } from "../../support/compiled-chains.js";

const CHAIN_IDS: ChainId[] = [1, 8453, 130];
const KEY_VALUES = [0, -0, 1, 2, 2, 5, 10.5, 1e6, -3];
const PROTOCOLS = ["p-one", "p-two", "p-three"];

function makeChain(chainId: ChainId, seed: number): SnapshotFile {
  const r = prng(seed);
  const addresses = [
    NATIVE_ADDRESS,
    CHAINS[chainId].wrappedNative,
    ...Array.from({ length: 10 }, (_, i) => addr(`${chainId.toString(16)}${i + 1}`)),
  ];
  const tokens = addresses.map((address, i) => token(chainId, { address, symbol: `T${i}` }));
  const pools: SnapshotPool[] = [];
  for (let p = 0; p < 70; p++) {
    const n = r.pick([2, 2, 2, 3, 4]);
    const members = Array.from({ length: n }, () => r.pick(addresses));
    const stats = { stats24h: periodStats(1), stats7d: periodStats(2), stats30d: periodStats(3), stats90d: periodStats(4) };
    for (const s of Object.values(stats)) {
      s.yield = r.pick(KEY_VALUES);
      s.swapVolumeUsd = r.pick(KEY_VALUES);
      s.feesUsd = r.pick(KEY_VALUES);
    }
    const tvl = Math.abs(r.pick(KEY_VALUES));
    const tracked = r.next() < 0.5 ? Math.abs(r.pick(KEY_VALUES)) : undefined;
    const address =
      r.next() < 0.2 ? `0x${(p * 7919).toString(16).padStart(64, "0")}` : `0x${(p * 104729 + chainId).toString(16).padStart(40, "0")}`;
    const base = {
      address,
      protocolId: r.pick(PROTOCOLS),
      tokens: members.map((m) => poolToken(m, 1, 1)),
      totalValueLockedUsd: tvl,
      trackedTotalValueLockedUsd: tracked,
      stats,
    };
    const make = r.pick([v2Pool, v3Pool, v4Pool, algebraPool, slipstreamPool] as const);
    pools.push(make(base as never));
  }
  return chainFile(chainId, { tokens, pools, protocols: PROTOCOLS.map((id) => protocol(id)) });
}

const FILES = CHAIN_IDS.map((id, i) => makeChain(id, 1000 + i));
const COMPILED: CompiledChain[] = FILES.map((f) => compileFile(f));

interface Spec {
  a: number[][];
  b: number[][] | null;
  key: number;
  descending: boolean;
  minTvl: number;
  typeMask: number;
  protocols: number[][];
  order: number[];
}

function keyOf(pool: SnapshotPool, key: number): number {
  if (key === 0) return (pool.trackedTotalValueLockedUsd ?? pool.totalValueLockedUsd) + 0;
  const k = key - 1;
  const timeframe = ["stats24h", "stats7d", "stats30d", "stats90d"][k % 4] as "stats24h";
  const field = (["yield", "swapVolumeUsd", "feesUsd"] as const)[Math.floor(k / 4)];
  return pool.stats[timeframe][field] + 0;
}

/** The full scan: every pool of every chain, the rule of §10 read literally. */
function reference(spec: Spec): string[] {
  const rows: { key: number; chainId: number; address: string }[] = [];
  FILES.forEach((file, c) => {
    const addresses = file.tokens.map((t) => t.address);
    const inA = new Set(spec.a[c].map((row) => addresses[row]));
    const inB = spec.b === null ? null : new Set(spec.b[c].map((row) => addresses[row]));
    const allowed = new Set(spec.protocols[c].map((i) => [...PROTOCOLS].sort()[i]));
    for (const pool of file.pools) {
      const t = pool.tokens.map((x) => x.address);
      let match = false;
      if (inB === null) match = t.some((x) => inA.has(x));
      else
        for (let i = 0; i < t.length; i++) for (let j = 0; j < t.length; j++) if (i !== j && inA.has(t[i]) && inB.has(t[j])) match = true;
      if (!match) continue;
      if (keyOf(pool, 0) < spec.minTvl) continue;
      if (((spec.typeMask >> POOL_TYPES.indexOf(pool.type as PoolType)) & 1) === 0) continue;
      if (!allowed.has(pool.protocolId)) continue;
      rows.push({ key: keyOf(pool, spec.key), chainId: file.chainId, address: pool.address });
    }
  });
  rows.sort((x, y) => {
    if (x.key !== y.key) return spec.descending ? y.key - x.key : x.key - y.key;
    if (x.chainId !== y.chainId) return x.chainId - y.chainId;
    return x.address < y.address ? -1 : x.address > y.address ? 1 : 0;
  });
  return rows.map((r) => `${r.chainId}/${r.address}`);
}

function walk(spec: Spec, limit: number, source: PairSource): string[] {
  const chains: SearchChain[] = spec.order.map((c) => {
    const compiled = COMPILED[c];
    const allowed = new Uint8Array(compiled.poolSearch.protocolIds.length);
    for (const i of spec.protocols[c]) allowed[i] = 1;
    return {
      chainId: compiled.info.chainId,
      index: compiled.poolSearch,
      pools: compiled.pools,
      a: [...new Set(spec.a[c])],
      b: spec.b === null ? null : [...new Set(spec.b[c])],
      protocolAllowed: allowed,
    };
  });
  const q: PoolSearchQuery = { key: spec.key, descending: spec.descending, minTvl: spec.minTvl, typeMask: spec.typeMask };
  const out: string[] = [];
  let after: SearchPosition | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const page = searchPools(chains, q, after, limit, source);
    page.pool.forEach((pool, i) => {
      const c = chains[page.chain[i]];
      const address = String.fromCharCode(...c.pools.keys.subarray(pool * c.pools.width, pool * c.pools.width + c.pools.keyLength[pool]));
      out.push(`${c.chainId}/${address}`);
      after = { key: c.index.keys[q.key * c.index.poolCount + pool], chainId: c.chainId, address };
    });
    expect(page.pool.length === limit || !page.more).toBe(true);
    if (!page.more) return out;
  }
  throw new Error("no end");
}

const rowsArb = fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 4 });
const specArb: fc.Arbitrary<Spec> = fc
  .record({
    a: fc.tuple(rowsArb, rowsArb, rowsArb),
    b: fc.option(fc.tuple(rowsArb, rowsArb, rowsArb), { nil: null }),
    key: fc.integer({ min: 0, max: POOL_SORT_KEY_COUNT - 1 }),
    descending: fc.boolean(),
    minTvl: fc.constantFrom(0, 0, 1, 2, 5, 1e6),
    typeMask: fc.constantFrom(31, 31, 1, 6, 30),
    protocols: fc.tuple(...CHAIN_IDS.map(() => fc.subarray([0, 1, 2], { minLength: 1 }))),
    order: fc.shuffledSubarray([0, 1, 2], { minLength: 3 }),
  })
  .map((s) => ({ ...s, protocols: s.protocols as number[][], a: s.a as number[][], b: s.b as number[][] | null }));

describe("pool-search engine vs a full scan", () => {
  test("sort key indices cover every field and timeframe once", () => {
    const seen = new Set<number>();
    for (const f of POOL_ORDER_FIELDS) for (const t of POOL_TIMEFRAMES) seen.add(sortKeyIndex(f, t));
    expect([...seen].sort((x, y) => x - y)).toEqual(Array.from({ length: POOL_SORT_KEY_COUNT }, (_, i) => i));
  });

  test("the data has ties, multi-token pools and repeated tokens", () => {
    const pools = FILES.flatMap((f) => f.pools);
    expect(pools.some((p) => p.tokens.length > 2)).toBe(true);
    expect(pools.some((p) => new Set(p.tokens.map((t) => t.address)).size < p.tokens.length)).toBe(true);
    expect(
      reference({
        a: [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], [], []],
        b: null,
        key: 1,
        descending: true,
        minTvl: 0,
        typeMask: 31,
        protocols: [[0, 1, 2], [], []],
        order: [0, 1, 2],
      }).length,
    ).toBe(70);
  });

  test("random searches, every page, limits 1, 3, 7 and 500, pairs from either source", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const expected = reference(spec);
        for (const limit of [1, 3, 7, 500]) expect(walk(spec, limit, "cheaper"), `limit ${limit}`).toEqual(expected);
        if (spec.b !== null) {
          expect(walk(spec, 3, "lists"), "lists").toEqual(expected);
          expect(walk(spec, 3, "pairs"), "pairs").toEqual(expected);
        }
      }),
      { numRuns: 300, seed: 4242 },
    );
  });
});
