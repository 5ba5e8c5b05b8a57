/**
 * A small deterministic series of one chain's files for the history tests: prices, pooled values and pool
 * statistics walk, a share of the records changes per file, pools and loose tokens appear, leave and come
 * back, and the time between two files varies from the same second to days (so files share seconds,
 * minutes and hours, and hours and days pass without a file). Built on the fixture builders; the big
 * generated series for the benchmark is `npm run snapshots:generate -- --series`.
 */
import type { ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile, SnapshotPool, SnapshotToken } from "../../src/api/snapshot-format.js";
import { addr, chainFile, poolStats, poolToken, protocol, token, v2Pool, v3Pool } from "./fixtures.js";
import { prng, type Prng } from "./prng.js";

export interface SeriesOptions {
  readonly chainId: ChainId;
  /** Tokens held by pools (always present), and loose tokens (they come and go). */
  readonly tokens: number;
  readonly looseTokens: number;
  readonly pools: number;
  readonly files: number;
  /** Share of the records that change from one file to the next. */
  readonly churn: number;
  /** generatedAt of the first file. */
  readonly start: number;
  /** Seconds from one file to the next (default: from the same second to days, see below). */
  readonly step?: (rng: Prng) => number;
}

interface TokenState {
  address: string;
  price: number;
  tvl: number;
  present: boolean;
}

interface PoolState {
  address: string;
  a: number;
  b: number;
  tvl: number;
  volume: number;
  fees: number;
  yield: number;
  present: boolean;
  v3: boolean;
}

/** The default step: mostly minutes, sometimes the same second, hours or days. */
export function variedStep(rng: Prng): number {
  const r = rng.next();
  if (r < 0.1) return 0;
  if (r < 0.45) return rng.int(1, 120);
  if (r < 0.8) return rng.int(60, 1200);
  if (r < 0.95) return rng.int(3000, 30_000);
  return rng.int(80_000, 250_000);
}

/** A number as indexers write them: to `digits` significant digits (now and then every digit a double has). */
function rounded(rng: Prng, x: number, digits: number): number {
  if (rng.chance(0.03)) return x;
  return Number(x.toPrecision(digits));
}

export function historySeries(seed: number, options: SeriesOptions): SnapshotFile[] {
  const rng = prng(seed);
  const chainId = options.chainId;
  const tokens: TokenState[] = [];
  for (let i = 0; i < options.tokens + options.looseTokens; i++) {
    tokens.push({
      address: addr((0x1000 + i).toString(16)),
      price: rounded(rng, 10 ** rng.int(-3, 4) * (1 + rng.next()), 10),
      tvl: Math.round(rng.next() * 1e8) / 100,
      present: i < options.tokens || rng.chance(0.5),
    });
  }
  const pools: PoolState[] = [];
  for (let i = 0; i < options.pools; i++) pools.push(newPool(rng, i, options.tokens));
  const files: SnapshotFile[] = [];
  let t = options.start;
  for (let f = 0; f < options.files; f++) {
    if (f > 0) {
      t += (options.step ?? variedStep)(rng);
      walk(rng, tokens, pools, options);
    }
    files.push(fileOf(chainId, t, tokens, pools));
  }
  return files;
}

function newPool(rng: Prng, i: number, heldTokens: number): PoolState {
  const a = rng.int(0, heldTokens - 1);
  let b = rng.int(0, heldTokens - 1);
  if (b === a) b = (a + 1) % heldTokens;
  return {
    address: addr((0x900000 + i).toString(16)),
    a,
    b,
    tvl: Math.round(rng.next() * 1e9) / 100,
    volume: Math.round(rng.next() * 1e8) / 100,
    fees: Math.round(rng.next() * 1e6) / 100,
    yield: Number((rng.next() * 40).toPrecision(6)),
    present: true,
    v3: rng.chance(0.5),
  };
}

function walk(rng: Prng, tokens: TokenState[], pools: PoolState[], options: SeriesOptions): void {
  for (const tk of tokens) {
    if (!rng.chance(options.churn)) continue;
    if (tokens.indexOf(tk) >= options.tokens && rng.chance(0.2)) {
      tk.present = !tk.present; // a loose token leaves or comes back
      continue;
    }
    tk.price = rng.chance(0.05) ? tk.price : rounded(rng, tk.price * Math.exp(0.05 * (rng.next() - 0.5)), 10);
    tk.tvl = Math.round(tk.tvl * Math.exp(0.1 * (rng.next() - 0.5)) * 100) / 100;
  }
  for (const p of pools) {
    if (!rng.chance(options.churn)) continue;
    if (rng.chance(0.1)) {
      p.present = !p.present; // a pool leaves or comes back
      continue;
    }
    p.tvl = Math.round(p.tvl * Math.exp(0.1 * (rng.next() - 0.5)) * 100) / 100;
    p.volume = Math.round(p.volume * Math.exp(0.2 * (rng.next() - 0.5)) * 100) / 100;
    p.fees = rng.chance(0.3) ? p.fees : Math.round(p.volume * 0.003 * 100) / 100;
    p.yield = p.tvl > 0 ? Number(((p.fees / p.tvl) * 36500).toPrecision(6)) : 0;
  }
  if (rng.chance(0.2)) pools.push(newPool(rng, pools.length, options.tokens));
}

function fileOf(chainId: ChainId, t: number, tokens: TokenState[], pools: PoolState[]): SnapshotFile {
  const records: SnapshotToken[] = tokens
    .filter((tk) => tk.present)
    .map((tk) =>
      token(chainId, {
        address: tk.address,
        symbol: `T${tk.address.slice(-4)}`,
        trackedUsdPrice: tk.price,
        trackedTotalValuePooledUsd: tk.tvl,
      }),
    );
  const poolRecords: SnapshotPool[] = pools
    .filter((p) => p.present)
    .map((p) => {
      const stats = poolStats(1);
      stats.stats24h = { ...stats.stats24h, feesUsd: p.fees, swapVolumeUsd: p.volume, yield: p.yield };
      const input = {
        address: p.address,
        protocolId: "uniswap-v3",
        tokens: [poolToken(tokens[p.a].address, 1, p.tvl / 2), poolToken(tokens[p.b].address, 1, p.tvl / 2)],
        totalValueLockedUsd: p.tvl,
        stats,
      };
      return p.v3 ? v3Pool(input) : v2Pool(input);
    });
  return chainFile(chainId, { tokens: records, pools: poolRecords, protocols: [protocol("uniswap-v3")], generatedAt: t });
}
