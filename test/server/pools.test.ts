/**
 * api-decisions.md §4 (GET /v1/pools/{chainId}/{poolAddress}): every pool type, key order,
 * units as stored, token objects, the native asset, case-insensitive lookup, errors.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAINS, NATIVE_ADDRESS } from "../../src/chains/chains.js";
import type { SnapshotFile, SnapshotPool } from "../../src/api/snapshot-format.js";
import { P, poolsFixture, templateLogo, testLogo } from "../support/fixtures.js";
import { expectError, expectSuccess, getPool, startWithFixtures, type Gateway } from "../support/gateway-process.js";

const FILES = poolsFixture();
let gw: Gateway;
let base: string;

beforeAll(async () => {
  gw = await startWithFixtures(FILES);
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const POOL_KEYS = ["chainId", "address", "createdAtTimestamp", "feeTier", "tokens", "protocol", "type", "stats", "balance", "metadata"];
const TOKEN_KEYS = ["chainId", "address", "decimals", "name", "symbol", "logoUrl"];
const STATS_KEYS = ["stats24h", "stats7d", "stats30d", "stats90d"];
const PERIOD_KEYS = ["feesUsd", "swapVolumeUsd", "yield", "netInflowUsd", "liquidityVolumeUsd"];

/** The Pool object §4 describes, mapped field by field from the snapshot records. */
function expectedPool(file: SnapshotFile, pool: SnapshotPool) {
  const tokenOf = (address: string) => {
    const t = file.tokens.find((x) => x.address === address)!;
    return {
      chainId: file.chainId,
      address: t.address,
      decimals: t.decimals,
      name: t.name,
      symbol: t.symbol,
      logoUrl: t.logoUrl ?? templateLogo(file.chainId, t.address),
    };
  };
  const proto = file.protocols.find((p) => p.id === pool.protocolId)!;
  return {
    chainId: file.chainId,
    address: pool.address,
    createdAtTimestamp: pool.createdAtTimestamp,
    feeTier: { feeTierPercentage: pool.feeTierPercentage, isDynamic: pool.isDynamicFee },
    tokens: pool.tokens.map((t) => tokenOf(t.address)),
    protocol: { id: proto.id, name: proto.name, logoUrl: proto.logoUrl, url: proto.url },
    type: pool.type,
    stats: pool.stats,
    balance: {
      totalValueLockedUsd: pool.totalValueLockedUsd,
      tokens: pool.tokens.map((t) => ({ amount: t.amount, amountUsd: t.amountUsd, token: tokenOf(t.address) })),
    },
    metadata: pool.metadata,
  };
}

function fileOf(chainId: number) {
  return FILES.find((f) => f.chainId === chainId)!;
}
function poolOf(chainId: number, address: string) {
  return fileOf(chainId).pools.find((p) => p.address === address)!;
}

function expectKeyOrder(pool: any) {
  expect(Object.keys(pool)).toEqual(POOL_KEYS);
  expect(Object.keys(pool.feeTier)).toEqual(["feeTierPercentage", "isDynamic"]);
  expect(Object.keys(pool.protocol)).toEqual(["id", "name", "logoUrl", "url"]);
  expect(Object.keys(pool.balance)).toEqual(["totalValueLockedUsd", "tokens"]);
  expect(Object.keys(pool.stats)).toEqual(STATS_KEYS);
  for (const k of STATS_KEYS) expect(Object.keys(pool.stats[k])).toEqual(PERIOD_KEYS);
  for (const t of pool.tokens) expect(Object.keys(t)).toEqual(TOKEN_KEYS);
  for (const b of pool.balance.tokens) {
    expect(Object.keys(b)).toEqual(["amount", "amountUsd", "token"]);
    expect(Object.keys(b.token)).toEqual(TOKEN_KEYS);
  }
  pool.balance.tokens.forEach((b: any, i: number) => expect(b.token).toEqual(pool.tokens[i]));
}

