/**
 * The official SDK (`@hydric/gateway`) pointed at this gateway with `baseUrl`: the token list and
 * the pool search read the same data as raw HTTP, their cursor walks visit every entry once, and
 * the SDK's error classes come out of the gateway's statuses (401, 400, 429 with `retryAfter`).
 */
import { HydricGateway, HydricInvalidParamsError, HydricRateLimitError, HydricUnauthorizedError } from "@hydric/gateway";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { KEYS, tokenListFixture, writeBasketsFile, writeKeysFile, writeSnapshotDir } from "../support/fixtures.js";
import {
  expectSuccess,
  postPoolSearch,
  postTokens,
  startGateway,
  startWithFixtures,
  walkPoolPages,
  walkTokenPages,
  type Gateway,
} from "../support/gateway-process.js";
import { POOL_SEARCH_BASKETS, PT, poolSearchFixture } from "../support/pool-search-fixture.js";

let gw: Gateway;
let base: string;
let sdk: HydricGateway;

beforeAll(async () => {
  gw = await startWithFixtures(tokenListFixture());
  base = gw.baseUrl;
  sdk = new HydricGateway({ apiKey: KEYS.active, baseUrl: base });
});

afterAll(async () => {
  await gw?.stop();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** One entry's identity: its addresses in order. */
function entryKey(entry: { addresses: { chainId: number; address: string }[] }): string {
  return entry.addresses.map((a) => `${a.chainId}:${a.address}`).join(",");
}

describe("multichainTokens.list()", () => {
  it("without parameters returns what POST /v1/tokens {} returns", async () => {
    const viaSdk = await sdk.multichainTokens.list();
    const raw = expectSuccess(await postTokens(base, {}));
    expect(viaSdk.tokens).toEqual(raw.tokens);
    expect(viaSdk.tokens.length).toBe(10);
    expect(typeof viaSdk.nextCursor).toBe("string");
  });

  it("with config and filters returns what raw HTTP returns for the same body", async () => {
    const params = {
      config: { limit: 7, matchAllSymbols: true, orderBy: { field: "tvl" as const, direction: "asc" as const } },
      filters: {
        chainIds: [1, 8453, 999] as (1 | 8453 | 999)[],
        minimumTotalValuePooledUsd: 20_000,
        minimumSwapsCount: 10,
        ignoreWrappedNative: false,
      },
    };
    const viaSdk = await sdk.multichainTokens.list(params);
    const raw = expectSuccess(await postTokens(base, params));
    expect(viaSdk.tokens).toEqual(raw.tokens);
    expect(viaSdk.tokens.length).toBe(7);
    // the filters were applied: every entry is on the requested chains only
    for (const entry of viaSdk.tokens) for (const id of entry.chainIds) expect([1, 8453, 999]).toContain(id);
  });

  it("walking nextCursor returns every entry once, like a raw walk", async () => {
    const limit = 4;
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const result = await sdk.multichainTokens.list({ config: cursor === null ? { limit } : { limit, cursor } });
      seen.push(...result.tokens.map(entryKey));
      // The SDK types nextCursor as an object; the gateway sends the string cursor of the spec.
      cursor = result.nextCursor as unknown as string | null;
      if (cursor === null) break;
      expect(typeof cursor).toBe("string");
    }
    expect(cursor).toBeNull();
    const raw = await walkTokenPages(base, {}, limit);
    expect(seen).toEqual(raw.tokens.map(entryKey));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThan(limit * 2);
  });
});

describe("errors as the SDK's classes", () => {
  it("an unknown key raises HydricUnauthorizedError with the gateway's message", async () => {
    const stranger = new HydricGateway({ apiKey: "lgw_nobody_0123456789abcdef", baseUrl: base });
    const error = await stranger.multichainTokens.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HydricUnauthorizedError);
    const raw = await postTokens(base, {}, { key: "lgw_nobody_0123456789abcdef" });
    expect((error as Error).message).toBe(raw.body.error.message);
  });

  it("config.limit 501 raises HydricInvalidParamsError", async () => {
    const error = await sdk.multichainTokens.list({ config: { limit: 501 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HydricInvalidParamsError);
    expect((error as Error).message).toMatch(/limit/);
  });

  it("a key over its quota raises HydricRateLimitError with the server's retryAfterSeconds", async () => {
    // Record what the gateway answered to each SDK call (the SDK uses the global fetch).
    const answers: { status: number; body: any }[] = [];
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (...args: Parameters<typeof fetch>) => {
      const response = await realFetch(...args);
      answers.push({ status: response.status, body: await response.clone().json() });
      return response;
    });
    const limited = new HydricGateway({ apiKey: KEYS.rateLimited, baseUrl: base });
    // 3 requests per 60 s window: at most one window boundary can pass within these attempts.
    let error: unknown;
    for (let attempt = 0; attempt < 8 && error === undefined; attempt++) {
      error = await limited.multichainTokens.list({ config: { limit: 1 } }).then(
        () => undefined,
        (e: unknown) => e,
      );
    }
    expect(error).toBeInstanceOf(HydricRateLimitError);
    const last = answers[answers.length - 1];
    expect(last.status).toBe(429);
    const retryAfterSeconds = last.body.error.metadata.retryAfterSeconds;
    expect((error as HydricRateLimitError).retryAfter).toBe(retryAfterSeconds);
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
  });
});

describe("liquidityPools.search()", () => {
  let poolsGw: Gateway;
  let poolsBase: string;
  let poolsSdk: HydricGateway;

  beforeAll(async () => {
    const dir = writeSnapshotDir(poolSearchFixture());
    writeBasketsFile(dir, POOL_SEARCH_BASKETS);
    poolsGw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile() });
    poolsBase = poolsGw.baseUrl;
    poolsSdk = new HydricGateway({ apiKey: KEYS.active, baseUrl: poolsBase });
  });

  afterAll(async () => {
    await poolsGw?.stop();
  });

  const poolKey = (p: { chainId: number; address: string }) => `${p.chainId}/${p.address}`;

  it("returns what raw HTTP returns for the same body: tokens, baskets, filters, order, flags", async () => {
    const params = {
      tokensA: [{ chainId: 1 as const, address: PT.usdc1 }],
      basketsA: [{ basketId: "stables" as "usd-stablecoins", chainIds: [8453 as const] }],
      tokensB: [{ chainId: 1 as const, address: PT.native }],
      basketsB: [{ basketId: "eth" as "eth-pegged-tokens" }],
      filters: { minimumTotalValueLockedUsd: 10, blockedPoolTypes: ["SLIPSTREAM" as const] },
      config: {
        limit: 3,
        orderBy: { field: "yield" as const, direction: "asc" as const, timeframe: "30d" as const },
        parseWrappedToNative: "ALWAYS" as const,
      },
    };
    const viaSdk = await poolsSdk.liquidityPools.search(params);
    const raw = expectSuccess(await postPoolSearch(poolsBase, params));
    expect(viaSdk).toEqual(raw);
    expect(viaSdk.pools.length).toBe(3);
    expect(viaSdk.filters).toEqual({
      minimumTotalValueLockedUsd: 10,
      protocols: [],
      blockedProtocols: [],
      poolTypes: [],
      blockedPoolTypes: ["SLIPSTREAM"],
    });
  });

  it("walking nextCursor returns every pool once, like a raw walk", async () => {
    const body = { basketsA: [{ basketId: "stables" as "usd-stablecoins" }, { basketId: "eth" as "eth-pegged-tokens" }] };
    const limit = 3;
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const result = await poolsSdk.liquidityPools.search({ ...body, config: cursor === null ? { limit } : { limit, cursor } });
      seen.push(...result.pools.map(poolKey));
      // The SDK types nextCursor as an object; the gateway sends the string cursor of the spec.
      cursor = result.nextCursor as unknown as string | null;
      if (cursor === null) break;
      expect(typeof cursor).toBe("string");
    }
    expect(cursor).toBeNull();
    const raw = await walkPoolPages(poolsBase, body, limit);
    expect(seen).toEqual(raw.pools.map(poolKey));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThan(limit * 2);
  });

  it("a malformed address raises HydricInvalidParamsError with the gateway's message", async () => {
    const error = await poolsSdk.liquidityPools.search({ tokensA: [{ chainId: 1, address: "0x123" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HydricInvalidParamsError);
    const raw = await postPoolSearch(poolsBase, { tokensA: [{ chainId: 1, address: "0x123" }] });
    expect(raw.body.error.code).toBe("INVALID_BLOCKCHAIN_ADDRESS");
    expect((error as Error).message).toBe(raw.body.error.message);
  });
});
