/**
 * The change set of a chain file (live.md §12, src/snapshot/diff-chain.ts) on random chains: compiled as
 * the build worker compiles them, diffed, and compared with a simple reference over the files' records
 * (test/support/reference-changes.ts): a pool changes when anything its pool-details JSON shows changes
 * (its record, the metadata of its tokens, its protocol), a token when a field of its single-chain JSON or
 * its tracked price does. Exact sorted lists.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SnapshotFile, SnapshotPool, SnapshotToken } from "../../../src/api/snapshot-format.js";
import type { ChainId } from "../../../src/chains/chains.js";
import { diffChain, type DiffTables } from "../../../src/snapshot/diff-chain.js";
import type { CompiledChain } from "../../../src/tables/compiled-chain.js";
import {
  addr,
  algebraPool,
  chainFile,
  poolId,
  poolStats,
  poolToken,
  protocol,
  token,
  v2Pool,
  v3Pool,
  v4Pool,
} from "../../support/fixtures.js";
import { prng, type Prng } from "../../support/prng.js";
import { listsOf, referenceDiff, type ChainState } from "../../support/reference-changes.js";
import { compileFileAsRead } from "../../support/compiled-chains.js";

const CHAIN: ChainId = 8453;

/** The reference state of a file: pools by what their JSON shows, tokens by their single-chain fields and price. */
function referenceState(file: SnapshotFile): ChainState {
  const tokens = new Map(file.tokens.map((t) => [t.address, t] as const));
  const protocols = new Map(file.protocols.map((p) => [p.id, p] as const));
  const pools = new Map<string, string>();
  for (const p of file.pools) {
    const shown = p.tokens.map((t) => {
      const record = tokens.get(t.address)!;
      return [record.decimals, record.name, record.symbol, record.logoUrl];
    });
    const { trackedTotalValueLockedUsd: _notShown, ...record } = p as SnapshotPool & { trackedTotalValueLockedUsd?: number };
    void _notShown;
    pools.set(p.address, JSON.stringify([record, shown, protocols.get(p.protocolId)]));
  }
  const tokenValues = new Map<string, string>();
  for (const t of file.tokens)
    tokenValues.set(t.address, JSON.stringify([t.decimals, t.name, t.symbol, t.logoUrl, t.trackedTotalValuePooledUsd, t.trackedUsdPrice]));
  return { pools, tokens: tokenValues };
}

let serial = 0;
const freshAddress = () => addr((++serial).toString(16));

function randomToken(rng: Prng): SnapshotToken {
  const symbol = rng.pick(["USDC", "WETH", "DAI", "Ünï", 'Q"uote', "AAA", "BBB"]);
  return token(CHAIN, {
    address: freshAddress(),
    symbol,
    name: `${symbol} ${rng.int(0, 3)}`,
    trackedUsdPrice: rng.int(0, 5) / 2,
    trackedTotalValuePooledUsd: rng.int(0, 4) * 1000,
  });
}

function randomPool(rng: Prng, tokens: readonly SnapshotToken[]): SnapshotPool {
  const a = rng.pick(tokens).address;
  let b = rng.pick(tokens).address;
  if (b === a) b = tokens.find((t) => t.address !== a)!.address;
  const base = {
    protocolId: rng.pick(["proto-a", "proto-b"]),
    tokens: [poolToken(a, rng.int(1, 9), rng.int(1, 9) * 10), poolToken(b, rng.int(1, 9), rng.int(1, 9) * 10)],
    stats: poolStats(rng.int(1, 3)),
  };
  switch (rng.int(0, 3)) {
    case 0:
      return v2Pool({ ...base, address: freshAddress() });
    case 1:
      return v3Pool({ ...base, address: freshAddress() });
    case 2:
      return v4Pool({ ...base, address: poolId((++serial).toString(16)) });
    default:
      return algebraPool({ ...base, address: freshAddress() });
  }
}

function randomFile(rng: Prng): SnapshotFile {
  const tokens = Array.from({ length: rng.int(2, 12) }, () => randomToken(rng));
  const pools = Array.from({ length: rng.int(0, 25) }, () => randomPool(rng, tokens));
  return chainFile(CHAIN, { tokens, pools, protocols: [protocol("proto-a"), protocol("proto-b")], generatedAt: 1_750_000_000 });
}

