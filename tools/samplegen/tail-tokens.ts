/**
 * The long tail: many minor tokens whose liquidity, volume and swap counts
 * follow a power law (most fall below the token list's default thresholds),
 * minor tokens shared by several chains (cross-chain groups), and tail tokens
 * pinned exactly at / just above each threshold.
 */
import type { ChainId } from "../../src/chains/chains.js";
import type { SnapshotToken } from "../../src/api/snapshot-format.js";
import type { ChainContext } from "./chain-context.js";
import { clamp, significant, usd } from "./numbers.js";
import { isAscii, unreservedIdentity, type TokenIdentity } from "./names.js";
import { Rng } from "./random.js";
import type { ScaleProfile } from "./scale.js";
import { indexerNormalization, type TokenBook } from "./token-book.js";
import { assembleToken, minorLogoUrl, type TokenEntry, type TokenRole } from "./token-record.js";

/** The token list's default thresholds (api-decisions.md §3, strict `>`). */
export const DEFAULT_MIN_TVL_USD = 10_000;
export const DEFAULT_MIN_SWAPS = 1_000;
export const DEFAULT_MIN_VOLUME_USD = 100_000;

const DECIMALS: ReadonlyArray<readonly [number, number]> = [
  [18, 820],
  [6, 60],
  [9, 40],
  [8, 30],
  [0, 10],
  [12, 10],
  [2, 5],
  [4, 5],
  [24, 5],
  [36, 3],
  [255, 2],
];

function randomDecimals(rng: Rng): number {
  return rng.weighted(DECIMALS, ([, weight]) => weight)[0];
}

/** A price between about 1e-9 and 1e5, most mass between 1e-5 and 1. */
function randomPrice(rng: Rng): number {
  return significant(clamp(Math.pow(10, rng.normal() * 1.8 - 2.5), 1e-10, 1e5), 6);
}

interface TailStats {
  trackedTvl: number;
  swaps: number;
  trackedVolume: number;
}

/** Power-law stats; `tvlFloor` is the Pareto scale (larger for the shared tokens). */
function powerLawStats(rng: Rng, tvlFloor: number, alpha: number): TailStats {
  if (rng.chance(0.06)) {
    return { trackedTvl: 0, swaps: rng.int(0, 40), trackedVolume: usd(rng.float(0, 500)) };
  }
  const trackedTvl = usd(Math.min(rng.pareto(tvlFloor, alpha), 30_000_000));
  return {
    trackedTvl,
    swaps: Math.floor(Math.pow(trackedTvl, 0.75) * rng.logNormal(0.8, 0.9)),
    trackedVolume: usd(trackedTvl * rng.logNormal(12, 1.3)),
  };
}

interface MinorDraft {
  identity: TokenIdentity;
  decimals: number;
  usdPrice: number;
  trackedUsdPrice: number;
  stats: TailStats;
}

function minorRecord(ctx: ChainContext, rng: Rng, address: string, draft: MinorDraft): SnapshotToken {
  const { identity, stats } = draft;
  const untrusted = draft.trackedUsdPrice === 0;
  const untrackedTvl = untrusted ? stats.trackedTvl * rng.logNormal(4, 1) : stats.trackedTvl * (1 + Math.abs(rng.normal()) * 0.1);
  return assembleToken({
    address,
    symbol: identity.symbol,
    name: identity.name,
    ...indexerNormalization(ctx.profile, identity.symbol, identity.name),
    decimals: draft.decimals,
    logoUrl: rng.chance(0.85) ? minorLogoUrl(ctx.chainId, address) : undefined,
    usdPrice: draft.usdPrice,
    trackedUsdPrice: draft.trackedUsdPrice,
    totalValuePooledUsd: rng.chance(0.9) ? usd(untrackedTvl) : undefined,
    trackedTotalValuePooledUsd: stats.trackedTvl,
    swapsCount: stats.swaps,
    swapVolumeUsd: rng.chance(0.9) ? usd(stats.trackedVolume * (1 + Math.abs(rng.normal()) * 0.05)) : undefined,
    trackedSwapVolumeUsd: stats.trackedVolume,
  });
}

function addMinor(ctx: ChainContext, book: TokenBook, rng: Rng, draft: MinorDraft, role: TokenRole): TokenEntry {
  const address = ctx.tokenAddresses.fresh(rng);
  return book.add(minorRecord(ctx, rng, address, draft), role);
}

// ------------------------------------------------------------------ shared

/** A minor token deployed on several chains (same symbol, usually same name and price). */
export interface SharedMinor {
  readonly id: number;
  readonly identity: TokenIdentity;
  readonly decimals: number;
  readonly priceUsd: number;
  /** Probability of being deployed on a given chain. */
  readonly presence: number;
}

/** The cross-chain catalog, derived from the seed alone (the same for every chain). */
export function buildSharedCatalog(seed: number, scale: ScaleProfile, reserved: ReadonlySet<string>): SharedMinor[] {
  const rng = Rng.fromLabel("liquidity-gateway-sample", seed, scale.name, "shared-catalog");
  const used = new Set<string>(reserved);
  const catalog: SharedMinor[] = [];
  while (catalog.length < scale.sharedMinorTokens) {
    const identity = unreservedIdentity(rng, used);
    if (identity.symbol === "" || identity.name === "" || !isAscii(identity.symbol) || !isAscii(identity.name)) continue;
    used.add(identity.symbol);
    catalog.push({
      id: catalog.length,
      identity,
      decimals: randomDecimals(rng),
      priceUsd: randomPrice(rng),
      presence: rng.float(0.2, 0.6),
    });
  }
  return catalog;
}

