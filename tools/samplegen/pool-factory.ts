/**
 * Turns pool plans into SnapshotPool records: token amounts (decimal-adjusted,
 * amountUsd / price), TVL as the sum of the sides, fee terms, metadata,
 * creation time and statistics.
 */
import type { SnapshotPool, SnapshotPoolToken, SnapshotToken } from "../../src/api/snapshot-format.js";
import { randomAddress, randomPoolId } from "./addresses.js";
import type { ChainContext } from "./chain-context.js";
import { clamp, significant, usd } from "./numbers.js";
import { poolTerms } from "./pool-metadata.js";
import type { PoolPlan } from "./pool-planner.js";
import { poolStats } from "./pool-stats.js";
import type { Rng } from "./random.js";
import type { TokenEntry } from "./token-record.js";

export type ProgressListener = (built: number, total: number) => void;

function pooledUsd(token: SnapshotToken): number {
  return token.totalValuePooledUsd ?? token.trackedTotalValuePooledUsd;
}

function side(token: SnapshotToken, amountUsd: number): SnapshotPoolToken {
  if (!(token.usdPrice > 0) || !(amountUsd > 0)) return { address: token.address, amount: 0, amountUsd: 0 };
  const value = usd(amountUsd);
  return { address: token.address, amount: significant(value / token.usdPrice, 12), amountUsd: value };
}

/** Share of V4 long-tail pools quoted in the native asset even when planned against another quote. */
const V4_NATIVE_QUOTE_SHARE = 0.3;

/**
 * V4 pools usually trade the native asset itself rather than its wrapped
 * token, and long-tail V4 pools are often quoted in it directly.
 */
function withNative(rng: Rng, plan: PoolPlan, native: TokenEntry): [TokenEntry, TokenEntry] {
  const { deployment, a, b } = plan;
  if (deployment.type !== "V4") return [a, b];
  if (a.role === "wrapped-native" || b.role === "wrapped-native") {
    if (!rng.chance(deployment.nativeShare)) return [a, b];
    return a.role === "wrapped-native" ? [native, b] : [a, native];
  }
  if (plan.subject !== null && b.quoteWeight > 0 && rng.chance(V4_NATIVE_QUOTE_SHARE)) return [a, native];
  return [a, b];
}

/** USD value on each side of the plan's pair. */
function sideValues(rng: Rng, plan: PoolPlan, x: TokenEntry, y: TokenEntry, subjectWeights: Float64Array): [number, number] {
  const concentrated = plan.deployment.type !== "V2";
  if (plan.subject !== null) {
    const total = subjectWeights[plan.subject.index] as number;
    const subjectUsd = total > 0 ? (pooledUsd(plan.subject.record) * plan.weight) / total : 0;
    const otherUsd = concentrated ? subjectUsd * clamp(rng.logNormal(1, 0.6), 0.05, 20) : subjectUsd;
    return x === plan.subject ? [subjectUsd, otherUsd] : [otherUsd, subjectUsd];
  }
  const poolUsd = Math.min(pooledUsd(x.record), pooledUsd(y.record)) * Math.min(0.5, rng.logNormal(0.03, 1.2));
  const share = concentrated ? rng.float(0.15, 0.85) : 0.5;
  return [poolUsd * share, poolUsd * (1 - share)];
}

function createdAt(rng: Rng, ctx: ChainContext, plan: PoolPlan): number {
  const start = Math.max(plan.deployment.launchedAt, ctx.profile.launchedAt);
  const end = ctx.generatedAt - 3_600;
  // Long-tail pools skew recent; major pairs skew towards the protocol's launch.
  const skew = plan.subject === null ? 1.5 : 0.6;
  return start + Math.floor((end - start) * Math.pow(rng.next(), skew));
}

function buildPool(rng: Rng, ctx: ChainContext, plan: PoolPlan, native: TokenEntry, subjectWeights: Float64Array): SnapshotPool {
  const [x, y] = withNative(rng, plan, native);
  const [xUsd, yUsd] = sideValues(rng, plan, x, y, subjectWeights);
  const xFirst = x.record.address < y.record.address;
  const [t0, t1] = xFirst ? [x, y] : [y, x];
  const tokens = xFirst ? [side(x.record, xUsd), side(y.record, yUsd)] : [side(y.record, yUsd), side(x.record, xUsd)];
  const terms = poolTerms(rng, plan.deployment, t0.stable && t1.stable, t0.record, t1.record);
  const tvl = usd((tokens[0] as SnapshotPoolToken).amountUsd + (tokens[1] as SnapshotPoolToken).amountUsd);
  const trackedTvl = usd(tokens.reduce((sum, t, i) => sum + ((i === 0 ? t0 : t1).record.trackedUsdPrice > 0 ? t.amountUsd : 0), 0));
  const pool = {
    address: ctx.poolAddresses.fresh(rng, terms.shape.type === "V4" ? randomPoolId : randomAddress),
    type: terms.shape.type,
    protocolId: plan.deployment.protocolId,
    createdAtTimestamp: createdAt(rng, ctx, plan),
    feeTierPercentage: terms.feeTierPercentage,
    isDynamicFee: terms.isDynamicFee,
    totalValueLockedUsd: tvl,
    ...(rng.chance(0.85) ? { trackedTotalValueLockedUsd: trackedTvl } : {}),
    tokens,
    stats: poolStats(rng, tvl, terms.feeTierPercentage),
    metadata: terms.shape.metadata,
  };
  return pool as SnapshotPool;
}

export function buildPools(
  ctx: ChainContext,
  tokens: readonly TokenEntry[],
  plans: readonly PoolPlan[],
  onProgress?: ProgressListener,
): SnapshotPool[] {
  const rng = ctx.rng.fork("pools");
  const native = tokens.find((t) => t.role === "native");
  if (!native) throw new Error(`chain ${ctx.chainId} has no native token`);
  const subjectWeights = new Float64Array(tokens.length);
  for (const plan of plans) if (plan.subject) subjectWeights[plan.subject.index] += plan.weight;

  const pools: SnapshotPool[] = [];
  for (const plan of plans) {
    pools.push(buildPool(rng, ctx, plan, native, subjectWeights));
    if (onProgress && pools.length % ctx.scale.progressEvery === 0) onProgress(pools.length, plans.length);
  }
  return pools;
}
