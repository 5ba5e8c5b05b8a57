/**
 * A series of successive snapshot files of one chain, as an indexer pushes them every `everySeconds`: each file
 * is the one before with a share `churn` of its pools and of its tokens changed, and nothing else. Deterministic
 * by seed (a stream per chain and step), so the same options give the same files.
 *
 * What changes, per file:
 * - tokens: prices walk (a geometric random walk: stablecoins barely, majors a little, the long tail a lot, the
 *   step scaled by the square root of the interval), pooled value walks with them, swap counts and cumulative
 *   volumes grow;
 * - pools: their amounts walk (liquidity added and taken), their USD amounts and TVL follow the tokens' current
 *   prices, their statistics move with the TVL (yields recomputed), concentrated pools' price state follows
 *   the tokens' prices;
 * - a twentieth of the changed pools are removed (long-tail pools, and a token no pool holds any more with them),
 *   and as many new pools appear, of new long-tail tokens against a quote token.
 * So a share `churn` of the previous file's pools and tokens are changed or gone (1: every one), and new ones
 * appear besides.
 * Records keep the file's order (by address) and every file validates: tokens a pool holds are never removed.
 * History (price and TVL series) can be read off the files in order.
 */
import type { PeriodStats, SnapshotFile, SnapshotPool, SnapshotPoolToken, SnapshotToken } from "../../src/api/snapshot-format.js";
import type { ChainId } from "../../src/chains/chains.js";
import { NATIVE_ADDRESS } from "../../src/chains/chains.js";
import { randomAddress } from "./addresses.js";
import { CHAIN_PROFILES } from "./chain-profiles.js";
import { clamp, DAY, significant, usd } from "./numbers.js";
import { priceState } from "./pool-pricing.js";
import { Rng } from "./random.js";
import { blockNumberAt } from "./snapshot-time.js";

export interface SeriesOptions {
  /** Seconds between two files (generatedAt steps). */
  readonly everySeconds: number;
  /** Share of pools and of tokens that change from one file to the next, 0-1. */
  readonly churn: number;
}

/** Share of a file's changes that are pools (and tokens) appearing or disappearing. */
const APPEAR_SHARE = 0.1;
/** Daily volatility of a price (log scale). */
const DAILY_VOLATILITY = { stable: 0.001, major: 0.035, tail: 0.12 };
/** Tokens at or above this pooled value count as majors (their prices move less). */
const MAJOR_POOLED_USD = 5_000_000;

type Record_ = SnapshotToken | SnapshotPool;

export class ChainSeries {
  private file: SnapshotFile;
  private step = 0;
  /** Pools holding each token address (tokens held by none may disappear). */
  private readonly holders = new Map<string, number>();
  /** Quote tokens for new pools: the chain's largest by pooled value. */
  private readonly quotes: readonly string[];
  private readonly protected_: ReadonlySet<string>;

  constructor(
    base: SnapshotFile,
    private readonly seed: number,
    private readonly options: SeriesOptions,
  ) {
    if (!(options.churn >= 0 && options.churn <= 1)) throw new RangeError(`churn must be within 0-1, got ${options.churn}`);
    if (!(options.everySeconds > 0)) throw new RangeError(`every must be a positive number of seconds, got ${options.everySeconds}`);
    this.file = base;
    for (const pool of base.pools) for (const t of pool.tokens) this.holders.set(t.address, (this.holders.get(t.address) ?? 0) + 1);
    const byPooled = base.tokens.slice().sort((a, b) => b.trackedTotalValuePooledUsd - a.trackedTotalValuePooledUsd);
    this.quotes = byPooled.slice(0, 5).map((t) => t.address);
    this.protected_ = new Set([NATIVE_ADDRESS, ...this.quotes]);
  }

