/**
 * Fee tier and type-specific metadata of a pool (api-decisions.md §4):
 * V2 {positionManagerAddress}; V3/SLIPSTREAM the concentrated four; V4 adds
 * the pool manager, Permit2, StateView (or null) and hook (or null); ALGEBRA
 * adds community fee, deployer, plugin (or null) and version.
 */
import type { AlgebraMetadata, ConcentratedMetadata, SnapshotToken, V2Metadata, V4Metadata } from "../../src/api/snapshot-format.js";
import { randomAddress } from "./addresses.js";
import { clamp, significant } from "./numbers.js";
import { priceState } from "./pool-pricing.js";
import {
  PERMIT2,
  isStableTier,
  type AlgebraDeployment,
  type ConcentratedDeployment,
  type FeeTier,
  type ProtocolDeployment,
  type V4Deployment,
} from "./protocol-catalog.js";
import type { Rng } from "./random.js";

export type TypedMetadata =
  | { type: "V2"; metadata: V2Metadata }
  | { type: "V3"; metadata: ConcentratedMetadata }
  | { type: "SLIPSTREAM"; metadata: ConcentratedMetadata }
  | { type: "V4"; metadata: V4Metadata }
  | { type: "ALGEBRA"; metadata: AlgebraMetadata };

export interface PoolTerms {
  readonly feeTierPercentage: number;
  readonly isDynamicFee: boolean;
  readonly shape: TypedMetadata;
}

const ALGEBRA_STATIC_FEE: Readonly<Record<number, number>> = { 1: 0.01, 10: 0.05, 60: 0.3, 200: 1 };
const V4_DYNAMIC_SPACINGS = [1, 10, 60, 60, 200];

function pickTier(rng: Rng, tiers: readonly FeeTier[], stablePair: boolean): FeeTier {
  return rng.weighted(tiers, (tier) => {
    if (stablePair) return isStableTier(tier) ? tier.weight * 8 : tier.weight * 0.2;
    return tier.fee <= 0.01 ? tier.weight * 0.2 : tier.weight;
  });
}

/** A dynamic fee's current value, in percent. */
function dynamicFee(rng: Rng, typical: number): number {
  return significant(clamp(rng.logNormal(typical, 0.7), 0.0001, 10), 4);
}

function concentrated(
  rng: Rng,
  tickSpacing: number,
  positionManager: string,
  token0: SnapshotToken,
  token1: SnapshotToken,
): ConcentratedMetadata {
  const price = priceState(rng, token0, token1);
  return { latestSqrtPriceX96: price.sqrtPriceX96, tickSpacing, latestTick: price.tick, positionManagerAddress: positionManager };
}

function v3LikeTerms(rng: Rng, d: ConcentratedDeployment, stablePair: boolean, token0: SnapshotToken, token1: SnapshotToken): PoolTerms {
  const tier = pickTier(rng, d.feeTiers, stablePair);
  const isDynamicFee = rng.chance(d.dynamicFeeShare);
  const metadata = concentrated(rng, tier.tickSpacing, d.positionManager, token0, token1);
  return {
    feeTierPercentage: isDynamicFee ? dynamicFee(rng, Math.max(tier.fee, 0.01)) : tier.fee,
    isDynamicFee,
    shape: d.type === "V3" ? { type: "V3", metadata } : { type: "SLIPSTREAM", metadata },
  };
}

function v4Terms(rng: Rng, d: V4Deployment, stablePair: boolean, token0: SnapshotToken, token1: SnapshotToken): PoolTerms {
  const isDynamicFee = rng.chance(d.dynamicFeeShare);
  const tier = pickTier(rng, d.feeTiers, stablePair);
  const tickSpacing = isDynamicFee ? rng.pick(V4_DYNAMIC_SPACINGS) : tier.tickSpacing;
  // Dynamic fees need a hook to set them; static pools have one less often.
  const hasHook = isDynamicFee || rng.chance(d.hookShare);
  const base = concentrated(rng, tickSpacing, d.positionManager, token0, token1);
  const metadata: V4Metadata = {
    ...base,
    poolManagerAddress: d.poolManager,
    permit2Address: PERMIT2,
    stateViewAddress: d.stateView,
    hook: hasHook ? { address: rng.pick(d.hooks) } : null,
  };
  return { feeTierPercentage: isDynamicFee ? dynamicFee(rng, 0.3) : tier.fee, isDynamicFee, shape: { type: "V4", metadata } };
}

function algebraTerms(rng: Rng, d: AlgebraDeployment, token0: SnapshotToken, token1: SnapshotToken): PoolTerms {
  const tickSpacing = rng.pick(d.tickSpacings);
  const isDynamicFee = rng.chance(d.dynamicFeeShare);
  const base = concentrated(rng, tickSpacing, d.positionManager, token0, token1);
  const hasPlugin = d.pluginConfigs !== null && rng.chance(0.95);
  const metadata: AlgebraMetadata = {
    ...base,
    communityFeePercentage: rng.pick(d.communityFeePercentages),
    deployer: d.deployer,
    plugin: hasPlugin && d.pluginConfigs !== null ? { address: randomAddress(rng), config: rng.pick(d.pluginConfigs) } : null,
    version: d.version,
  };
  return {
    feeTierPercentage: isDynamicFee ? dynamicFee(rng, 0.25) : (ALGEBRA_STATIC_FEE[tickSpacing] ?? 0.3),
    isDynamicFee,
    shape: { type: "ALGEBRA", metadata },
  };
}

/** Fee and metadata for a pool of `deployment` between token0 and token1 (sorted). */
export function poolTerms(
  rng: Rng,
  deployment: ProtocolDeployment,
  stablePair: boolean,
  token0: SnapshotToken,
  token1: SnapshotToken,
): PoolTerms {
  switch (deployment.type) {
    case "V2":
      return {
        feeTierPercentage: deployment.fee,
        isDynamicFee: false,
        shape: { type: "V2", metadata: { positionManagerAddress: deployment.positionManager } },
      };
    case "V3":
    case "SLIPSTREAM":
      return v3LikeTerms(rng, deployment, stablePair, token0, token1);
    case "V4":
      return v4Terms(rng, deployment, stablePair, token0, token1);
    case "ALGEBRA":
      return algebraTerms(rng, deployment, token0, token1);
  }
}