/** The next file: pools removed, added and changed; tokens renamed, repriced, added, and removed when no pool holds them. */
function evolve(rng: Prng, file: SnapshotFile): SnapshotFile {
  let tokens = file.tokens.map((t) => {
    if (!rng.chance(0.2)) return t;
    switch (rng.int(0, 4)) {
      case 0:
        return { ...t, name: `${t.name}!` };
      case 1:
        return { ...t, trackedUsdPrice: t.trackedUsdPrice + 1 };
      case 2:
        return { ...t, trackedTotalValuePooledUsd: t.trackedTotalValuePooledUsd + 1 };
      case 3:
        return { ...t, decimals: (t.decimals + 1) % 30 };
      default:
        return { ...t, swapsCount: t.swapsCount + 1 }; // not shown anywhere: no change
    }
  });
  tokens.push(...Array.from({ length: rng.int(0, 2) }, () => randomToken(rng)));
  let pools = file.pools
    .filter(() => !rng.chance(0.15))
    .map((p) => {
      if (!rng.chance(0.25)) return p;
      switch (rng.int(0, 2)) {
        case 0:
          return { ...p, stats: poolStats(rng.int(4, 9)) } as SnapshotPool;
        case 1:
          return { ...p, totalValueLockedUsd: p.totalValueLockedUsd + 1 } as SnapshotPool;
        default:
          return { ...p, trackedTotalValueLockedUsd: rng.int(1, 100) } as SnapshotPool; // not in the JSON
      }
    });
  pools.push(...Array.from({ length: rng.int(0, 4) }, () => randomPool(rng, tokens)));
  const held = new Set(pools.flatMap((p) => p.tokens.map((t) => t.address)));
  tokens = tokens.filter((t) => held.has(t.address) || !rng.chance(0.3));
  if (tokens.length < 2) tokens.push(randomToken(rng), randomToken(rng));
  pools = pools.filter((p) => p.tokens.every((t) => tokens.some((k) => k.address === t.address)));
  const protocols = rng.chance(0.1) ? [protocol("proto-a", { name: "Renamed" }), protocol("proto-b")] : file.protocols;
  return { ...file, generatedAt: file.generatedAt + 60, tokens, pools, protocols };
}

describe("diffChain", () => {
  it("gives exactly the reference's sorted lists on random chains", () => {
    let changed = 0;
    let removed = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const rng = prng(seed);
        let file = randomFile(rng);
        let compiled = compileFileAsRead(file);
        // A first load: every address upserted, nothing removed.
        expect(listsOf(diffChain(null, compiled))).toEqual(referenceDiff(null, referenceState(file)));
        for (let step = rng.int(1, 4); step > 0; step--) {
          const next = evolve(rng, file);
          const nextCompiled = compileFileAsRead(next);
          const diff = diffChain(compiled, nextCompiled);
          const expected = referenceDiff(referenceState(file), referenceState(next));
          expect(listsOf(diff)).toEqual(expected);
          expect(diff.counts).toEqual({
            poolsUpserted: expected.poolsUpserted.length,
            poolsRemoved: expected.poolsRemoved.length,
            tokensUpserted: expected.tokensUpserted.length,
            tokensRemoved: expected.tokensRemoved.length,
          });
          changed += expected.poolsUpserted.length + expected.tokensUpserted.length;
          removed += expected.poolsRemoved.length + expected.tokensRemoved.length;
          file = next;
          compiled = nextCompiled;
        }
      }),
      { numRuns: 150 },
    );
    expect(changed).toBeGreaterThan(500);
    expect(removed).toBeGreaterThan(100);
  });

  it("the same data gives an empty change set; lists are lowercase and sorted", () => {
    const rng = prng(7);
    const file = randomFile(rng);
    const diff = diffChain(compileFileAsRead(file), compileFileAsRead({ ...file, generatedAt: file.generatedAt + 1 }));
    expect(diff.counts).toEqual({ poolsUpserted: 0, poolsRemoved: 0, tokensUpserted: 0, tokensRemoved: 0 });
    const first = listsOf(diffChain(null, compileFileAsRead(file)));
    for (const list of Object.values(first)) {
      expect(list).toEqual([...list].sort());
      for (const a of list) expect(a).toBe(a.toLowerCase());
    }
  });

  it("answers the same, column bytes and all, when a file's address orders are not ascending (lookups and a sort)", () => {
    let disordered = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const rng = prng(seed);
        const file = randomFile(rng);
        const next = evolve(rng, file);
        const [before, after] = [compileFileAsRead(file), compileFileAsRead(next)];
        const merged = diffChain(before, after);
        const expected = referenceDiff(referenceState(file), referenceState(next));
        expect(listsOf(merged)).toEqual(expected);
        // The diff walks each file in its kept address order; any other order must not change the answer.
        for (const [x, y] of [
          [disorder(before, rng), after],
          [before, disorder(after, rng)],
          [disorder(before, rng), disorder(after, rng)],
        ] as const) {
          const looked = diffChain(x, y);
          expect(listsOf(looked)).toEqual(expected);
          for (const key of ["poolsUpserted", "poolsRemoved", "tokensUpserted", "tokensRemoved"] as const) {
            expect(Buffer.from(looked[key].bytes)).toEqual(Buffer.from(merged[key].bytes));
            expect(looked[key].offsets).toEqual(merged[key].offsets);
          }
          expect(looked.counts).toEqual(merged.counts);
        }
        if (after.pools.count > 1 || after.tokens.count > 1) disordered++;
        // A first load: every address, in order, whatever order the file keeps.
        expect(listsOf(diffChain(null, disorder(after, rng)))).toEqual(listsOf(diffChain(null, after)));
      }),
      { numRuns: 100 },
    );
    expect(disordered).toBeGreaterThan(50);
  });
});

/** The diff's view of a compiled chain with its address orders shuffled (and so, mostly, not ascending). */
function disorder(chain: CompiledChain, rng: Prng): DiffTables {
  const rank = Uint32Array.from(chain.poolSearch.addressRank);
  const byAddress = Uint32Array.from(chain.tokenRun.byAddress);
  for (const order of [rank, byAddress])
    for (let i = order.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [order[i], order[j]] = [order[j], order[i]];
    }
  return { pools: chain.pools, tokens: chain.tokens, poolSearch: { addressRank: rank }, tokenRun: { byAddress } };
}
