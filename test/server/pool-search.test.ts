/**
 * POST /v1/pools/search against the real server on the hand-made data set of
 * test/support/pool-search-fixture.ts. Rule of api-extended.md §10 (with §7, §11) → test:
 *
 * - sides from tokensA/basketsA, tokensB/basketsB; set A = tokens ∪ basket tokens on their chains → "sides"
 * - a basket without chainIds covers every chain (a chain-restricted key: its chains) → "sides", "access"
 * - addresses any case, answered lowercase; the zero address is the native asset → "sides"
 * - useWrappedForNative (default true) adds the wrapped native token for a zero address → "native and wrapped"
 * - without B: a pool with any token in A; with B: the pair rule, two-token both ways, n-token, V2,
 *   a token on both sides needs two positions → "matching"
 * - minimumTotalValueLockedUsd inclusive, on tracked TVL when present, else TVL → "filters"
 * - protocols / blockedProtocols and poolTypes / blockedPoolTypes all apply; unknown well-formed
 *   protocol matches nothing; protocol id format → INVALID_PROTOCOL_ID; arrays, never scalars → "filters"
 * - orderBy tvl | yield | volume | fees × 24h | 7d | 30d | 90d, desc | asc, defaults tvl/desc/24h;
 *   ties by chainId asc, then address asc, in both directions → "order"
 * - limit 1..500, default 10 → "paging"
 * - nextCursor null exactly at the end; limit may change; cursors bound to the effective query and
 *   the route; tampered / foreign → INVALID_PAGINATION_CURSOR; null and "" start → "paging"
 * - parseWrappedToNative ALWAYS / AUTO / NEVER (AUTO: chains whose zero address is in A or B,
 *   directly or through a basket); native logo from the record, else the template → "native and wrapped"
 * - pool objects byte-identical to pool details → "pool bytes"
 * - filters echo: effective, defaults included, key order, lists not sent as [] → "filters"
 * - INVALID_BLOCKCHAIN_ADDRESS (every bad item, receivedCount), VALIDATION_ERROR (isNotEmpty on side A,
 *   at most 100 tokens and 10 baskets per side, whitelist), UNSUPPORTED_CHAIN_ID, INVALID_BASKET_ID → "input errors"
 * - 403 for a chain the key may not use and for a key without the pools route; 503 for a named
 *   unloaded chain → "access"
 * - cursors stable across snapshot swaps: kept snapshot → same snapshot; retired → after the last
 *   (key, chainId, address) on the current one → "snapshot swaps"
 */
import { renameSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS_ASCENDING } from "../../src/chains/chains.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { GRACE_MS } from "../../src/serving/version-retention.js";
import {
  addr,
  BIG_RATE_LIMIT,
  chainFile,
  KEYS,
  poolStats,
  poolToken,
  protocol,
  standardKeys,
  tempDir,
  templateLogo,
  token,
  v3Pool,
  writeBasketsFile,
  writeChainFile,
  writeKeysFile,
  writeSnapshotDir,
} from "../support/fixtures.js";
import {
  ABSENT,
  expectError,
  expectSuccess,
  expectValidation,
  getPool,
  postPoolSearch,
  postTokens,
  startGateway,
  walkPoolPages,
  type Gateway,
} from "../support/gateway-process.js";
import { POOL_SEARCH_BASKETS, PS, PT, poolSearchFixture } from "../support/pool-search-fixture.js";
import { dataText, detailsPoolText, expectedPoolText, referencePoolSearch, type SearchRequest } from "../support/reference-pool-search.js";

const FILES = poolSearchFixture();
const TOKENS_ONLY = "lgw_test_tokensonly_0123456789abc";

let gw: Gateway;
let base: string;

beforeAll(async () => {
  const dir = writeSnapshotDir(FILES);
  writeBasketsFile(dir, POOL_SEARCH_BASKETS);
  const keys = [...standardKeys(), { id: "test-tokens-only", key: TOKENS_ONLY, routes: ["tokens" as const], rateLimit: BIG_RATE_LIMIT }];
  gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile(keys) });
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const at = (chainId: number, address: string) => ({ chainId, address });
const id = (p: { chainId: number; address: string }) => `${p.chainId}/${p.address}`;
const ids = (pools: { chainId: number; address: string }[]) => pools.map(id);

/** Every matching pool (one page of 500), as chainId/address. */
async function search(body: SearchRequest, key?: string): Promise<string[]> {
  const res = await postPoolSearch(base, { ...body, config: { ...(body.config ?? {}), limit: 500 } }, key === undefined ? {} : { key });
  const data = expectSuccess(res);
  expect(data.nextCursor).toBeNull();
  return ids(data.pools);
}

const reference = (body: SearchRequest, keyChains: number[] | null = null) =>
  referencePoolSearch(FILES, POOL_SEARCH_BASKETS, body, keyChains).map(id);

