/**
 * Turns one snapshot pool record into the `data.pool` wire object
 * (api-decisions.md §4), keys in the documented order.
 */
import type { ChainId } from "../chains/chains.js";
import type { Pool, PoolToken, Protocol } from "../api/wire.js";
import type { SnapshotPool } from "./format.js";

export function toWirePool(
  chainId: ChainId,
  pool: SnapshotPool,
  tokenByAddress: ReadonlyMap<string, PoolToken>,
  protocolById: ReadonlyMap<string, Protocol>,
): Pool {
  const tokens = pool.tokens.map((t) => tokenByAddress.get(t.address)!);
  return {
    chainId,
    address: pool.address,
    createdAtTimestamp: pool.createdAtTimestamp,
    feeTier: { feeTierPercentage: pool.feeTierPercentage, isDynamic: pool.isDynamicFee },
    tokens,
    protocol: protocolById.get(pool.protocolId)!,
    type: pool.type,
    stats: {
      stats24h: periodStats(pool.stats.stats24h),
      stats7d: periodStats(pool.stats.stats7d),
      stats30d: periodStats(pool.stats.stats30d),
      stats90d: periodStats(pool.stats.stats90d),
    },
    balance: {
      totalValueLockedUsd: pool.totalValueLockedUsd,
      tokens: pool.tokens.map((t, i) => ({ amount: t.amount, amountUsd: t.amountUsd, token: tokens[i] })),
    },
    metadata: wireMetadata(pool),
  };
}

function periodStats(s: SnapshotPool["stats"]["stats24h"]) {
  return {
    feesUsd: s.feesUsd,
    swapVolumeUsd: s.swapVolumeUsd,
    yield: s.yield,
    netInflowUsd: s.netInflowUsd,
    liquidityVolumeUsd: s.liquidityVolumeUsd,
  };
}

/** Exactly the documented fields of the pool's type, nothing an operator added. */
function wireMetadata(pool: SnapshotPool): Pool["metadata"] {
  const m = pool.metadata;
  if (pool.type === "V2") return { positionManagerAddress: pool.metadata.positionManagerAddress };
  const concentrated = {
    latestSqrtPriceX96: (m as { latestSqrtPriceX96: string }).latestSqrtPriceX96,
    tickSpacing: (m as { tickSpacing: number }).tickSpacing,
    latestTick: (m as { latestTick: string }).latestTick,
    positionManagerAddress: m.positionManagerAddress,
  };
  switch (pool.type) {
    case "V3":
    case "SLIPSTREAM":
      return concentrated;
    case "V4": {
      const v4 = pool.metadata;
      return {
        ...concentrated,
        poolManagerAddress: v4.poolManagerAddress,
        permit2Address: v4.permit2Address,
        stateViewAddress: v4.stateViewAddress,
        hook: v4.hook === null ? null : { address: v4.hook.address },
      };
    }
    case "ALGEBRA": {
      const a = pool.metadata;
      return {
        ...concentrated,
        communityFeePercentage: a.communityFeePercentage,
        deployer: a.deployer,
        plugin: a.plugin === null ? null : { address: a.plugin.address, config: a.plugin.config },
        version: a.version,
      };
    }
  }
}