describe("the V3 pool, written out in full by hand", () => {
  it("answers exactly this object", async () => {
    const pool = expectSuccess(await getPool(base, 1, P.v3), `/v1/pools/1/${P.v3}`).pool;
    const usdc = { chainId: 1, address: P.usdc1, decimals: 6, name: "USD Coin", symbol: "USDC", logoUrl: testLogo(1, P.usdc1) };
    const weth = {
      chainId: 1,
      address: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
      decimals: 18,
      name: "Wrapped Ether",
      symbol: "WETH",
      logoUrl: testLogo(1, "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"),
    };
    const period = (s: number) => ({
      feesUsd: 1234.5 * s,
      swapVolumeUsd: 987654.25 * s,
      yield: 12.5 + s,
      netInflowUsd: -4321.75 * s,
      liquidityVolumeUsd: 55555.5 * s,
    });
    expect(pool).toEqual({
      chainId: 1,
      address: "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640",
      createdAtTimestamp: 1_620_250_931,
      feeTier: { feeTierPercentage: 0.05, isDynamic: false },
      tokens: [usdc, weth],
      protocol: {
        id: "uniswap-v3",
        name: "Uniswap V3",
        logoUrl: "https://logos.test/protocols/uniswap-v3.png",
        url: "https://app.uniswap.org",
      },
      type: "V3",
      stats: { stats24h: period(3), stats7d: period(21), stats30d: period(90), stats90d: period(270) },
      balance: {
        totalValueLockedUsd: 90_000_750.5,
        tokens: [
          { amount: 45_000_000.5, amountUsd: 45_000_000.5, token: usdc },
          { amount: 15_000.25, amountUsd: 45_000_750, token: weth },
        ],
      },
      metadata: {
        latestSqrtPriceX96: "1446624275124537034926584017993285",
        tickSpacing: 10,
        latestTick: "195406",
        positionManagerAddress: "0xc36442b4a4522e871399cd717abdd847ab11fe88",
      },
    });
    expectKeyOrder(pool);
  });

  it("netInflowUsd keeps its sign and the big sqrt price stays a string", async () => {
    const pool = expectSuccess(await getPool(base, 1, P.v3)).pool;
    expect(pool.stats.stats24h.netInflowUsd).toBeLessThan(0);
    expect(typeof pool.metadata.latestSqrtPriceX96).toBe("string");
    expect(typeof pool.metadata.latestTick).toBe("string");
  });
});

describe("every pool type", () => {
  const cases: [string, number, string][] = [
    ["V2", 1, P.v2],
    ["V3", 1, P.v3],
    ["V3 with a token lacking logo and normalized fields", 1, P.v3Usdt0],
    ["V4 with the native asset, hook null", 1, P.v4Native],
    ["V4 with a hook, stateViewAddress null, dynamic fee, three tokens", 1, P.v4Hooked],
    ["ALGEBRA with plugin", 1, P.algebra],
    ["ALGEBRA with plugin null, zero balances", 1, P.algebraNoPlugin],
    ["SLIPSTREAM", 8453, P.slipstream],
    ["V3 on Base with the native asset lacking a logo", 8453, P.v3Base],
    ["V4 on Unichain", 130, P.v4Unichain],
    ["V2 on Monad", 143, P.v2Monad],
  ];
  for (const [label, chainId, address] of cases) {
    it(`${label}: mapped exactly from the snapshot, keys in order`, async () => {
      const pool = expectSuccess(await getPool(base, chainId, address), `/v1/pools/${chainId}/${address}`).pool;
      expect(pool).toEqual(expectedPool(fileOf(chainId), poolOf(chainId, address)));
      expectKeyOrder(pool);
      expect(Object.keys(pool.metadata)).toEqual(Object.keys(poolOf(chainId, address).metadata));
    });
  }

  it("metadata fields per type", async () => {
    const keysOf = async (chainId: number, address: string) =>
      Object.keys(expectSuccess(await getPool(base, chainId, address)).pool.metadata);
    const cl = ["latestSqrtPriceX96", "tickSpacing", "latestTick", "positionManagerAddress"];
    expect(await keysOf(1, P.v2)).toEqual(["positionManagerAddress"]);
    expect(await keysOf(1, P.v3)).toEqual(cl);
    expect(await keysOf(8453, P.slipstream)).toEqual(cl);
    expect(await keysOf(1, P.v4Native)).toEqual([...cl, "poolManagerAddress", "permit2Address", "stateViewAddress", "hook"]);
    expect(await keysOf(1, P.algebra)).toEqual([...cl, "communityFeePercentage", "deployer", "plugin", "version"]);
  });

  it("nullable metadata members are null, not absent", async () => {
    const v4 = expectSuccess(await getPool(base, 1, P.v4Native)).pool;
    expect(v4.metadata.hook).toBeNull();
    expect(v4.metadata.stateViewAddress).toBe("0x7ffe42c4a5deea5b0fec41c94c136cf115597227");
    const hooked = expectSuccess(await getPool(base, 1, P.v4Hooked)).pool;
    expect(hooked.metadata.hook).toEqual({ address: "0x0010d0d5db05933fa0d9f7038d365e1541a41888" });
    expect(hooked.metadata.stateViewAddress).toBeNull();
    expect(hooked.feeTier).toEqual({ feeTierPercentage: 0, isDynamic: true });
    const alg = expectSuccess(await getPool(base, 1, P.algebraNoPlugin)).pool;
    expect(alg.metadata.plugin).toBeNull();
    expect(expectSuccess(await getPool(base, 1, P.algebra)).pool.metadata.plugin).toEqual({
      address: "0x1f1a2b3c4d5e6f708192a3b4c5d6e7f801234567",
      config: 195,
    });
  });
});