describe("matching", () => {
  it("without side B, every pool holding a token of A (V2, n-token and a token twice included), by TVL desc", async () => {
    expect(await search({ tokensA: [at(1, PT.usdc1)] })).toEqual(
      [PS.wethUsdc, PS.usdcWeth, PS.threeToken, PS.nativeUsdc, PS.usdcUsdt, PS.usdcDai, PS.usdcUsdc, PS.trackedZero].map((a) => `1/${a}`),
    );
  });

  it("with side B, the pair rule: either order of a two-token pool, and two positions of an n-token pool", async () => {
    const pairs = [PS.wethUsdc, PS.usdcWeth, PS.threeToken].map((a) => `1/${a}`);
    expect(await search({ tokensA: [at(1, PT.usdc1)], tokensB: [at(1, PT.w1)] })).toEqual(pairs);
    expect(await search({ tokensA: [at(1, PT.w1)], tokensB: [at(1, PT.usdc1)] })).toEqual(pairs);
    expect(await search({ tokensA: [at(1, PT.dai1)], tokensB: [at(1, PT.w1)] })).toEqual([`1/${PS.threeToken}`]);
  });

  it("a token on both sides needs two positions that hold it", async () => {
    expect(await search({ tokensA: [at(1, PT.usdc1)], tokensB: [at(1, PT.usdc1)] })).toEqual([`1/${PS.usdcUsdc}`]);
    expect(await search({ tokensA: [at(1, PT.dai1)], tokensB: [at(1, PT.dai1)] })).toEqual([]);
  });

  it("empty side B lists are no side B; a side B token on another chain than A matches nothing", async () => {
    expect(await search({ tokensA: [at(1, PT.usdt1)], tokensB: [], basketsB: [] })).toEqual([`1/${PS.usdcUsdt}`]);
    expect(await search({ tokensA: [at(1, PT.usdc1)], tokensB: [at(8453, PT.w8453)] })).toEqual([]);
  });

  it("unknown addresses and tokens without pools match nothing", async () => {
    expect(await search({ tokensA: [at(1, addr("beef"))] })).toEqual([]);
    expect(await search({ tokensA: [at(130, NATIVE_ADDRESS)], config: { useWrappedForNative: false } })).toEqual([]);
  });
});

describe("sides", () => {
  it("addresses in any letter case; pools answered in lowercase", async () => {
    const upper = "0X" + PT.usdc1.slice(2).toUpperCase();
    expect(await search({ tokensA: [at(1, upper)] })).toEqual(await search({ tokensA: [at(1, PT.usdc1)] }));
    const data = expectSuccess(await postPoolSearch(base, { tokensA: [at(1, upper)], config: { limit: 1 } }));
    expect(data.pools[0].tokens.map((t: { address: string }) => t.address)).toEqual([PT.w1, PT.usdc1]);
  });

  it("set A is tokensA and the baskets' addresses on their chains (file addresses in any case)", async () => {
    const stables = await search({ basketsA: [{ basketId: "stables" }] });
    expect(stables).toEqual(reference({ basketsA: [{ basketId: "stables" }] }));
    expect(stables).toContain(`1/${PS.usdcDai}`); // DAI is upper-case in the file
    expect(stables).toContain(`130/${PS.uniWethUsdc}`);
    expect(await search({ basketsA: [{ basketId: "stables", chainIds: [8453] }] })).toEqual([
      `8453/${PS.baseNativeUsdc}`,
      `8453/${PS.baseWethUsdc}`,
    ]);
    const union = await search({ tokensA: [at(1, PT.x)], basketsA: [{ basketId: "stables", chainIds: [8453] }] });
    expect(union).toEqual(reference({ tokensA: [at(1, PT.x)], basketsA: [{ basketId: "stables", chainIds: [8453] }] }));
    expect(union).toContain(`1/${PS.xy}`);
    expect(union).toContain(`8453/${PS.baseWethUsdc}`);
  });

  it("baskets on both sides", async () => {
    const body = { basketsA: [{ basketId: "stables" }], basketsB: [{ basketId: "eth" }] };
    expect(await search(body)).toEqual(reference(body));
    expect((await search(body)).length).toBeGreaterThan(4);
  });

  it("a basket without chainIds covers the loaded chains only (its chain-999 addresses are no 503)", async () => {
    expect(await search({ basketsA: [{ basketId: "elsewhere" }] })).toEqual([]);
    expect(await search({ basketsA: [{ basketId: "eth" }] })).toEqual(reference({ basketsA: [{ basketId: "eth" }] }));
  });
});