const BUSY_CHAINS: ReadonlySet<ChainId> = new Set<ChainId>([1, 8453]);

/** One chain's instance of a shared token: mostly consistent, sometimes a parity failure. */
function sharedDraft(rng: Rng, shared: SharedMinor, reserved: ReadonlySet<string>): MinorDraft {
  let identity = shared.identity;
  let usdPrice = significant(shared.priceUsd * (1 + clamp(rng.normal() * 0.03, -0.08, 0.08)), 6);
  let trackedUsdPrice = usdPrice;
  const variant = rng.next();
  if (variant < 0.08) {
    usdPrice = significant(shared.priceUsd * rng.pick([0.2, 0.4, 2.5, 5]), 6); // fails price parity
    trackedUsdPrice = usdPrice;
  } else if (variant < 0.14) {
    trackedUsdPrice = 0; // untrusted price
  } else if (variant < 0.19) {
    identity = { symbol: identity.symbol, name: `${identity.name} (Bridged)` }; // passes name parity
  } else if (variant < 0.24) {
    identity = { symbol: identity.symbol, name: unreservedIdentity(rng, reserved).name }; // usually fails name parity
  }
  return { identity, decimals: shared.decimals, usdPrice, trackedUsdPrice, stats: powerLawStats(rng, 1_500, 0.9) };
}

export function addSharedMinors(ctx: ChainContext, book: TokenBook, catalog: readonly SharedMinor[], reserved: ReadonlySet<string>): void {
  const boost = BUSY_CHAINS.has(ctx.chainId) ? 1.4 : 1;
  for (const shared of catalog) {
    const rng = ctx.rng.fork("shared", shared.id);
    if (!rng.chance(Math.min(0.95, shared.presence * boost))) continue;
    addMinor(ctx, book, rng, sharedDraft(rng, shared, reserved), "shared");
  }
}

// -------------------------------------------------------------------- tail

function tailDraft(rng: Rng, reserved: ReadonlySet<string>): MinorDraft {
  const identity = unreservedIdentity(rng, reserved);
  const usdPrice = randomPrice(rng);
  return {
    identity,
    decimals: randomDecimals(rng),
    usdPrice,
    trackedUsdPrice: rng.chance(0.07) ? 0 : usdPrice,
    stats: powerLawStats(rng, 100, 0.8),
  };
}

export function addTail(ctx: ChainContext, book: TokenBook, count: number, reserved: ReadonlySet<string>): TokenEntry[] {
  const rng = ctx.rng.fork("tail");
  const added: TokenEntry[] = [];
  for (let i = 0; i < count; i++) added.push(addMinor(ctx, book, rng, tailDraft(rng, reserved), "tail"));
  return added;
}

// ------------------------------------------------------------------- edges

type EdgeCase = "tvl" | "swaps" | "volume";

/**
 * Pins tail tokens exactly at each default threshold (not eligible: the rule
 * is strict) and just above it (eligible), the other two metrics comfortably
 * above theirs.
 */
export function pinThresholdEdges(ctx: ChainContext, tail: readonly TokenEntry[]): void {
  const rng = ctx.rng.fork("edges");
  const picks = rng.shuffle(tail.map((entry) => entry.index)).slice(0, 6 * ctx.scale.edgeTokensPerCase);
  const byIndex = new Map(tail.map((entry) => [entry.index, entry] as const));
  const cases: EdgeCase[] = ["tvl", "swaps", "volume"];
  let next = 0;
  for (const edge of cases) {
    for (const above of [false, true]) {
      for (let i = 0; i < ctx.scale.edgeTokensPerCase; i++) {
        const entry = byIndex.get(picks[next++] as number);
        if (entry) pinEdge(rng, entry.record, edge, above);
      }
    }
  }
}

function pinEdge(rng: Rng, token: SnapshotToken, edge: EdgeCase, above: boolean): void {
  if (token.trackedUsdPrice === 0) token.trackedUsdPrice = token.usdPrice;
  token.trackedTotalValuePooledUsd = edge === "tvl" ? (above ? 10_000.01 : DEFAULT_MIN_TVL_USD) : usd(rng.float(15_000, 400_000));
  token.swapsCount = edge === "swaps" ? (above ? 1_001 : DEFAULT_MIN_SWAPS) : rng.int(1_500, 30_000);
  token.trackedSwapVolumeUsd = edge === "volume" ? (above ? 100_000.01 : DEFAULT_MIN_VOLUME_USD) : usd(rng.float(150_000, 5_000_000));
  if (token.totalValuePooledUsd !== undefined) token.totalValuePooledUsd = usd(token.trackedTotalValuePooledUsd * rng.float(1, 1.05));
  if (token.swapVolumeUsd !== undefined) token.swapVolumeUsd = usd(token.trackedSwapVolumeUsd * rng.float(1, 1.02));
}
