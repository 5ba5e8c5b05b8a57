/**
 * The official SDK's token and basket methods (`@hydric/gateway`: multichainTokens.search,
 * singleChainTokens.list/search, tokenBaskets.list/getMultiChainById/getSingleChainById) pointed at
 * this gateway with `baseUrl`: each returns what raw HTTP returns for the same request (the SDK's
 * own query form for baskets: repeated keys), cursor walks through the SDK visit every entry once,
 * and 400/404 answers come out as the SDK's error classes.
 */
import { HydricGateway, HydricInvalidParamsError, HydricNotFoundError } from "@hydric/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEYS } from "../support/fixtures.js";
import { expectSuccess, postJson, request, startWithBaskets, walkPages, type Gateway } from "../support/gateway-process.js";
import { tokenSurfaceBaskets, tokenSurfaceFixture } from "../support/token-surface-fixture.js";

let gw: Gateway;
let base: string;
let sdk: HydricGateway;

beforeAll(async () => {
  gw = await startWithBaskets(tokenSurfaceFixture(), tokenSurfaceBaskets());
  base = gw.baseUrl;
  sdk = new HydricGateway({ apiKey: KEYS.active, baseUrl: base });
});

afterAll(async () => {
  await gw?.stop();
});

const get = async (path: string) => expectSuccess(await request(base, path));
const post = async (path: string, body: unknown) => expectSuccess(await postJson(base, path, body));

describe("multichainTokens.search()", () => {
  it("returns what POST /v1/tokens/search returns, filters included", async () => {
    const params = {
      search: "usd",
      config: { limit: 3 },
      filters: { chainIds: [1, 8453] as (1 | 8453)[], minimumTotalValuePooledUsd: 1_000 },
    };
    const viaSdk = await sdk.multichainTokens.search(params);
    expect(viaSdk).toEqual(await post("/v1/tokens/search", params));
    expect(viaSdk.tokens.length).toBe(3);
    expect(viaSdk.filters).toEqual({
      chainIds: [1, 8453],
      minimumTotalValuePooledUsd: 1_000,
      minimumSwapsCount: 0,
      minimumSwapVolumeUsd: 0,
      ignoreWrappedNative: false,
    });
  });

  it("a cursor walk through the SDK visits every entry once, like a raw walk (relevance order too)", async () => {
    for (const config of [{}, { orderBy: { field: "relevance" } }]) {
      const seen: unknown[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 100; page++) {
        const pageConfig: Record<string, unknown> = { ...config, limit: 2, ...(cursor === null ? {} : { cursor }) };
        const result = await sdk.multichainTokens.search({ search: "u", config: pageConfig as never });
        seen.push(...result.tokens);
        // The SDK types nextCursor as an object; the gateway sends the string cursor of the spec.
        cursor = result.nextCursor as unknown as string | null;
        if (cursor === null) break;
      }
      expect(cursor).toBeNull();
      const raw = await walkPages(base, "/v1/tokens/search", { search: "u", config }, 500);
      expect(seen).toEqual(raw.tokens);
      expect(seen.length).toBeGreaterThan(4);
    }
  });

  it("an empty term raises HydricInvalidParamsError", async () => {
    const error = await sdk.multichainTokens.search({ search: "  " }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HydricInvalidParamsError);
    expect((error as Error).message).toMatch(/search/);
  });
});