describe("native and wrapped", () => {
  const nativeA = { tokensA: [at(1, NATIVE_ADDRESS)] };

  it("useWrappedForNative (default true): a zero address also searches the wrapped native token", async () => {
    const withWrapped = await search(nativeA);
    expect(withWrapped).toEqual(reference(nativeA));
    expect(withWrapped).toContain(`1/${PS.wethUsdc}`);
    expect(await search({ ...nativeA, config: { useWrappedForNative: true } })).toEqual(withWrapped);
    expect(await search({ ...nativeA, config: { useWrappedForNative: false } })).toEqual([`1/${PS.nativeUsdc}`, `1/${PS.nativeWeth}`]);
    expect(await search({ tokensA: [at(1, PT.usdc1)], tokensB: [at(1, NATIVE_ADDRESS)] })).toEqual(
      [PS.wethUsdc, PS.usdcWeth, PS.threeToken, PS.nativeUsdc].map((a) => `1/${a}`),
    );
    expect(await search({ tokensA: [at(1, PT.usdc1)], tokensB: [at(1, NATIVE_ADDRESS)], config: { useWrappedForNative: false } })).toEqual([
      `1/${PS.nativeUsdc}`,
    ]);
  });

  const tokensOf = (pool: { tokens: { address: string; symbol: string }[] }) => pool.tokens.map((t) => t.symbol);

  async function first(body: SearchRequest) {
    return expectSuccess(await postPoolSearch(base, { ...body, config: { ...body.config, limit: 1 } })).pools[0];
  }

  it("AUTO (default) shows the wrapped native token as the native asset on chains whose zero address is in A or B", async () => {
    expect(tokensOf(await first({ tokensA: [at(1, PT.usdc1)] }))).toEqual(["WETH", "USDC"]);
    expect(tokensOf(await first({ tokensA: [at(1, PT.usdc1)], tokensB: [at(1, NATIVE_ADDRESS)] }))).toEqual(["ETH", "USDC"]);
    expect(
      tokensOf(await first({ tokensA: [at(1, NATIVE_ADDRESS)], tokensB: [at(1, PT.usdc1)], config: { parseWrappedToNative: "AUTO" } })),
    ).toEqual(["ETH", "USDC"]);
    // through a basket: eth holds chain 1's zero address, not chain 8453's
    const both = expectSuccess(
      await postPoolSearch(base, { basketsA: [{ basketId: "stables" }], basketsB: [{ basketId: "eth" }], config: { limit: 500 } }),
    ).pools;
    const chain1 = both.find((p: { chainId: number; address: string }) => p.chainId === 1 && p.address === PS.usdcWeth);
    const chain8453 = both.find((p: { chainId: number; address: string }) => p.chainId === 8453 && p.address === PS.baseWethUsdc);
    expect(tokensOf(chain1)).toEqual(["USDC", "ETH"]);
    expect(tokensOf(chain8453)).toEqual(["WETH", "USDC"]);
  });

  it("ALWAYS and NEVER; the native asset's logo is its record's, else the template's", async () => {
    const always = await first({
      tokensA: [at(8453, PT.usdcBase)],
      tokensB: [at(8453, PT.w8453)],
      config: { parseWrappedToNative: "ALWAYS" },
    });
    expect(always.tokens[0]).toEqual({
      chainId: 8453,
      address: NATIVE_ADDRESS,
      decimals: 18,
      name: "Ether",
      symbol: "ETH",
      logoUrl: templateLogo(8453, NATIVE_ADDRESS),
    });
    expect(always.balance.tokens[0].token).toEqual(always.tokens[0]);
    const never = await first({ tokensA: [at(1, PT.usdc1)], tokensB: [at(1, NATIVE_ADDRESS)], config: { parseWrappedToNative: "NEVER" } });
    expect(tokensOf(never)).toEqual(["WETH", "USDC"]);
    const ethWeth = await first({
      tokensA: [at(1, PT.w1)],
      tokensB: [at(1, NATIVE_ADDRESS)],
      config: { parseWrappedToNative: "ALWAYS", useWrappedForNative: false },
    });
    expect(ethWeth.address).toBe(PS.nativeWeth);
    expect(ethWeth.tokens).toEqual([
      { chainId: 1, address: NATIVE_ADDRESS, decimals: 18, name: "Ether", symbol: "ETH", logoUrl: "https://logos.test/native-eth.png" },
      { chainId: 1, address: NATIVE_ADDRESS, decimals: 18, name: "Ether", symbol: "ETH", logoUrl: "https://logos.test/native-eth.png" },
    ]);
    // chain 130 has no native record: the template's logo
    const uni = await first({ tokensA: [at(130, PT.usdc130)], config: { parseWrappedToNative: "ALWAYS" } });
    expect(uni.tokens[0]).toEqual({
      chainId: 130,
      address: NATIVE_ADDRESS,
      decimals: 18,
      name: "Ether",
      symbol: "ETH",
      logoUrl: templateLogo(130, NATIVE_ADDRESS),
    });
  });
});

describe("pool bytes", () => {
  it("each pool is the pool-details data.pool byte for byte (the native rewrite aside)", async () => {
    for (const mode of ["NEVER", "ALWAYS", "AUTO"] as const) {
      const body: SearchRequest = { basketsA: [{ basketId: "stables" }, { basketId: "eth" }], config: { parseWrappedToNative: mode } };
      const res = await postPoolSearch(base, { ...body, config: { ...body.config, limit: 500 } });
      const expected = referencePoolSearch(FILES, POOL_SEARCH_BASKETS, body);
      const texts = [];
      for (const p of expected) {
        const details = await getPool(base, p.chainId, p.address);
        texts.push(
          expectedPoolText(
            FILES.find((f) => f.chainId === p.chainId)!,
            detailsPoolText(details.text),
            p.native,
          ),
        );
      }
      if (mode === "NEVER") expect(expected.every((p) => !p.native)).toBe(true);
      else expect(expected.some((p) => p.native)).toBe(true);
      expect(dataText(res.text)).toBe(
        `{"pools":[${texts.join(",")}],"filters":{"minimumTotalValueLockedUsd":0,"protocols":[],"blockedProtocols":[],"poolTypes":[],"blockedPoolTypes":[]},"nextCursor":null}`,
      );
    }
  });
});