  /** The next file of the series (`churn`: this step's share of changes instead of the series'). */
  next(churn: number = this.options.churn): SnapshotFile {
    if (!(churn >= 0 && churn <= 1)) throw new RangeError(`churn must be within 0-1, got ${churn}`);
    this.step++;
    const rng = Rng.fromLabel("snapshot-series", this.seed, this.file.chainId, this.step);
    const { everySeconds } = this.options;
    const chainId = this.file.chainId as ChainId;
    const generatedAt = this.file.generatedAt + everySeconds;
    const tokenChanges = Math.round(churn * this.file.tokens.length);
    const poolChanges = Math.round(churn * this.file.pools.length);
    const appearing = Math.round(poolChanges * APPEAR_SHARE * 0.5);

    // Entities that disappear and appear first (so the value changes below land on records still there).
    const removed = this.removePools(rng.fork("remove"), this.file.pools, this.file.tokens, appearing);
    const { pools, tokens } = this.addPools(rng.fork("add"), removed.pools, removed.tokens, appearing + removed.extra, generatedAt);

    const tokenIndex = new Map(tokens.map((t, i) => [t.address, i] as const));
    const scale = Math.sqrt(everySeconds / DAY);
    // The share F of the previous file's records: those removed, and as many more of the others walked (new ones aside).
    const before = (list: readonly { address: string }[], previous: readonly { address: string }[]) => {
      const had = new Set(previous.map((r) => r.address));
      return list.flatMap((r, i) => (had.has(r.address) ? [i] : []));
    };
    const moved = rng.fork("tokens");
    const oldTokens = before(tokens, this.file.tokens);
    for (const k of pick(moved, oldTokens.length, tokenChanges - removed.removedTokens)) {
      const i = oldTokens[k]!;
      tokens[i] = walkToken(moved, tokens[i]!, scale);
    }
    const walked = rng.fork("pools");
    const oldPools = before(pools, this.file.pools);
    for (const k of pick(walked, oldPools.length, poolChanges - (this.file.pools.length - oldPools.length))) {
      const i = oldPools[k]!;
      pools[i] = walkPool(walked, pools[i]!, (address) => tokens[tokenIndex.get(address)!]!, scale);
    }
    this.file = {
      ...this.file,
      generatedAt,
      ...(this.file.blockNumber === undefined ? {} : { blockNumber: blockNumberAt(CHAIN_PROFILES[chainId], generatedAt) }),
      tokens,
      pools,
    };
    return this.file;
  }

  /** Without `count` long-tail pools (none holding only protected tokens), and the tokens no pool holds then. */
  private removePools(
    rng: Rng,
    pools: readonly SnapshotPool[],
    tokens: readonly SnapshotToken[],
    count: number,
  ): { pools: SnapshotPool[]; tokens: SnapshotToken[]; removedTokens: number; extra: number } {
    const gone = new Set<number>();
    for (let tries = 0; gone.size < count && tries < count * 20 && pools.length > 2 * count; tries++) {
      const i = rng.int(0, pools.length - 1);
      if (pools[i]!.tokens.every((t) => this.protected_.has(t.address))) continue;
      gone.add(i);
    }
    const orphans = new Set<string>();
    for (const i of gone) {
      for (const t of pools[i]!.tokens) {
        const left = this.holders.get(t.address)! - 1;
        this.holders.set(t.address, left);
        if (left === 0 && !this.protected_.has(t.address)) orphans.add(t.address);
      }
    }
    for (const address of orphans) this.holders.delete(address);
    return {
      pools: pools.filter((_, i) => !gone.has(i)),
      tokens: tokens.filter((t) => !orphans.has(t.address)),
      removedTokens: orphans.size,
      extra: count - gone.size,
    };
  }