describe("singleChainTokens", () => {
  it("list() returns what POST /v1/tokens/{chainId} returns, with and without parameters", async () => {
    expect(await sdk.singleChainTokens.list(1)).toEqual(await post("/v1/tokens/1", {}));
    const params = {
      config: { limit: 4, orderBy: { field: "tvl" as const, direction: "asc" as const } },
      filters: { minimumTotalValuePooledUsd: 15_000, ignoreWrappedNative: false },
    };
    const viaSdk = await sdk.singleChainTokens.list(8453, params);
    expect(viaSdk).toEqual(await post("/v1/tokens/8453", params));
    expect(viaSdk.tokens.length).toBe(4);
  });

  it("search() returns what POST /v1/tokens/{chainId}/search returns", async () => {
    const params = { search: "usd", config: { limit: 5 } };
    const viaSdk = await sdk.singleChainTokens.search(1, params);
    expect(viaSdk).toEqual(await post("/v1/tokens/1/search", params));
    expect(viaSdk.filters).toEqual({
      minimumTotalValuePooledUsd: 0,
      minimumSwapsCount: 0,
      minimumSwapVolumeUsd: 0,
      ignoreWrappedNative: false,
    });
  });

  it("cursor walks through the SDK (list and search) visit every token once", async () => {
    const walks: [string, (cursor: string | null) => Promise<{ tokens: unknown[]; nextCursor: unknown }>][] = [
      ["/v1/tokens/1", (cursor) => sdk.singleChainTokens.list(1, { config: { limit: 3, ...(cursor === null ? {} : { cursor }) } })],
      [
        "/v1/tokens/1/search",
        (cursor) => sdk.singleChainTokens.search(1, { search: "u", config: { limit: 3, ...(cursor === null ? {} : { cursor }) } }),
      ],
    ];
    for (const [path, next] of walks) {
      const seen: unknown[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 100; page++) {
        const result = await next(cursor);
        seen.push(...result.tokens);
        cursor = result.nextCursor as string | null;
        if (cursor === null) break;
      }
      const body = path.endsWith("search") ? { search: "u" } : {};
      expect(seen, path).toEqual((await walkPages(base, path, body, 500)).tokens);
      expect(seen.length).toBeGreaterThan(6);
    }
  });

  it("an unsupported chain raises HydricInvalidParamsError", async () => {
    const error = await sdk.singleChainTokens.list(5 as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HydricInvalidParamsError);
  });
});

describe("tokenBaskets", () => {
  it("list() returns what GET /v1/tokens/baskets returns, with chainIds and basketIds in the SDK's query form", async () => {
    expect(await sdk.tokenBaskets.list()).toEqual(await get("/v1/tokens/baskets"));
    const viaSdk = await sdk.tokenBaskets.list({ chainIds: [8453, 1], basketIds: ["usd-stablecoins", "eth-pegged-tokens"] });
    expect(viaSdk).toEqual(await get("/v1/tokens/baskets?chainIds=1,8453&basketIds=eth-pegged-tokens,usd-stablecoins"));
    expect(viaSdk.baskets.map((b) => b.id)).toEqual(["eth-pegged-tokens", "usd-stablecoins"]);
  });

  it("getMultiChainById() returns what GET /v1/tokens/baskets/{basketId} returns", async () => {
    expect(await sdk.tokenBaskets.getMultiChainById({ basketId: "usd-stablecoins" })).toEqual(
      await get("/v1/tokens/baskets/usd-stablecoins"),
    );
    const viaSdk = await sdk.tokenBaskets.getMultiChainById({ basketId: "usd-stablecoins", chainIds: [130, 1] });
    expect(viaSdk).toEqual(await get("/v1/tokens/baskets/usd-stablecoins?chainIds[]=1&chainIds[]=130"));
    expect(viaSdk.basket.chainIds).toEqual([1, 130]);
  });

  it("getSingleChainById() returns what GET /v1/tokens/baskets/{chainId}/{basketId} returns", async () => {
    const viaSdk = await sdk.tokenBaskets.getSingleChainById({ chainId: 8453, basketId: "eth-pegged-tokens" });
    expect(viaSdk).toEqual(await get("/v1/tokens/baskets/8453/eth-pegged-tokens"));
    expect(viaSdk.basket.chainIds).toEqual([8453]);
  });

  it("an unknown basket raises HydricInvalidParamsError; a basket without tokens in scope HydricNotFoundError", async () => {
    const unknown = await sdk.tokenBaskets.getMultiChainById({ basketId: "btc-pegged-tokens" }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(HydricInvalidParamsError);
    const listed = await sdk.tokenBaskets.list({ basketIds: ["btc-pegged-tokens"] }).catch((e: unknown) => e);
    expect(listed).toBeInstanceOf(HydricInvalidParamsError);
    const none = await sdk.tokenBaskets.getSingleChainById({ chainId: 130, basketId: "hype-pegged-tokens" }).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(HydricNotFoundError);
    expect((none as Error).message).toMatch(/hype-pegged-tokens/);
  });
});