describe("filters", () => {
  const usdc = { tokensA: [at(1, PT.usdc1)] };

  it("minimumTotalValueLockedUsd is inclusive, on tracked TVL when the pool has it", async () => {
    expect(await search({ ...usdc, filters: { minimumTotalValueLockedUsd: 300_000 } })).toEqual(
      [PS.wethUsdc, PS.usdcWeth, PS.threeToken, PS.nativeUsdc, PS.usdcUsdt, PS.usdcDai].map((a) => `1/${a}`),
    );
    expect(await search({ ...usdc, filters: { minimumTotalValueLockedUsd: 1_000_000 } })).toEqual([`1/${PS.wethUsdc}`, `1/${PS.usdcWeth}`]); // tracked 1M, untracked 1.5M
    expect(await search({ ...usdc, filters: { minimumTotalValueLockedUsd: 1_000_000.01 } })).toEqual([`1/${PS.wethUsdc}`]);
    expect(await search({ ...usdc, filters: { minimumTotalValueLockedUsd: 0.01 } })).not.toContain(`1/${PS.trackedZero}`); // untracked 9M
  });

  it("protocol and pool-type allow-lists and block-lists all apply", async () => {
    expect(await search({ ...usdc, filters: { protocols: ["uniswap-v3"] } })).toEqual(
      [PS.wethUsdc, PS.usdcUsdt, PS.usdcUsdc, PS.trackedZero].map((a) => `1/${a}`),
    );
    expect(await search({ ...usdc, filters: { protocols: ["uniswap-v3", "uniswap-v2"], blockedProtocols: ["uniswap-v3"] } })).toEqual([
      `1/${PS.usdcWeth}`,
    ]);
    expect(await search({ ...usdc, filters: { blockedProtocols: ["uniswap-v3", "algebra-one"] } })).toEqual(
      [PS.usdcWeth, PS.nativeUsdc, PS.usdcDai].map((a) => `1/${a}`),
    );
    expect(await search({ ...usdc, filters: { poolTypes: ["V2", "V4"] } })).toEqual(
      [PS.usdcWeth, PS.nativeUsdc, PS.usdcDai].map((a) => `1/${a}`),
    );
    expect(await search({ ...usdc, filters: { poolTypes: ["V2", "V4"], blockedPoolTypes: ["V2"] } })).toEqual([`1/${PS.nativeUsdc}`]);
    expect(await search({ ...usdc, filters: { blockedPoolTypes: ["V3", "V4", "V2"] } })).toEqual([`1/${PS.threeToken}`]);
    expect(await search({ ...usdc, filters: { protocols: ["uniswap-v3"], poolTypes: ["V2"] } })).toEqual([]);
  });

  it("a well-formed unknown protocol id matches nothing; empty lists restrict nothing", async () => {
    expect(await search({ ...usdc, filters: { protocols: ["not-a-protocol"] } })).toEqual([]);
    expect(await search({ ...usdc, filters: { protocols: [], poolTypes: [], blockedProtocols: [], blockedPoolTypes: [] } })).toEqual(
      await search(usdc),
    );
  });

  it("protocol ids must be lowercase slugs: INVALID_PROTOCOL_ID with the list as sent and the bad items", async () => {
    for (const [list, bad] of [
      ["protocols", ["uniswap_x", "Uniswap-V3", "uniswap-v3", "-x", "a--b", ""]],
      ["blockedProtocols", ["uniswap-v3 "]],
    ] as const) {
      const err = expectError(await postPoolSearch(base, { ...usdc, filters: { [list]: bad } }), 400, "INVALID_PROTOCOL_ID");
      expect(err.metadata).toEqual({ received: bad, invalidItems: bad.filter((s) => s !== "uniswap-v3") });
    }
  });

  it("lists are arrays, never scalars; pool types are the five types", async () => {
    expectValidation(await postPoolSearch(base, { ...usdc, filters: { protocols: "uniswap-v3" } }), "filters.protocols", "isArray");
    expectValidation(await postPoolSearch(base, { ...usdc, filters: { poolTypes: "V3" } }), "filters.poolTypes", "isArray");
    expectValidation(
      await postPoolSearch(base, { ...usdc, filters: { blockedPoolTypes: ["V5"] } }),
      "filters.blockedPoolTypes.0",
      "isIn",
      "V5",
    );
    expectValidation(
      await postPoolSearch(base, { ...usdc, filters: { minimumTotalValueLockedUsd: -1 } }),
      "filters.minimumTotalValueLockedUsd",
      "min",
      -1,
    );
    expectValidation(
      await postPoolSearch(base, { ...usdc, filters: { minimumTotalValueLockedUsd: "5" } }),
      "filters.minimumTotalValueLockedUsd",
      "isNumber",
      "5",
    );
  });

  it("the effective filters are echoed, defaults included, in the documented key order", async () => {
    const defaults = expectSuccess(await postPoolSearch(base, usdc)).filters;
    expect(JSON.stringify(defaults)).toBe(
      '{"minimumTotalValueLockedUsd":0,"protocols":[],"blockedProtocols":[],"poolTypes":[],"blockedPoolTypes":[]}',
    );
    const sent = { blockedPoolTypes: ["V2"], poolTypes: ["V3", "V2"], protocols: ["uniswap-v3"], minimumTotalValueLockedUsd: 12.5 };
    const echoed = expectSuccess(await postPoolSearch(base, { ...usdc, filters: sent })).filters;
    expect(JSON.stringify(echoed)).toBe(
      '{"minimumTotalValueLockedUsd":12.5,"protocols":["uniswap-v3"],"blockedProtocols":[],"poolTypes":["V3","V2"],"blockedPoolTypes":["V2"]}',
    );
  });
});

