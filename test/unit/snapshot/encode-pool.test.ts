/**
 * The pool JSON written by PoolJsonEncoder must be byte for byte JSON.stringify of the
 * wire object. The object form below is the reference (it is how the gateway encoded
 * pools before the direct writer): keys in the documented order, documented fields only.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { ChainId } from "../../../src/chains/chains.js";
import type { Pool, PoolToken, Protocol } from "../../../src/api/wire.js";
import { compileChain } from "../../../src/snapshot/compile-chain.js";
import type { SnapshotPool } from "../../../src/api/snapshot-format.js";
import { SNAPSHOT_FILE_PATTERN } from "../../../src/api/snapshot-format.js";
import { findPool, poolJson } from "../../../src/tables/pool-table.js";
import { chainIdFromSnapshotFileName, parseSnapshotBytes, type NormalizedSnapshotFile } from "../../../src/snapshot/read-snapshot-file.js";
import {
  algebraPool,
  chainFile,
  nativeToken,
  packSnapshot,
  poolStats,
  poolToken,
  protocol,
  slipstreamPool,
  token,
  v2Pool,
  v3Pool,
  v4Pool,
  addr,
  poolId,
} from "../../support/fixtures.js";
import { NO_SOURCE } from "../../support/compiled-chains.js";

function referencePool(chainId: ChainId, pool: SnapshotPool, snapshot: NormalizedSnapshotFile): Pool {
  const tokenByAddress = new Map<string, PoolToken>();
  for (const t of snapshot.tokens)
    tokenByAddress.set(t.address, {
      chainId,
      address: t.address,
      decimals: t.decimals,
      name: t.name,
      symbol: t.symbol,
      logoUrl: t.logoUrl,
    });
  const protocolById = new Map<string, Protocol>();
  for (const p of snapshot.protocols) protocolById.set(p.id, { id: p.id, name: p.name, logoUrl: p.logoUrl, url: p.url });
  const tokens = pool.tokens.map((t) => tokenByAddress.get(t.address)!);
  const period = (s: SnapshotPool["stats"]["stats24h"]) => ({
    feesUsd: s.feesUsd,
    swapVolumeUsd: s.swapVolumeUsd,
    yield: s.yield,
    netInflowUsd: s.netInflowUsd,
    liquidityVolumeUsd: s.liquidityVolumeUsd,
  });
  return {
    chainId,
    address: pool.address,
    createdAtTimestamp: pool.createdAtTimestamp,
    feeTier: { feeTierPercentage: pool.feeTierPercentage, isDynamic: pool.isDynamicFee },
    tokens,
    protocol: protocolById.get(pool.protocolId)!,
    type: pool.type,
    stats: {
      stats24h: period(pool.stats.stats24h),
      stats7d: period(pool.stats.stats7d),
      stats30d: period(pool.stats.stats30d),
      stats90d: period(pool.stats.stats90d),
    },
    balance: {
      totalValueLockedUsd: pool.totalValueLockedUsd,
      tokens: pool.tokens.map((t, i) => ({ amount: t.amount, amountUsd: t.amountUsd, token: tokens[i] })),
    },
    metadata: referenceMetadata(pool),
  };
}

function referenceMetadata(pool: SnapshotPool): Pool["metadata"] {
  if (pool.type === "V2") return { positionManagerAddress: pool.metadata.positionManagerAddress };
  const m = pool.metadata;
  const concentrated = {
    latestSqrtPriceX96: m.latestSqrtPriceX96,
    tickSpacing: m.tickSpacing,
    latestTick: m.latestTick,
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

function expectSameJson(snapshot: NormalizedSnapshotFile): void {
  const chainId = snapshot.chainId as ChainId;
  const compiled = compileChain(snapshot, NO_SOURCE);
  expect(compiled.pools.count).toBe(snapshot.pools.length);
  snapshot.pools.forEach((pool, i) => {
    expect(findPool(compiled.pools, pool.address)).toBe(i);
    expect(Buffer.from(poolJson(compiled.pools, i)).toString()).toBe(JSON.stringify(referencePool(chainId, pool, snapshot)));
  });
}

describe("pool JSON", () => {
  test("every pool of the bundled sample snapshots", () => {
    const dir = "snapshots";
    const names = readdirSync(dir).filter((n) => SNAPSHOT_FILE_PATTERN.test(n));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expectSameJson(parseSnapshotBytes(readFileSync(join(dir, name)), chainIdFromSnapshotFileName(name)));
  });

  test("every metadata shape, odd text and odd numbers", () => {
    const t1 = addr("a1");
    const t2 = addr("b2");
    const t3 = addr("c3");
    const stats = poolStats(3);
    stats.stats7d = { feesUsd: 1e-7, swapVolumeUsd: 1e21, yield: -0, netInflowUsd: -123456.789, liquidityVolumeUsd: 2 ** 53 + 2 };
    stats.stats30d = { feesUsd: 0.1 + 0.2, swapVolumeUsd: 5e-324, yield: Number.MAX_VALUE, netInflowUsd: -1e-9, liquidityVolumeUsd: 100 };
    const tokens = [
      nativeToken(1, {}),
      token(1, { address: t1, symbol: 'Q"T', name: 'Quote "quoted" \\ back\tslash\u0001', logoUrl: "https://x.test/\u2028" }),
      token(1, { address: t2, symbol: "USD₮0", name: "Ünï 🦄" }),
      token(1, { address: t3, symbol: "C", name: "C", normalizedSymbol: undefined, normalizedName: undefined, logoUrl: undefined }),
    ];
    const pt = (a: string) => poolToken(a, 1234.000001, 0.07);
    const pools: SnapshotPool[] = [
      v2Pool({ address: addr("1001"), protocolId: "p-1", tokens: [pt(t1), pt(t2)], stats }),
      v3Pool({
        address: addr("1002"),
        protocolId: "p-1",
        tokens: [pt(t1), pt(tokens[0].address), pt(t3)],
        isDynamicFee: true,
        feeTierPercentage: 0.0005,
      }),
      slipstreamPool({ address: addr("1003"), protocolId: "p.2", tokens: [pt(t2), pt(t2)], createdAtTimestamp: 0 }),
      v4Pool({ address: poolId("2001"), protocolId: "p-1", tokens: [pt(t1), pt(t2)] }),
      v4Pool({ address: poolId("2002"), protocolId: "p-1", tokens: [pt(t1), pt(t2)], metadata: { stateViewAddress: null, hook: null } }),
      v4Pool({
        address: poolId("2003"),
        protocolId: "p-1",
        tokens: [pt(t1), pt(t2)],
        metadata: { stateViewAddress: null, hook: { address: addr("40") } },
      }),
      v4Pool({
        address: poolId("2004"),
        protocolId: "p-1",
        tokens: [pt(t1), pt(t2)],
        metadata: { hook: { address: addr("41") }, latestTick: "0", tickSpacing: -2147483648 },
      }),
      algebraPool({ address: addr("3001"), protocolId: "p.2", tokens: [pt(t1), pt(t3)] }),
      algebraPool({
        address: addr("3002"),
        protocolId: "p.2",
        tokens: [pt(t1), pt(t3)],
        metadata: { plugin: null, version: 'v"2" ₮\n', communityFeePercentage: 12.345 },
      }),
    ];
    // Operators' extra fields are left out of the answer.
    (pools[1] as unknown as { extra: number }).extra = 1;
    (pools[1].metadata as unknown as { extra: string }).extra = "x";
    const file = chainFile(1, { tokens, pools, protocols: [protocol("p-1", { name: 'Proto "One" ✓' }), protocol("p.2")] });
    expectSameJson(parseSnapshotBytes(packSnapshot(file), 1));
  });

  test("a chain without pools", () => {
    expectSameJson(parseSnapshotBytes(packSnapshot(chainFile(8453, { tokens: [token(8453, { address: addr("1"), symbol: "A" })] })), 8453));
  });
});
