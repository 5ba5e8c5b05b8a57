/**
 * The sample generator's series (tools/samplegen/series.ts, `npm run snapshots:generate -- --series N --every S
 * --churn F`): successive files of a chain that the gateway accepts, deterministic by seed, in which a share F of
 * the pools and tokens change (prices and TVL walk, entities appear and disappear) and nothing else.
 */
import { pack } from "msgpackr";
import { describe, expect, it } from "vitest";
import type { SnapshotFile } from "../../../src/api/snapshot-format.js";
import type { ChainId } from "../../../src/chains/chains.js";
import { parseSnapshotBytes } from "../../../src/snapshot/read-snapshot-file.js";
import { readOptions } from "../../../tools/generate-snapshots.js";
import { buildChainSnapshot } from "../../../tools/samplegen/chain-snapshot.js";
import { scaleProfile } from "../../../tools/samplegen/scale.js";
import { ChainSeries } from "../../../tools/samplegen/series.js";
import { buildSharedCatalog } from "../../../tools/samplegen/tail-tokens.js";
import { reservedSymbols } from "../../../tools/samplegen/token-factory.js";

const CHAIN: ChainId = 8453;

function base(seed: number): SnapshotFile {
  const scale = scaleProfile("small");
  const reserved = reservedSymbols();
  return buildChainSnapshot({
    chainId: CHAIN,
    seed,
    scale,
    sharedCatalog: buildSharedCatalog(seed, scale, reserved),
    reservedSymbols: reserved,
  });
}

function files(seed: number, count: number, churn: number, everySeconds = 300): SnapshotFile[] {
  const series = new ChainSeries(base(seed), seed, { everySeconds, churn });
  return Array.from({ length: count }, () => series.next());
}

/** Records of `next` that are new or differ from `previous`'s of the same address, plus those gone: [changed, appeared, gone]. */
function changes<T extends { address: string }>(previous: readonly T[], next: readonly T[]): [number, number, number] {
  const before = new Map(previous.map((r) => [r.address, JSON.stringify(r)] as const));
  const after = new Set(next.map((r) => r.address));
  let changed = 0;
  let appeared = 0;
  for (const r of next) {
    const old = before.get(r.address);
    if (old === undefined) appeared++;
    else if (old !== JSON.stringify(r)) changed++;
  }
  const gone = previous.filter((r) => !after.has(r.address)).length;
  return [changed, appeared, gone];
}

describe("snapshot series", () => {
  it("are valid files, a share F of pools and tokens changed each step, entities appearing and disappearing", () => {
    const first = base(3);
    const series = files(3, 4, 0.05, 600);
    let previous = first;
    let appearedPools = 0;
    let gonePools = 0;
    let appearedTokens = 0;
    for (const file of series) {
      expect(file.generatedAt).toBe(previous.generatedAt + 600);
      expect(file.blockNumber).toBeGreaterThan(previous.blockNumber!);
      const parsed = parseSnapshotBytes(pack(file), CHAIN);
      expect(parsed.pools.length).toBe(file.pools.length);
      const [pools, poolsIn, poolsOut] = changes(previous.pools, file.pools);
      const [tokens, tokensIn, tokensOut] = changes(previous.tokens, file.tokens);
      const poolShare = (pools + poolsIn + poolsOut) / previous.pools.length;
      const tokenShare = (tokens + tokensOut) / previous.tokens.length;
      expect(poolShare).toBeGreaterThan(0.04);
      expect(poolShare).toBeLessThan(0.06);
      expect(tokenShare).toBeGreaterThan(0.04);
      expect(tokenShare).toBeLessThan(0.07);
      appearedPools += poolsIn;
      gonePools += poolsOut;
      appearedTokens += tokensIn;
      // Kept in address order, as the generator writes files.
      expect(file.pools.map((p) => p.address)).toEqual(file.pools.map((p) => p.address).sort());
      expect(file.tokens.map((t) => t.address)).toEqual(file.tokens.map((t) => t.address).sort());
      previous = file;
    }
    expect(appearedPools).toBeGreaterThan(0);
    expect(gonePools).toBeGreaterThan(0);
    expect(appearedTokens).toBeGreaterThan(0);
  });

  it("walk prices and TVL: stablecoins stay near 1, other prices drift, pool TVL is its tokens' value at their prices", () => {
    const series = files(5, 12, 0.5, 3600);
    const last = series[series.length - 1]!;
    const first = base(5);
    const price = new Map(last.tokens.map((t) => [t.address, t.usdPrice] as const));
    const usdc = first.tokens.find((t) => t.symbol === "USDC")!;
    expect(Math.abs(price.get(usdc.address)! - 1)).toBeLessThan(0.02);
    const priced = first.tokens.filter((t) => price.has(t.address) && t.usdPrice > 0);
    const moved = priced.filter((t) => price.get(t.address) !== t.usdPrice).length;
    expect(moved / priced.length).toBeGreaterThan(0.99);
    const byAddress = new Map(last.tokens.map((t) => [t.address, t] as const));
    const changedPools = last.pools.filter(
      (p) => !first.pools.some((q) => q.address === p.address && JSON.stringify(q) === JSON.stringify(p)),
    );
    for (const pool of changedPools.slice(0, 200)) {
      const sum = pool.tokens.reduce((s, t) => s + t.amountUsd, 0);
      expect(Math.abs(pool.totalValueLockedUsd - sum)).toBeLessThan(0.02 + sum * 1e-9);
      for (const t of pool.tokens) expect(byAddress.has(t.address)).toBe(true);
    }
  });

  it("are deterministic by seed: the same options give the same bytes, another seed other changes", () => {
    const a = files(9, 3, 0.02).map((f) => pack(f));
    const b = files(9, 3, 0.02).map((f) => pack(f));
    expect(a.map((x) => x.equals(b[a.indexOf(x)]!))).toEqual([true, true, true]);
    const other = new ChainSeries(base(9), 10, { everySeconds: 300, churn: 0.02 }).next();
    expect(pack(other).equals(a[0]!)).toBe(false);
    expect(other.pools.length).toBe(base(9).pools.length);
  });

  it("churn 0 changes only generatedAt and the block; the command line reads --series, --every and --churn", () => {
    const first = base(4);
    const [next] = files(4, 1, 0);
    expect({ ...next!, generatedAt: 0, blockNumber: 0 }).toEqual({ ...first, generatedAt: 0, blockNumber: 0 });
    expect(readOptions(["--series", "3", "--every", "60", "--churn", "0.2"])).toMatchObject({ series: 3, everySeconds: 60, churn: 0.2 });
    expect(readOptions([])).toMatchObject({ series: 0, everySeconds: 300, churn: 0.05 });
    expect(() => readOptions(["--churn", "1.5"])).toThrow(/--churn must be a number within 0-1/);
    expect(() => readOptions(["--every", "0"])).toThrow(/--every must be at least 1 second/);
    expect(() => readOptions(["--series", "1.5"])).toThrow(/--series must be a non-negative integer/);
  });
});