describe("order", () => {
  const usdc = { tokensA: [at(1, PT.usdc1)] };

  it("by each field and timeframe, in both directions, as the full scan orders them", async () => {
    for (const field of ["tvl", "yield", "volume", "fees"]) {
      for (const timeframe of ["24h", "7d", "30d", "90d"]) {
        for (const direction of ["desc", "asc"]) {
          const body = { basketsA: [{ basketId: "stables" }, { basketId: "eth" }], config: { orderBy: { field, timeframe, direction } } };
          expect(await search(body), `${field} ${timeframe} ${direction}`).toEqual(reference(body));
        }
      }
    }
  });

  it("yield: the stats of the timeframe", async () => {
    // poolStats(seed): yield 12.5 + seed × (1, 7, 30, 90) by timeframe; ties (seed 3) by address
    const byYield = [PS.trackedZero, PS.nativeUsdc, PS.usdcDai, PS.usdcWeth, PS.usdcUsdt, PS.threeToken, PS.wethUsdc, PS.usdcUsdc].map(
      (a) => `1/${a}`,
    );
    expect(await search({ ...usdc, config: { orderBy: { field: "yield", timeframe: "7d" } } })).toEqual(byYield);
    expect(await search({ ...usdc, config: { orderBy: { field: "yield", timeframe: "90d", direction: "asc" } } })).toEqual(
      [PS.usdcUsdc, PS.wethUsdc, PS.usdcUsdt, PS.threeToken, PS.usdcWeth, PS.usdcDai, PS.nativeUsdc, PS.trackedZero].map((a) => `1/${a}`),
    );
  });

  it("defaults: tvl, desc, 24h", async () => {
    const implicit = await search(usdc);
    expect(await search({ ...usdc, config: { orderBy: { field: "tvl", direction: "desc", timeframe: "24h" } } })).toEqual(implicit);
    expect(await search({ ...usdc, config: { orderBy: {} } })).toEqual(implicit);
  });

  it("ties by chainId ascending, then address ascending, in both directions", async () => {
    // 300k: chain 1 usdcUsdt (…c104) and usdcDai (…c109), chain 8453 baseWethUsdc (…c101)
    const body = { tokensA: [at(1, PT.usdc1), at(8453, PT.usdcBase)], filters: { minimumTotalValueLockedUsd: 300_000 } };
    const tie = [`1/${PS.usdcUsdt}`, `1/${PS.usdcDai}`, `8453/${PS.baseWethUsdc}`];
    const desc = await search(body);
    expect(desc.slice(-3)).toEqual(tie);
    const asc = await search({ ...body, config: { orderBy: { direction: "asc" } } });
    expect(asc.slice(0, 3)).toEqual(tie);
  });

  it("an unknown field, direction or timeframe is a VALIDATION_ERROR", async () => {
    expectValidation(await postPoolSearch(base, { ...usdc, config: { orderBy: { field: "apr" } } }), "config.orderBy.field", "isIn", "apr");
    expectValidation(
      await postPoolSearch(base, { ...usdc, config: { orderBy: { direction: "up" } } }),
      "config.orderBy.direction",
      "isIn",
      "up",
    );
    expectValidation(
      await postPoolSearch(base, { ...usdc, config: { orderBy: { timeframe: "1y" } } }),
      "config.orderBy.timeframe",
      "isIn",
      "1y",
    );
  });
});

describe("paging", () => {
  const wide = { basketsA: [{ basketId: "stables" }, { basketId: "eth" }] };

  it("limit defaults to 10, bounds 1..500", async () => {
    const all = reference(wide);
    expect(all.length).toBeGreaterThan(10);
    expect(ids(expectSuccess(await postPoolSearch(base, wide)).pools)).toEqual(all.slice(0, 10));
    expect(ids(expectSuccess(await postPoolSearch(base, { ...wide, config: { limit: 1 } })).pools)).toEqual(all.slice(0, 1));
    expectValidation(await postPoolSearch(base, { ...wide, config: { limit: 0 } }), "config.limit", "min", 0);
    expectValidation(await postPoolSearch(base, { ...wide, config: { limit: 501 } }), "config.limit", "max", 501);
    expectValidation(await postPoolSearch(base, { ...wide, config: { limit: 1.5 } }), "config.limit", "isInt", 1.5);
  });

  it("a walk yields every pool once; nextCursor is null exactly at the end; limit may change between pages", async () => {
    const all = reference(wide);
    for (const limit of [1, 4, all.length]) {
      const { pools, pages } = await walkPoolPages(base, wide, limit);
      expect(ids(pools)).toEqual(all);
      expect(pages.length).toBe(Math.ceil(all.length / limit));
      for (const p of pages.slice(0, -1)) expect(p.nextCursor).toEqual(expect.any(String));
    }
    const varying = await walkPoolPages(base, wide, (i) => [3, 1, 7][i % 3]!);
    expect(ids(varying.pools)).toEqual(all);
  });

  it('cursor null and "" start from the beginning; a non-string cursor is a VALIDATION_ERROR', async () => {
    const firstPage = ids(expectSuccess(await postPoolSearch(base, { ...wide, config: { limit: 2 } })).pools);
    expect(ids(expectSuccess(await postPoolSearch(base, { ...wide, config: { limit: 2, cursor: null } })).pools)).toEqual(firstPage);
    expect(ids(expectSuccess(await postPoolSearch(base, { ...wide, config: { limit: 2, cursor: "" } })).pools)).toEqual(firstPage);
    expectValidation(await postPoolSearch(base, { ...wide, config: { cursor: 5 } }), "config.cursor", "isString", 5);
  });

  it("a cursor is bound to the effective query: sets as sets, addresses in any case; anything else changed is INVALID_PAGINATION_CURSOR", async () => {
    const body = { tokensA: [at(1, PT.usdc1), at(1, PT.w1)], config: { limit: 2 } };
    const cursor = expectSuccess(await postPoolSearch(base, body)).nextCursor as string;
    const same = {
      tokensA: [at(1, PT.w1.toUpperCase().replace("0X", "0x")), at(1, PT.usdc1), at(1, PT.usdc1)],
      config: { limit: 5, cursor, orderBy: { field: "tvl", timeframe: "24h" } },
      filters: { minimumTotalValueLockedUsd: 0 },
    };
    expectSuccess(await postPoolSearch(base, same));
    for (const changed of [
      { ...body, tokensA: [at(1, PT.usdc1)] },
      { ...body, tokensB: [at(1, PT.w1)] },
      { ...body, basketsA: [{ basketId: "eth" }] },
      { ...body, filters: { minimumTotalValueLockedUsd: 1 } },
      { ...body, filters: { protocols: ["uniswap-v3"] } },
      { ...body, filters: { blockedPoolTypes: ["V2"] } },
      { ...body, config: { ...body.config, orderBy: { direction: "asc" } } },
      { ...body, config: { ...body.config, orderBy: { timeframe: "7d" } } },
      { ...body, config: { ...body.config, parseWrappedToNative: "ALWAYS" } },
      { ...body, config: { ...body.config, useWrappedForNative: false } },
    ]) {
      const res = await postPoolSearch(base, { ...changed, config: { ...changed.config, cursor } });
      const err = expectError(res, 400, "INVALID_PAGINATION_CURSOR");
      expect(err.metadata).toEqual({ receivedCursor: cursor });
    }
  });

  it("cursors are foreign across routes, and tampered cursors are refused", async () => {
    const tokenCursor = expectSuccess(
      await postTokens(base, {
        config: { limit: 1 },
        filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0 },
      }),
    ).nextCursor as string;
    expectError(await postPoolSearch(base, { ...wide, config: { cursor: tokenCursor } }), 400, "INVALID_PAGINATION_CURSOR");
    const cursor = expectSuccess(await postPoolSearch(base, { ...wide, config: { limit: 2 } })).nextCursor as string;
    expectError(await postTokens(base, { config: { cursor } }), 400, "INVALID_PAGINATION_CURSOR");
    const flipped = cursor.slice(0, 10) + (cursor[10] === "A" ? "B" : "A") + cursor.slice(11);
    expectError(await postPoolSearch(base, { ...wide, config: { cursor: flipped } }), 400, "INVALID_PAGINATION_CURSOR");
    expectError(await postPoolSearch(base, { ...wide, config: { cursor: "not a cursor" } }), 400, "INVALID_PAGINATION_CURSOR");
  });

  it("every page carries the snapshot version", async () => {
    const { pages } = await walkPoolPages(base, wide, 5);
    const versions = new Set(pages.map((p) => p.response.headers.get("x-snapshot-version")));
    expect(versions.size).toBe(1);
    expect([...versions][0]).toMatch(/^[0-9a-f]+$/);
  });
});