describe("tokens inside a pool", () => {
  it("the native asset: all-zero address, chain's native symbol and name, 18 decimals", async () => {
    const pool = expectSuccess(await getPool(base, 1, P.v4Native)).pool;
    expect(pool.tokens[0]).toEqual({
      chainId: 1,
      address: NATIVE_ADDRESS,
      decimals: 18,
      name: "Ether",
      symbol: "ETH",
      logoUrl: testLogo(1, NATIVE_ADDRESS),
    });
    const hyper = expectSuccess(await getPool(base, 143, P.v2Monad)).pool;
    expect(hyper.tokens[0]).toMatchObject({
      chainId: 143,
      address: NATIVE_ADDRESS,
      decimals: 18,
      name: CHAINS[143].nativeName,
      symbol: CHAINS[143].nativeSymbol,
    });
  });

  it("a token without logoUrl gets the template", async () => {
    const base8453 = expectSuccess(await getPool(base, 8453, P.v3Base)).pool;
    expect(base8453.tokens[0].logoUrl).toBe(`https://assets.smold.app/api/token/8453/${NATIVE_ADDRESS}/logo.svg`);
  });

  it("name and symbol are the on-chain ones, not the normalized ones", async () => {
    const pool = expectSuccess(await getPool(base, 1, P.v3Usdt0)).pool;
    expect(pool.tokens[0]).toEqual({
      chainId: 1,
      address: P.usdt01,
      decimals: 6,
      name: "USD₮0",
      symbol: "USD₮0",
      logoUrl: templateLogo(1, P.usdt01),
    });
  });

  it("balance.tokens[i].token deep-equals tokens[i] and amounts are as stored", async () => {
    const pool = expectSuccess(await getPool(base, 1, P.v4Hooked)).pool;
    expect(pool.tokens).toHaveLength(3);
    expect(pool.balance.tokens.map((b: any) => b.token)).toEqual(pool.tokens);
    expect(pool.balance.tokens.map((b: any) => [b.amount, b.amountUsd])).toEqual([
      [10, 30_000],
      [30_000, 30_000],
      [5, 5],
    ]);
    expect(pool.balance.totalValueLockedUsd).toBe(60_005);
  });

  it("balance.totalValueLockedUsd is totalValueLockedUsd, not the tracked value", async () => {
    const pool = expectSuccess(await getPool(base, 1, P.v2)).pool;
    expect(pool.balance.totalValueLockedUsd).toBe(24_691_357.13);
  });

  it("the protocol is the pool's own chain's protocol record", async () => {
    const pool = expectSuccess(await getPool(base, 8453, P.v3Base)).pool;
    expect(pool.protocol).toEqual({
      id: "uniswap-v3",
      name: "Uniswap V3 on Base",
      logoUrl: "https://logos.test/protocols/uniswap-v3-base.png",
      url: "https://base.uniswap.org",
    });
  });
});

describe("address matching", () => {
  it("upper- and mixed-case addresses match and the answer is lowercase", async () => {
    for (const variant of [
      P.v3.toUpperCase().replace("0X", "0x"),
      "0x" + P.v3.slice(2).replace(/[a-f]/g, (c, i) => (i % 2 ? c.toUpperCase() : c)),
    ]) {
      const res = await getPool(base, 1, variant);
      const pool = expectSuccess(res, `/v1/pools/1/${variant}`).pool;
      expect(pool.address).toBe(P.v3);
      expect(pool).toEqual(expectedPool(fileOf(1), poolOf(1, P.v3)));
    }
  });

  it("a 64-hex V4 pool id matches in any case", async () => {
    const upper = "0x" + P.v4Native.slice(2).toUpperCase();
    const pool = expectSuccess(await getPool(base, 1, upper)).pool;
    expect(pool.address).toBe(P.v4Native);
    expect(pool.type).toBe("V4");
  });

  it("a pool is found only on its own chain", async () => {
    const err = expectError(await getPool(base, 8453, P.v3), 404, "LIQUIDITY_POOL_NOT_FOUND", `/v1/pools/8453/${P.v3}`);
    expect(err.metadata).toMatchObject({ liquidityPoolAddress: P.v3, chainId: 8453 });
  });

  it("unknown pool: 404 with the address as sent and the chainId as a number", async () => {
    const sent = "0x" + "AB".repeat(20);
    const err = expectError(await getPool(base, 1, sent), 404, "LIQUIDITY_POOL_NOT_FOUND");
    expect(err.metadata.liquidityPoolAddress).toBe(sent);
    expect(err.metadata.chainId).toBe(1);
  });

  it("a 40-hex prefix of a V4 id is not that pool", async () => {
    expectError(await getPool(base, 1, P.v4Native.slice(0, 42)), 404, "LIQUIDITY_POOL_NOT_FOUND");
  });
});

describe("chains without data", () => {
  for (const chainId of [999, 9745, 534352]) {
    it(`chain ${chainId} has no snapshot → 503 CHAIN_DATA_UNAVAILABLE`, async () => {
      const err = expectError(await getPool(base, chainId, P.v3), 503, "CHAIN_DATA_UNAVAILABLE");
      expect(err.metadata.chainId).toBe(chainId);
    });
  }
});