  /** With `count` more pools, each of a new long-tail token against a quote token, shaped like an existing pool. */
  private addPools(
    rng: Rng,
    pools: readonly SnapshotPool[],
    tokens: readonly SnapshotToken[],
    count: number,
    generatedAt: number,
  ): { pools: SnapshotPool[]; tokens: SnapshotToken[] } {
    const used = new Set([...tokens.map((t) => t.address), ...pools.map((p) => p.address)]);
    const fresh = (make: (r: Rng) => string) => {
      for (;;) {
        const address = make(rng);
        if (!used.has(address)) return (used.add(address), address);
      }
    };
    const byAddress = new Map(tokens.map((t) => [t.address, t] as const));
    const newTokens: SnapshotToken[] = [];
    const newPools: SnapshotPool[] = [];
    for (let n = 0; n < count && pools.length > 0; n++) {
      const template = pools[rng.int(0, pools.length - 1)]!;
      const quote = byAddress.get(rng.pick(this.quotes))!;
      const symbol = `N${rng.hex(4).toUpperCase()}`;
      const price = significant(rng.logNormal(0.05, 2), 8);
      const pooled = usd(rng.logNormal(20_000, 1.5));
      const token: SnapshotToken = {
        address: fresh(randomAddress),
        symbol,
        name: `New ${symbol}`,
        decimals: 18,
        usdPrice: price,
        trackedUsdPrice: rng.chance(0.5) ? price : 0,
        trackedTotalValuePooledUsd: pooled,
        swapsCount: rng.int(1, 50),
        trackedSwapVolumeUsd: usd(pooled * rng.float(0, 2)),
      };
      newTokens.push(token);
      byAddress.set(token.address, token);
      const [t0, t1] = token.address < quote.address ? [token, quote] : [quote, token];
      const side = (t: SnapshotToken): SnapshotPoolToken => ({
        address: t.address,
        amount: significant(pooled / 2 / t.usdPrice, 12),
        amountUsd: usd(pooled / 2),
      });
      const address = fresh(template.address.length === 66 ? (r) => "0x" + r.hex(64) : randomAddress);
      const pool = {
        ...template,
        address,
        createdAtTimestamp: generatedAt - rng.int(60, 3_600),
        totalValueLockedUsd: usd(pooled),
        trackedTotalValueLockedUsd: usd(pooled / 2),
        tokens: [side(t0), side(t1)],
        metadata: template.type === "V2" ? template.metadata : { ...template.metadata, ...priceFields(rng, t0, t1) },
      } as SnapshotPool;
      if (!("trackedTotalValueLockedUsd" in template)) delete (pool as { trackedTotalValueLockedUsd?: number }).trackedTotalValueLockedUsd;
      newPools.push(pool);
      for (const t of pool.tokens) this.holders.set(t.address, (this.holders.get(t.address) ?? 0) + 1);
    }
    return { pools: mergeSorted(pools, newPools), tokens: mergeSorted(tokens, newTokens) };
  }
}

/** `count` distinct indices below `n`, in ascending order. */
function pick(rng: Rng, n: number, count: number): number[] {
  const k = clamp(Math.round(count), 0, n);
  if (k === 0) return [];
  const chosen = new Set<number>();
  if (k * 2 > n) {
    const all = Array.from({ length: n }, (_, i) => i);
    rng.shuffle(all);
    for (let i = 0; i < k; i++) chosen.add(all[i]!);
  } else while (chosen.size < k) chosen.add(rng.int(0, n - 1));
  return [...chosen].sort((a, b) => a - b);
}

function volatility(token: SnapshotToken): number {
  const stable = Math.abs(token.usdPrice - 1) < 0.03 && /USD|DAI|EUR/i.test(token.symbol);
  if (stable) return DAILY_VOLATILITY.stable;
  return token.trackedTotalValuePooledUsd >= MAJOR_POOLED_USD ? DAILY_VOLATILITY.major : DAILY_VOLATILITY.tail;
}