describe("input errors", () => {
  it("malformed addresses: INVALID_BLOCKCHAIN_ADDRESS listing every bad item as sent, with the list's length", async () => {
    const tokensA = [
      at(1, PT.usdc1),
      at(1, "0x1234"),
      at(1, PT.usdc1 + "0"),
      { chainId: 1, address: 42 },
      at(1, "usdc"),
      at(1, "0x" + "g".repeat(40)),
    ];
    const err = expectError(await postPoolSearch(base, { tokensA }), 400, "INVALID_BLOCKCHAIN_ADDRESS");
    expect(err.metadata.receivedCount).toBe(6);
    expect(err.metadata.invalidAddresses.map((x: { address: unknown }) => x.address)).toEqual([
      "0x1234",
      PT.usdc1 + "0",
      42,
      "usdc",
      "0x" + "g".repeat(40),
    ]);
    for (const item of err.metadata.invalidAddresses) expect(item.reason).toEqual(expect.any(String));
    const inB = expectError(
      await postPoolSearch(base, { tokensA: [at(1, PT.usdc1)], tokensB: [at(1, "0xnope")] }),
      400,
      "INVALID_BLOCKCHAIN_ADDRESS",
    );
    expect(inB.metadata).toEqual({ invalidAddresses: [{ address: "0xnope", reason: expect.any(String) }], receivedCount: 1 });
  });

  it("side A must name a token or a basket (isNotEmpty on tokensA); side B alone is not a search", async () => {
    expectValidation(await postPoolSearch(base, {}), "tokensA", "isNotEmpty", ABSENT);
    expectValidation(await postPoolSearch(base, { tokensA: [] }), "tokensA", "isNotEmpty", []);
    expectValidation(await postPoolSearch(base, { tokensA: [], basketsA: [] }), "tokensA", "isNotEmpty", []);
    expectValidation(await postPoolSearch(base, { tokensB: [at(1, PT.usdc1)] }), "tokensA", "isNotEmpty", ABSENT);
    expectValidation(await postPoolSearch(base, { basketsB: [{ basketId: "eth" }] }), "tokensA", "isNotEmpty", ABSENT);
    expectSuccess(await postPoolSearch(base, { tokensA: [], basketsA: [{ basketId: "eth" }] }));
  });

  it("at most 100 tokens and 10 baskets per side", async () => {
    const tokens = (n: number) => Array.from({ length: n }, (_, i) => at(1, addr((i + 1).toString(16))));
    const baskets = (n: number) => Array.from({ length: n }, () => ({ basketId: "eth" }));
    expectSuccess(await postPoolSearch(base, { tokensA: tokens(100), tokensB: tokens(100), basketsA: baskets(10), basketsB: baskets(10) }));
    expectValidation(await postPoolSearch(base, { tokensA: tokens(101) }), "tokensA", "max");
    expectValidation(await postPoolSearch(base, { tokensA: tokens(1), tokensB: tokens(101) }), "tokensB", "max");
    expectValidation(await postPoolSearch(base, { basketsA: baskets(11) }), "basketsA", "max");
    expectValidation(await postPoolSearch(base, { tokensA: tokens(1), basketsB: baskets(11) }), "basketsB", "max");
  });

  it("unsupported chain ids: UNSUPPORTED_CHAIN_ID; non-integer ones: VALIDATION_ERROR", async () => {
    const token = expectError(
      await postPoolSearch(base, { tokensA: [at(1, PT.usdc1), at(5, PT.usdc1), at(10, PT.usdc1)] }),
      400,
      "UNSUPPORTED_CHAIN_ID",
    );
    expect(token.metadata).toEqual({ chainId: 5, unsupportedIds: [5, 10], supportedIds: SUPPORTED_CHAIN_IDS_ASCENDING });
    const basket = expectError(
      await postPoolSearch(base, { basketsA: [{ basketId: "eth", chainIds: [1, 10] }] }),
      400,
      "UNSUPPORTED_CHAIN_ID",
    );
    expect(basket.metadata).toEqual({ chainId: 10, unsupportedIds: [10], supportedIds: SUPPORTED_CHAIN_IDS_ASCENDING });
    expectValidation(await postPoolSearch(base, { tokensA: [at(1.5, PT.usdc1)] }), "tokensA.0.chainId", "isInt", 1.5);
    expectValidation(await postPoolSearch(base, { tokensA: [{ chainId: "1", address: PT.usdc1 }] }), "tokensA.0.chainId", "isNumber", "1");
    expectValidation(
      await postPoolSearch(base, { basketsA: [{ basketId: "eth", chainIds: [1, 1] }] }),
      "basketsA.0.chainIds",
      "uniqueItems",
    );
  });

  it("an unknown basket id: INVALID_BASKET_ID with the id as sent and the file's ids", async () => {
    const err = expectError(
      await postPoolSearch(base, { tokensA: [at(1, PT.usdc1)], basketsB: [{ basketId: "Stables" }] }),
      400,
      "INVALID_BASKET_ID",
    );
    expect(err.metadata).toEqual({ basketId: "Stables", supportedIds: ["elsewhere", "eth", "stables"] });
    expectValidation(await postPoolSearch(base, { basketsA: [{ basketId: 7 }] }), "basketsA.0.basketId", "isString", 7);
  });

  it("unknown properties at any depth: VALIDATION_ERROR whitelist", async () => {
    expectValidation(await postPoolSearch(base, { tokensA: [at(1, PT.usdc1)], tokensC: [] }), "tokensC", "whitelist");
    expectValidation(await postPoolSearch(base, { tokensA: [{ ...at(1, PT.usdc1), symbol: "USDC" }] }), "tokensA.0.symbol", "whitelist");
    expectValidation(await postPoolSearch(base, { basketsA: [{ basketId: "eth", chains: [1] }] }), "basketsA.0.chains", "whitelist");
    expectValidation(
      await postPoolSearch(base, { tokensA: [at(1, PT.usdc1)], config: { orderBy: { field: "tvl", by: 1 } } }),
      "config.orderBy.by",
      "whitelist",
    );
    expectValidation(
      await postPoolSearch(base, { tokensA: [at(1, PT.usdc1)], config: { parseWrappedToNative: "SOMETIMES" } }),
      "config.parseWrappedToNative",
      "isIn",
    );
    expectValidation(
      await postPoolSearch(base, { tokensA: [at(1, PT.usdc1)], config: { useWrappedForNative: "true" } }),
      "config.useWrappedForNative",
      "isBoolean",
    );
  });
});

describe("access", () => {
  it("a chain the key may not read is 403 API_KEY_FORBIDDEN, from a token or a basket's chainIds", async () => {
    const token = expectError(
      await postPoolSearch(base, { tokensA: [at(1, PT.usdc1)], tokensB: [at(8453, PT.w8453)] }, { key: KEYS.chain1Only }),
      403,
      "API_KEY_FORBIDDEN",
    );
    expect(token.metadata).toEqual({ chainId: 8453, allowedChainIds: [1] });
    expectError(
      await postPoolSearch(base, { basketsA: [{ basketId: "stables", chainIds: [1, 130] }] }, { key: KEYS.chain1Only }),
      403,
      "API_KEY_FORBIDDEN",
    );
  });

  it("a basket without chainIds covers the key's chains", async () => {
    const body = { basketsA: [{ basketId: "stables" }] };
    expect(await search(body, KEYS.chain1Only)).toEqual(reference(body, [1]));
    expect((await search(body, KEYS.chain1Only)).every((p) => p.startsWith("1/"))).toBe(true);
    expect(await search(body)).not.toEqual(await search(body, KEYS.chain1Only));
  });

  it("a key without the pools route is 403; a pools-only key searches", async () => {
    const err = expectError(await postPoolSearch(base, { tokensA: [at(1, PT.usdc1)] }, { key: TOKENS_ONLY }), 403, "API_KEY_FORBIDDEN");
    expect(err.metadata).toEqual({ route: "pools", allowedRoutes: ["tokens"] });
    expectSuccess(await postPoolSearch(base, { tokensA: [at(1, PT.usdc1)] }, { key: KEYS.poolsOnly }));
  });

  it("a named chain without a loaded snapshot is 503 CHAIN_DATA_UNAVAILABLE", async () => {
    const err = expectError(
      await postPoolSearch(base, { tokensA: [at(1, PT.usdc1)], tokensB: [at(999, PT.usdc1)] }),
      503,
      "CHAIN_DATA_UNAVAILABLE",
    );
    expect(err.metadata).toEqual({ chainId: 999 });
    expectError(await postPoolSearch(base, { basketsA: [{ basketId: "eth", chainIds: [999] }] }), 503, "CHAIN_DATA_UNAVAILABLE");
  });
});

// ------------------------------------------------------------------ snapshot swaps