/** A token one step later: price and pooled value walk, swaps and cumulative volume grow. */
function walkToken(rng: Rng, token: SnapshotToken, scale: number): SnapshotToken {
  const move = Math.exp(volatility(token) * scale * rng.normal());
  const flow = Math.exp(0.02 * scale * rng.normal());
  const price = significant(token.usdPrice * move, 10);
  const next: SnapshotToken = {
    ...token,
    usdPrice: price,
    trackedUsdPrice: token.trackedUsdPrice > 0 ? significant(token.trackedUsdPrice * move, 10) : 0,
    trackedTotalValuePooledUsd: usd(token.trackedTotalValuePooledUsd * move * flow),
    swapsCount: token.swapsCount + 1 + Math.floor(rng.logNormal(3, 1.5)),
    trackedSwapVolumeUsd: usd(token.trackedSwapVolumeUsd + token.trackedTotalValuePooledUsd * 0.01 * rng.logNormal(1, 1)),
  };
  if (token.totalValuePooledUsd !== undefined) next.totalValuePooledUsd = usd(token.totalValuePooledUsd * move * flow);
  if (token.swapVolumeUsd !== undefined)
    next.swapVolumeUsd = usd(token.swapVolumeUsd + (token.totalValuePooledUsd ?? 0) * 0.01 * rng.logNormal(1, 1));
  return next;
}

/** A pool one step later: amounts walk, USD values follow its tokens' current prices, statistics and price state follow. */
function walkPool(rng: Rng, pool: SnapshotPool, tokenAt: (address: string) => SnapshotToken, scale: number): SnapshotPool {
  const liquidity = Math.exp(0.05 * scale * rng.normal());
  const tokens = pool.tokens.map((t) => {
    const price = tokenAt(t.address).usdPrice;
    const amount = significant(t.amount * liquidity * Math.exp(0.01 * scale * rng.normal()), 12);
    return { ...t, amount, amountUsd: usd(amount * price) };
  });
  const tvl = usd(tokens.reduce((sum, t) => sum + t.amountUsd, 0));
  const ratio = pool.totalValueLockedUsd > 0 ? tvl / pool.totalValueLockedUsd : 1;
  const activity = Math.exp(0.1 * scale * rng.normal());
  const period = (p: PeriodStats, days: number): PeriodStats => {
    const feesUsd = usd(p.feesUsd * activity);
    return {
      feesUsd,
      swapVolumeUsd: usd(p.swapVolumeUsd * activity),
      yield: tvl > 0 ? significant((feesUsd / tvl) * (365 / days) * 100, 6) : 0,
      netInflowUsd: usd(p.netInflowUsd + (tvl - pool.totalValueLockedUsd) / days),
      liquidityVolumeUsd: usd(p.liquidityVolumeUsd * activity),
    };
  };
  const s = pool.stats;
  const stats = {
    stats24h: period(s.stats24h, 1),
    stats7d: period(s.stats7d, 7),
    stats30d: period(s.stats30d, 30),
    stats90d: period(s.stats90d, 90),
  };
  // A pool picked always changes, an idle one too: some liquidity moved over the longest window.
  stats.stats90d.liquidityVolumeUsd = usd(stats.stats90d.liquidityVolumeUsd + 0.01 + tvl * 0.001 * rng.next());
  const next = { ...pool, tokens, totalValueLockedUsd: tvl, stats } as SnapshotPool;
  if (pool.trackedTotalValueLockedUsd !== undefined) next.trackedTotalValueLockedUsd = usd(pool.trackedTotalValueLockedUsd * ratio);
  if (pool.type !== "V2" && tokens.length === 2) {
    next.metadata = {
      ...pool.metadata,
      ...priceFields(rng, tokenAt(tokens[0]!.address), tokenAt(tokens[1]!.address)),
    } as typeof pool.metadata;
  }
  return next;
}

function priceFields(rng: Rng, t0: SnapshotToken, t1: SnapshotToken): { latestSqrtPriceX96: string; latestTick: string } {
  const state = priceState(rng, t0, t1);
  return { latestSqrtPriceX96: state.sqrtPriceX96, latestTick: state.tick };
}

/** `list` (sorted by address) with `more` merged in, in address order. */
function mergeSorted<T extends Record_>(list: readonly T[], more: T[]): T[] {
  more.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const out: T[] = [];
  let j = 0;
  for (const record of list) {
    while (j < more.length && more[j]!.address < record.address) out.push(more[j++]!);
    out.push(record);
  }
  while (j < more.length) out.push(more[j++]!);
  return out;
}