const T0 = 1_750_000_000;
const SWAP_TOKEN = addr("5e1");

/** Chain 1 with ten pools of SWAP_TOKEN; `tvl(i)` gives pool i's TVL. */
function swapChain(generatedAt: number, tvl: (i: number) => number, count = 10): SnapshotFile {
  return chainFile(1, {
    generatedAt,
    protocols: [protocol("swap-proto")],
    tokens: [token(1, { address: SWAP_TOKEN, symbol: "SWP" }), token(1, { address: addr("5e2"), symbol: "OTH" })],
    pools: Array.from({ length: count }, (_, i) =>
      v3Pool({
        address: addr(`5f${i.toString(16).padStart(2, "0")}`),
        protocolId: "swap-proto",
        tokens: [poolToken(SWAP_TOKEN, 1, 1), poolToken(addr("5e2"), 1, 1)],
        totalValueLockedUsd: tvl(i),
        stats: poolStats(i + 1),
      }),
    ),
  });
}

function push(dir: string, file: SnapshotFile): void {
  const tmp = writeChainFile(dir, file, `.chain-${file.chainId}.msgpack.${process.pid}.tmp`);
  renameSync(tmp, path.join(dir, `chain-${file.chainId}.msgpack`));
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("snapshot swaps", () => {
  const body = { tokensA: [at(1, SWAP_TOKEN)] };
  const V1 = swapChain(T0, (i) => 1_000 * (i + 1)); // pool 9 first
  const V2 = swapChain(T0 + 100, (i) => 1_000 * (12 - i), 12); // pool 0 first, two more pools
  const V3 = swapChain(T0 + 200, (i) => (i % 2 === 0 ? 5_000 : 1_000 * i), 12);
  const firstPool = async (gwBase: string) =>
    expectSuccess(await postPoolSearch(gwBase, { ...body, config: { limit: 1 } })).pools[0]?.address as string;

  it("while the walk's snapshot is kept, the walk continues on it: every pool of it once", async () => {
    const dir = tempDir("lgw-pool-swap-");
    writeChainFile(dir, V1);
    const swapGw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile(), env: { GATEWAY_THREADS: "1" } });
    try {
      const oldList = referencePoolSearch([V1], { baskets: [] }, body).map(id);
      const first = await postPoolSearch(swapGw.baseUrl, { ...body, config: { limit: 3 } });
      const firstData = expectSuccess(first);
      expect(ids(firstData.pools)).toEqual(oldList.slice(0, 3));
      push(dir, V2);
      await waitFor("V2 served", async () => (await firstPool(swapGw.baseUrl)) === addr("5f00"));
      // Past the grace period after a swap (version-retention.ts): what keeps V1's pool tables now is the cursor issued on it.
      await new Promise((r) => setTimeout(r, GRACE_MS + 1500));
      const rest: string[] = [];
      let cursor: string | null = firstData.nextCursor;
      while (cursor !== null) {
        const res = await postPoolSearch(swapGw.baseUrl, { ...body, config: { limit: 2, cursor } });
        const page = expectSuccess(res);
        expect(res.headers.get("x-snapshot-version")).toBe(first.headers.get("x-snapshot-version"));
        rest.push(...ids(page.pools));
        cursor = page.nextCursor;
      }
      expect([...ids(firstData.pools), ...rest]).toEqual(oldList);
      expect(ids((await walkPoolPages(swapGw.baseUrl, body, 5)).pools)).toEqual(referencePoolSearch([V2], { baskets: [] }, body).map(id));
    } finally {
      await swapGw.stop();
    }
  });

  it("once the walk's snapshot is retired, the walk continues on the current one after the last (key, chainId, address)", async () => {
    const dir = tempDir("lgw-pool-retire-");
    writeChainFile(dir, V1);
    const swapGw = await startGateway({
      snapshotDir: dir,
      keysFile: writeKeysFile(),
      env: { SNAPSHOT_MAX_VERSIONS: "1", GATEWAY_THREADS: "1" },
    });
    try {
      const first = expectSuccess(await postPoolSearch(swapGw.baseUrl, { ...body, config: { limit: 4 } }));
      // V1 by TVL desc: pools 9, 8, 7, 6 (TVL 10k..7k)
      expect(ids(first.pools)).toEqual([9, 8, 7, 6].map((i) => `1/${addr(`5f0${i}`)}`));
      push(dir, V2);
      await waitFor("V2 served", async () => (await firstPool(swapGw.baseUrl)) === addr("5f00"));
      push(dir, V3);
      await waitFor("V3 served", async () => (await firstPool(swapGw.baseUrl)) === addr("5f0b"));
      const rest = await walkPoolPages(swapGw.baseUrl, { ...body, config: { cursor: first.nextCursor } }, 3);
      const currentVersion = (await postPoolSearch(swapGw.baseUrl, body)).headers.get("x-snapshot-version");
      for (const page of rest.pages) expect(page.response.headers.get("x-snapshot-version")).toBe(currentVersion);
      // after (7,000, chain 1, pool 6) on V3, TVL desc: the pools below 7,000, and 7,000 with a higher address
      const v3 = referencePoolSearch([V3], { baskets: [] }, body);
      const tvlOf = (address: string) => V3.pools.find((p) => p.address === address)!.totalValueLockedUsd;
      const expected = v3.filter((p) => tvlOf(p.address) < 7_000 || (tvlOf(p.address) === 7_000 && p.address > addr("5f06"))).map(id);
      expect(ids(rest.pools)).toEqual(expected);
      expect(expected.length).toBeGreaterThan(3);
    } finally {
      await swapGw.stop();
    }
  });
});
