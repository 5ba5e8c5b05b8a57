/**
 * GET /v1/openapi.json against the real server's answers: every live response of every route, success and each error
 * code that HTTP can provoke, matches the documented schema of its operation and status, with the documented headers
 * (also on a gateway whose shared quota store cannot be reached). The document itself: openapi-document.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../src/api/errors.js";
import { addr, basicFixture, KEYS, NATIVE_ADDRESS, P } from "../support/fixtures.js";
import {
  getPool,
  postPoolSearch,
  postJson,
  postTokens,
  request,
  startWithFixtures,
  type Gateway,
  type HttpResponse,
} from "../support/gateway-process.js";
import { base, doc, useDocumentedGateway, expectResponseMatches, expectDocumented } from "../support/documented-gateway.js";

useDocumentedGateway();

// ------------------------------------------------------------------ live responses

interface LiveCase {
  name: string;
  method: string;
  template: string;
  status: number;
  code?: ErrorCode;
  send: () => Promise<HttpResponse>;
}

const POOLS = "/v1/pools/{chainId}/{poolAddress}";
const POOL_SEARCH = "/v1/pools/search";
const USDC1 = { chainId: 1, address: P.usdc1 };
/** An address no fixture pool has. */
const NO_POOL = "0x" + "ab".repeat(20);

const liveCases: LiveCase[] = [
  { name: "token list, defaults", method: "POST", template: "/v1/tokens", status: 200, send: () => postTokens(base, {}) },
  {
    name: "token list, every option",
    method: "POST",
    template: "/v1/tokens",
    status: 200,
    send: () =>
      postTokens(base, {
        config: { limit: 3, matchAllSymbols: true, orderBy: { field: "tvl", direction: "asc" } },
        filters: {
          chainIds: [1, 8453],
          minimumTotalValuePooledUsd: 0,
          minimumSwapsCount: 0,
          minimumSwapVolumeUsd: 0,
          ignoreWrappedNative: false,
        },
      }),
  },
  ...(
    [
      ["V2", 1, P.v2],
      ["V3", 1, P.v3],
      ["V4 (native token, no hook)", 1, P.v4Native],
      ["V4 (hook, no state view)", 1, P.v4Hooked],
      ["ALGEBRA (plugin)", 1, P.algebra],
      ["ALGEBRA (no plugin)", 1, P.algebraNoPlugin],
      ["SLIPSTREAM", 8453, P.slipstream],
      ["V3 on Base", 8453, P.v3Base],
      ["V4 on Unichain", 130, P.v4Unichain],
      ["upper-case address", 1, P.v3.toUpperCase()],
    ] as const
  ).map(([name, chainId, address]): LiveCase => ({
    name: `pool ${name}`,
    method: "GET",
    template: POOLS,
    status: 200,
    send: () => getPool(base, chainId, address),
  })),
  {
    name: "pool search, one token",
    method: "POST",
    template: POOL_SEARCH,
    status: 200,
    send: () => postPoolSearch(base, { tokensA: [USDC1] }),
  },
  {
    name: "pool search, baskets",
    method: "POST",
    template: POOL_SEARCH,
    status: 200,
    send: () =>
      postPoolSearch(base, { basketsA: [{ basketId: "usd-stablecoins" }], basketsB: [{ basketId: "ghost-basket", chainIds: [1] }] }),
  },
  {
    name: "pool search, a pair with the native rewrite and every option",
    method: "POST",
    template: POOL_SEARCH,
    status: 200,
    send: () =>
      postPoolSearch(base, {
        tokensA: [USDC1],
        tokensB: [{ chainId: 1, address: NATIVE_ADDRESS }],
        filters: {
          minimumTotalValueLockedUsd: 0,
          protocols: ["uniswap-v3", "uniswap-v4", "9lives"],
          blockedProtocols: ["uniswap-v2"],
          poolTypes: ["V3", "V4", "ALGEBRA"],
          blockedPoolTypes: ["SLIPSTREAM"],
        },
        config: {
          limit: 2,
          orderBy: { field: "yield", direction: "asc", timeframe: "7d" },
          parseWrappedToNative: "ALWAYS",
          useWrappedForNative: true,
        },
      }),
  },
  { name: "protocols", method: "GET", template: "/v1/protocols", status: 200, send: () => request(base, "/v1/protocols") },
  {
    name: "pool, gzip",
    method: "GET",
    template: POOLS,
    status: 200,
    send: () => getPool(base, 1, P.v3, { headers: { "accept-encoding": "gzip" } }),
  },
  {
    name: "pool, br",
    method: "GET",
    template: POOLS,
    status: 200,
    send: () => getPool(base, 1, P.v3, { headers: { "accept-encoding": "br" } }),
  },
  {
    name: "token list, gzip",
    method: "POST",
    template: "/v1/tokens",
    status: 200,
    send: () => postTokens(base, { config: { limit: 100 } }, { headers: { "accept-encoding": "gzip" } }),
  },
  {
    name: "pool, unchanged (If-None-Match)",
    method: "GET",
    template: POOLS,
    status: 304,
    send: async () => getPool(base, 1, P.v3, { headers: { "if-none-match": (await getPool(base, 1, P.v3)).headers.get("etag")! } }),
  },
  {
    name: "protocols, unchanged (*)",
    method: "GET",
    template: "/v1/protocols",
    status: 304,
    send: () => request(base, "/v1/protocols", { headers: { "if-none-match": "*" } }),
  },
  {
    name: "document, unchanged",
    method: "GET",
    template: "/v1/openapi.json",
    status: 304,
    send: async () =>
      request(base, "/v1/openapi.json", {
        key: null,
        headers: { "if-none-match": (await request(base, "/v1/openapi.json", { key: null })).headers.get("etag")! },
      }),
  },
  {
    name: "health, unchanged",
    method: "GET",
    template: "/health",
    status: 304,
    send: () => request(base, "/health", { key: null, headers: { "if-none-match": "*" } }),
  },
  {
    name: "pool from an allowed origin (CORS)",
    method: "GET",
    template: POOLS,
    status: 200,
    send: () => getPool(base, 1, P.v3, { headers: { origin: "https://app.example.com" } }),
  },
  { name: "health", method: "GET", template: "/health", status: 200, send: () => request(base, "/health", { key: null }) },
  { name: "ready", method: "GET", template: "/ready", status: 200, send: () => request(base, "/ready", { key: null }) },
  {
    name: "openapi",
    method: "GET",
    template: "/v1/openapi.json",
    status: 200,
    send: () => request(base, "/v1/openapi.json", { key: null }),
  },

  {
    name: "limit over 500",
    method: "POST",
    template: "/v1/tokens",
    status: 400,
    code: "VALIDATION_ERROR",
    send: () => postTokens(base, { config: { limit: 501 } }),
  },
  {
    name: "unknown property",
    method: "POST",
    template: "/v1/tokens",
    status: 400,
    code: "VALIDATION_ERROR",
    send: () => postTokens(base, { config: { foo: 1 } }),
  },
  {
    name: "body not an object",
    method: "POST",
    template: "/v1/tokens",
    status: 400,
    code: "VALIDATION_ERROR",
    send: () => postTokens(base, "[1]"),
  },
  {
    name: "path chainId with a leading zero",
    method: "GET",
    template: POOLS,
    status: 400,
    code: "VALIDATION_ERROR",
    send: () => getPool(base, "01", P.v3),
  },
  {
    name: "pool search without side A",
    method: "POST",
    template: POOL_SEARCH,
    status: 400,
    code: "VALIDATION_ERROR",
    send: () => postPoolSearch(base, { tokensB: [USDC1] }),
  },
  {
    name: "pool search, malformed addresses",
    method: "POST",
    template: POOL_SEARCH,
    status: 400,
    code: "INVALID_BLOCKCHAIN_ADDRESS",
    send: () => postPoolSearch(base, { tokensA: [USDC1, { chainId: 1, address: "0x12" }, { chainId: 1, address: 12 }] }),
  },
  {
    name: "pool search, a bad protocol id",
    method: "POST",
    template: POOL_SEARCH,
    status: 400,
    code: "INVALID_PROTOCOL_ID",
    send: () => postPoolSearch(base, { tokensA: [USDC1], filters: { protocols: ["Uniswap V3"] } }),
  },
  {
    name: "pool search, an unknown basket",
    method: "POST",
    template: POOL_SEARCH,
    status: 400,
    code: "INVALID_BASKET_ID",
    send: () => postPoolSearch(base, { basketsA: [{ basketId: "no-such-basket" }] }),
  },
  {
    name: "pool search, an unsupported chain",
    method: "POST",
    template: POOL_SEARCH,
    status: 400,
    code: "UNSUPPORTED_CHAIN_ID",
    send: () => postPoolSearch(base, { tokensA: [{ chainId: 10, address: P.usdc1 }] }),
  },
  {
    name: "pool search, a garbage cursor",
    method: "POST",
    template: POOL_SEARCH,
    status: 400,
    code: "INVALID_PAGINATION_CURSOR",
    send: () => postPoolSearch(base, { tokensA: [USDC1], config: { cursor: "bm90LWEtY3Vyc29y" } }),
  },
  {
    name: "pool search, a chain outside the key's chains",
    method: "POST",
    template: POOL_SEARCH,
    status: 403,
    code: "API_KEY_FORBIDDEN",
    send: () => postPoolSearch(base, { tokensA: [{ chainId: 8453, address: P.usdcBase }] }, { key: KEYS.chain1Only }),
  },
  {
    name: "pool search, an unloaded chain",
    method: "POST",
    template: POOL_SEARCH,
    status: 503,
    code: "CHAIN_DATA_UNAVAILABLE",
    send: () => postPoolSearch(base, { tokensA: [{ chainId: 999, address: P.usdc1 }] }),
  },
  {
    name: "syntax error",
    method: "POST",
    template: "/v1/tokens",
    status: 400,
    code: "MALFORMED_JSON",
    send: () => postTokens(base, '{"config":'),
  },
  { name: "empty body", method: "POST", template: "/v1/tokens", status: 400, code: "MALFORMED_JSON", send: () => postTokens(base, "") },
  {
    name: "unsupported chain in filters",
    method: "POST",
    template: "/v1/tokens",
    status: 400,
    code: "UNSUPPORTED_CHAIN_ID",
    send: () => postTokens(base, { filters: { chainIds: [1, 5] } }),
  },
  {
    name: "unsupported chain in the path",
    method: "GET",
    template: POOLS,
    status: 400,
    code: "UNSUPPORTED_CHAIN_ID",
    send: () => getPool(base, 5, P.v3),
  },
  {
    name: "invalid pool address",
    method: "GET",
    template: POOLS,
    status: 400,
    code: "INVALID_POOL_ADDRESS",
    send: () => getPool(base, 1, "0x1234"),
  },
  {
    name: "garbage cursor",
    method: "POST",
    template: "/v1/tokens",
    status: 400,
    code: "INVALID_PAGINATION_CURSOR",
    send: () => postTokens(base, { config: { cursor: "bm90LWEtY3Vyc29y" } }),
  },

  {
    name: "no key",
    method: "GET",
    template: "/v1/protocols",
    status: 401,
    code: "API_KEY_MISSING",
    send: () => request(base, "/v1/protocols", { key: null }),
  },
  {
    name: "no key, from an allowed origin (CORS)",
    method: "GET",
    template: "/v1/protocols",
    status: 401,
    code: "API_KEY_MISSING",
    send: () => request(base, "/v1/protocols", { key: null, headers: { origin: "https://app.example.com" } }),
  },
  {
    name: "another scheme",
    method: "POST",
    template: "/v1/tokens",
    status: 401,
    code: "API_KEY_INVALID",
    send: () => postTokens(base, {}, { headers: { Authorization: `Basic ${KEYS.active}` } }),
  },
  {
    name: "unknown key",
    method: "GET",
    template: POOLS,
    status: 401,
    code: "API_KEY_NOT_FOUND",
    send: () => getPool(base, 1, P.v3, { key: "lgw_nobody_0123456789abcdef" }),
  },
  {
    name: "disabled key",
    method: "GET",
    template: "/v1/protocols",
    status: 403,
    code: "API_KEY_DISABLED",
    send: () => request(base, "/v1/protocols", { key: KEYS.disabled }),
  },
  {
    name: "expired key",
    method: "POST",
    template: "/v1/tokens",
    status: 403,
    code: "API_KEY_EXPIRED",
    send: () => postTokens(base, {}, { key: KEYS.expired }),
  },
  {
    name: "route outside the key's routes",
    method: "POST",
    template: "/v1/tokens",
    status: 403,
    code: "API_KEY_FORBIDDEN",
    send: () => postTokens(base, {}, { key: KEYS.poolsOnly }),
  },
  {
    name: "chain outside the key's chains",
    method: "GET",
    template: POOLS,
    status: 403,
    code: "API_KEY_FORBIDDEN",
    send: () => getPool(base, 8453, P.slipstream, { key: KEYS.chain1Only }),
  },
  {
    name: "chain outside the key's chains (token list)",
    method: "POST",
    template: "/v1/tokens",
    status: 403,
    code: "API_KEY_FORBIDDEN",
    send: () => postTokens(base, { filters: { chainIds: [8453] } }, { key: KEYS.chain1Only }),
  },

  {
    name: "unknown pool",
    method: "GET",
    template: POOLS,
    status: 404,
    code: "LIQUIDITY_POOL_NOT_FOUND",
    send: () => getPool(base, 1, NO_POOL),
  },
  {
    name: "POST on protocols",
    method: "POST",
    template: "/v1/protocols",
    status: 405,
    code: "METHOD_NOT_ALLOWED",
    send: () => request(base, "/v1/protocols", { method: "POST" }),
  },
  {
    name: "GET on tokens",
    method: "GET",
    template: "/v1/tokens",
    status: 405,
    code: "METHOD_NOT_ALLOWED",
    send: () => request(base, "/v1/tokens", { key: null }),
  },
  {
    name: "DELETE on a pool",
    method: "DELETE",
    template: POOLS,
    status: 405,
    code: "METHOD_NOT_ALLOWED",
    send: () => request(base, `/v1/pools/1/${P.v3}`, { method: "DELETE" }),
  },
  {
    name: "POST on health",
    method: "POST",
    template: "/health",
    status: 405,
    code: "METHOD_NOT_ALLOWED",
    send: () => request(base, "/health", { method: "POST", key: null }),
  },
  {
    name: "PUT on ready",
    method: "PUT",
    template: "/ready",
    status: 405,
    code: "METHOD_NOT_ALLOWED",
    send: () => request(base, "/ready", { method: "PUT", key: null }),
  },
  {
    name: "POST on the document",
    method: "POST",
    template: "/v1/openapi.json",
    status: 405,
    code: "METHOD_NOT_ALLOWED",
    send: () => request(base, "/v1/openapi.json", { method: "POST", key: null }),
  },
  {
    name: "body over 64 KiB",
    method: "POST",
    template: "/v1/tokens",
    status: 413,
    code: "PAYLOAD_TOO_LARGE",
    send: () => postTokens(base, JSON.stringify({ config: { limit: 1 } }) + " ".repeat(70_000)),
  },
  {
    name: "text/plain body",
    method: "POST",
    template: "/v1/tokens",
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
    send: () => request(base, "/v1/tokens", { method: "POST", body: "{}", headers: { "Content-Type": "text/plain" } }),
  },
  {
    name: "no content type",
    method: "POST",
    template: "/v1/tokens",
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
    send: () => request(base, "/v1/tokens", { method: "POST", body: new TextEncoder().encode("{}") }),
  },
  {
    name: "unloaded chain (token list)",
    method: "POST",
    template: "/v1/tokens",
    status: 503,
    code: "CHAIN_DATA_UNAVAILABLE",
    send: () => postTokens(base, { filters: { chainIds: [999] } }),
  },
  ...tokenSurfaceCases(),
  ...liveDataCases(),
  {
    name: "unloaded chain (pool)",
    method: "GET",
    template: POOLS,
    status: 503,
    code: "CHAIN_DATA_UNAVAILABLE",
    send: () => getPool(base, 999, NO_POOL),
  },
];

/** GET /v1/changes and GET /v1/status (live.md §14-§15), and a 304 of an answer about one chain. */
function liveDataCases(): LiveCase[] {
  const CHANGES = "/v1/changes";
  const STATUS = "/v1/status";
  const get = (url: string, key?: string) => () => request(base, url, key === undefined ? {} : { key });
  const case_ = (name: string, template: string, status: number, send: () => Promise<HttpResponse>, code?: ErrorCode): LiveCase => ({
    name,
    method: "GET",
    template,
    status,
    send,
    ...(code === undefined ? {} : { code }),
  });
  return [
    case_("changes from no position", CHANGES, 200, get("/v1/changes?since=AQ&limit=3")),
    case_("changes of one chain, every parameter", CHANGES, 200, async () => {
      const first = await request(base, "/v1/changes?since=AQ&chainIds=1&limit=1");
      return request(base, `/v1/changes?since=AQ&chainIds=1&limit=2&cursor=${first.body.data.nextCursor}`);
    }),
    case_("changes: malformed position", CHANGES, 400, get("/v1/changes?since=AQAB"), "INVALID_POSITION"),
    case_("changes: no since", CHANGES, 400, get("/v1/changes"), "VALIDATION_ERROR"),
    case_("changes: unsupported chain", CHANGES, 400, get("/v1/changes?since=AQ&chainIds=5"), "UNSUPPORTED_CHAIN_ID"),
    case_("changes: foreign cursor", CHANGES, 400, get("/v1/changes?since=AQ&cursor=bm90LWEtY3Vyc29y"), "INVALID_PAGINATION_CURSOR"),
    case_("changes: unloaded chain", CHANGES, 503, get("/v1/changes?since=AQ&chainIds=999"), "CHAIN_DATA_UNAVAILABLE"),
    case_("changes: key without the stream group", CHANGES, 403, get("/v1/changes?since=AQ", KEYS.poolsOnly), "API_KEY_FORBIDDEN"),
    case_("status", STATUS, 200, get("/v1/status")),
    case_("status of a chain-restricted key", STATUS, 200, get("/v1/status", KEYS.chain1Only)),
    case_("status: unknown parameter", STATUS, 400, get("/v1/status?x=1"), "VALIDATION_ERROR"),
    case_("token on a chain: not modified", "/v1/tokens/{chainId}/{tokenAddress}", 304, async () => {
      const first = await request(base, `/v1/tokens/1/${P.usdc1}`);
      return request(base, `/v1/tokens/1/${P.usdc1}`, { headers: { "if-none-match": first.headers.get("etag")! } });
    }),
  ];
}

/** Every route of api-extended.md §8-§9: its successes and each error code HTTP can provoke. */
function tokenSurfaceCases(): LiveCase[] {
  const SEARCH = "/v1/tokens/search";
  const PRICES = "/v1/tokens/prices";
  const LIST = "/v1/tokens/{chainId}";
  const CHAIN_SEARCH = "/v1/tokens/{chainId}/search";
  const BY_ADDRESS = "/v1/tokens/{tokenAddress}";
  const TOKEN = "/v1/tokens/{chainId}/{tokenAddress}";
  const PRICE = "/v1/tokens/prices/{chainId}/{tokenAddress}/usd";
  const BASKETS = "/v1/tokens/baskets";
  const BASKET = "/v1/tokens/baskets/{basketId}";
  const CHAIN_BASKET = "/v1/tokens/baskets/{chainId}/{basketId}";
  const get = (url: string, key?: string) => () => request(base, url, key === undefined ? {} : { key });
  const post = (url: string, body: unknown, key?: string) => () => postJson(base, url, body, key === undefined ? {} : { key });
  const ok = (name: string, method: string, template: string, send: () => Promise<HttpResponse>): LiveCase => ({
    name,
    method,
    template,
    status: 200,
    send,
  });
  const fail = (
    name: string,
    method: string,
    template: string,
    status: number,
    code: ErrorCode,
    send: () => Promise<HttpResponse>,
  ): LiveCase => ({ name, method, template, status, code, send });
  return [
    ok("search", "POST", SEARCH, post("/v1/tokens/search", { search: "usd" })),
    ok(
      "search by relevance, every option",
      "POST",
      SEARCH,
      post("/v1/tokens/search", {
        search: "US",
        config: { limit: 1, matchAllSymbols: true, orderBy: { field: "relevance", direction: "desc" } },
        filters: { chainIds: [1, 8453], minimumTotalValuePooledUsd: 0, ignoreWrappedNative: true },
      }),
    ),
    ok("search matching nothing", "POST", SEARCH, post("/v1/tokens/search", { search: "zzzz" })),
    fail("search: empty term", "POST", SEARCH, 400, "VALIDATION_ERROR", post("/v1/tokens/search", { search: " " })),
    fail(
      "search: unsupported chain",
      "POST",
      SEARCH,
      400,
      "UNSUPPORTED_CHAIN_ID",
      post("/v1/tokens/search", { search: "u", filters: { chainIds: [5] } }),
    ),
    fail(
      "search: foreign cursor",
      "POST",
      SEARCH,
      400,
      "INVALID_PAGINATION_CURSOR",
      post("/v1/tokens/search", { search: "u", config: { cursor: "bm90LWEtY3Vyc29y" } }),
    ),
    fail(
      "search: chain outside the key's chains",
      "POST",
      SEARCH,
      403,
      "API_KEY_FORBIDDEN",
      post("/v1/tokens/search", { search: "u", filters: { chainIds: [8453] } }, KEYS.chain1Only),
    ),
    fail(
      "search: unloaded chain",
      "POST",
      SEARCH,
      503,
      "CHAIN_DATA_UNAVAILABLE",
      post("/v1/tokens/search", { search: "u", filters: { chainIds: [999] } }),
    ),
    fail("search: GET", "GET", SEARCH, 405, "METHOD_NOT_ALLOWED", get("/v1/tokens/search")),
    ok(
      "prices",
      "POST",
      PRICES,
      post("/v1/tokens/prices", {
        tokens: [
          { chainId: 1, address: P.usdc1 },
          { chainId: 8453, address: addr("e0e0") },
        ],
      }),
    ),
    fail("prices: empty list", "POST", PRICES, 400, "VALIDATION_ERROR", post("/v1/tokens/prices", { tokens: [] })),
    fail(
      "prices: malformed addresses",
      "POST",
      PRICES,
      400,
      "INVALID_BLOCKCHAIN_ADDRESS",
      post("/v1/tokens/prices", {
        tokens: [
          { chainId: 1, address: "0x12" },
          { chainId: 1, address: 7 },
        ],
      }),
    ),
    fail(
      "prices: unsupported chain",
      "POST",
      PRICES,
      400,
      "UNSUPPORTED_CHAIN_ID",
      post("/v1/tokens/prices", { tokens: [{ chainId: 5, address: P.usdc1 }] }),
    ),
    fail(
      "prices: unloaded chain",
      "POST",
      PRICES,
      503,
      "CHAIN_DATA_UNAVAILABLE",
      post("/v1/tokens/prices", { tokens: [{ chainId: 999, address: P.usdc1 }] }),
    ),
    ok("single-chain list", "POST", LIST, post("/v1/tokens/1", {})),
    ok(
      "single-chain list, every option",
      "POST",
      LIST,
      post("/v1/tokens/8453", {
        config: { limit: 1, orderBy: { field: "tvl", direction: "asc" } },
        filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0, ignoreWrappedNative: false },
      }),
    ),
    fail(
      "single-chain list: unknown property",
      "POST",
      LIST,
      400,
      "VALIDATION_ERROR",
      post("/v1/tokens/1", { config: { matchAllSymbols: true } }),
    ),
    fail("single-chain list: unsupported chain", "POST", LIST, 400, "UNSUPPORTED_CHAIN_ID", post("/v1/tokens/5", {})),
    fail(
      "single-chain list: foreign cursor",
      "POST",
      LIST,
      400,
      "INVALID_PAGINATION_CURSOR",
      post("/v1/tokens/1", { config: { cursor: "bm90LWEtY3Vyc29y" } }),
    ),
    fail("single-chain list: unloaded chain", "POST", LIST, 503, "CHAIN_DATA_UNAVAILABLE", post("/v1/tokens/999", {})),
    ok(
      "single-chain search",
      "POST",
      CHAIN_SEARCH,
      post("/v1/tokens/1/search", { search: "usd", config: { orderBy: { field: "relevance" } } }),
    ),
    fail("single-chain search: no term", "POST", CHAIN_SEARCH, 400, "VALIDATION_ERROR", post("/v1/tokens/1/search", {})),
    fail(
      "single-chain search: unloaded chain",
      "POST",
      CHAIN_SEARCH,
      503,
      "CHAIN_DATA_UNAVAILABLE",
      post("/v1/tokens/999/search", { search: "u" }),
    ),
    ok("by address", "GET", BY_ADDRESS, get(`/v1/tokens/${P.usdc1}`)),
    ok("by address, chains listed, none holding it", "GET", BY_ADDRESS, get(`/v1/tokens/${P.usdc1}?chainIds[]=8453&chainIds[]=130`)),
    fail("by address: malformed", "GET", BY_ADDRESS, 400, "VALIDATION_ERROR", get("/v1/tokens/0x12")),
    fail("by address: unsupported chain", "GET", BY_ADDRESS, 400, "UNSUPPORTED_CHAIN_ID", get(`/v1/tokens/${P.usdc1}?chainIds=5`)),
    fail("by address: unloaded chain", "GET", BY_ADDRESS, 503, "CHAIN_DATA_UNAVAILABLE", get(`/v1/tokens/${P.usdc1}?chainIds=999`)),
    ok("token on a chain", "GET", TOKEN, get(`/v1/tokens/1/${P.usdc1.toUpperCase().replace("0X", "0x")}`)),
    fail("token on a chain: unknown", "GET", TOKEN, 404, "TOKEN_NOT_FOUND", get(`/v1/tokens/8453/${P.usdc1}`)),
    fail("token on a chain: unknown query parameter", "GET", TOKEN, 400, "VALIDATION_ERROR", get(`/v1/tokens/1/${P.usdc1}?chainIds=1`)),
    fail("token on a chain: unsupported chain", "GET", TOKEN, 400, "UNSUPPORTED_CHAIN_ID", get(`/v1/tokens/5/${P.usdc1}`)),
    fail("token on a chain: unloaded chain", "GET", TOKEN, 503, "CHAIN_DATA_UNAVAILABLE", get(`/v1/tokens/999/${P.usdc1}`)),
    fail(
      "token on a chain: key restricted to pools",
      "GET",
      TOKEN,
      403,
      "API_KEY_FORBIDDEN",
      get(`/v1/tokens/1/${P.usdc1}`, KEYS.poolsOnly),
    ),
    ok("price", "GET", PRICE, get(`/v1/tokens/prices/1/${P.usdc1}/usd`)),
    ok("price of the zero address", "GET", PRICE, get(`/v1/tokens/prices/1/${NATIVE_ADDRESS}/usd`)),
    fail("price: unknown", "GET", PRICE, 404, "TOKEN_NOT_FOUND", get(`/v1/tokens/prices/1/${addr("e0e0")}/usd`)),
    fail("price: malformed address", "GET", PRICE, 400, "VALIDATION_ERROR", get("/v1/tokens/prices/1/0x12/usd")),
    fail("price: unloaded chain", "GET", PRICE, 503, "CHAIN_DATA_UNAVAILABLE", get(`/v1/tokens/prices/999/${P.usdc1}/usd`)),
    fail("prices: GET", "GET", PRICES, 405, "METHOD_NOT_ALLOWED", get("/v1/tokens/prices")),
    ok("baskets", "GET", BASKETS, get("/v1/tokens/baskets")),
    ok("baskets, chains and ids", "GET", BASKETS, get("/v1/tokens/baskets?chainIds=1,8453&basketIds=usd-stablecoins")),
    fail("baskets: unknown parameter", "GET", BASKETS, 400, "VALIDATION_ERROR", get("/v1/tokens/baskets?limit=5")),
    fail("baskets: unsupported chain", "GET", BASKETS, 400, "UNSUPPORTED_CHAIN_ID", get("/v1/tokens/baskets?chainIds=5")),
    fail("baskets: unknown id", "GET", BASKETS, 400, "INVALID_BASKET_ID", get("/v1/tokens/baskets?basketIds=nope")),
    fail("baskets: unloaded chain", "GET", BASKETS, 503, "CHAIN_DATA_UNAVAILABLE", get("/v1/tokens/baskets?chainIds=999")),
    fail("baskets: POST", "POST", BASKETS, 405, "METHOD_NOT_ALLOWED", post("/v1/tokens/baskets", {})),
    ok("basket", "GET", BASKET, get("/v1/tokens/baskets/usd-stablecoins")),
    fail("basket: unknown id", "GET", BASKET, 400, "INVALID_BASKET_ID", get("/v1/tokens/baskets/nope")),
    fail("basket: nothing in scope", "GET", BASKET, 404, "TOKEN_BASKET_NOT_FOUND", get("/v1/tokens/baskets/ghost-basket?chainIds=8453")),
    fail("basket: unloaded chain", "GET", BASKET, 503, "CHAIN_DATA_UNAVAILABLE", get("/v1/tokens/baskets/usd-stablecoins?chainIds=999")),
    ok("basket on a chain", "GET", CHAIN_BASKET, get("/v1/tokens/baskets/8453/usd-stablecoins")),
    fail(
      "basket on a chain: nothing there",
      "GET",
      CHAIN_BASKET,
      404,
      "TOKEN_BASKET_NOT_FOUND",
      get("/v1/tokens/baskets/8453/ghost-basket"),
    ),
    fail(
      "basket on a chain: chain id with a leading zero",
      "GET",
      CHAIN_BASKET,
      400,
      "VALIDATION_ERROR",
      get("/v1/tokens/baskets/01/usd-stablecoins"),
    ),
    fail(
      "basket on a chain: unsupported chain",
      "GET",
      CHAIN_BASKET,
      400,
      "UNSUPPORTED_CHAIN_ID",
      get("/v1/tokens/baskets/5/usd-stablecoins"),
    ),
    fail(
      "basket on a chain: unloaded chain",
      "GET",
      CHAIN_BASKET,
      503,
      "CHAIN_DATA_UNAVAILABLE",
      get("/v1/tokens/baskets/999/usd-stablecoins"),
    ),
  ];
}

describe("live responses match the document", () => {
  for (const c of liveCases) {
    it(`${c.name}: ${c.method} ${c.template} → ${c.status}${c.code ? ` ${c.code}` : ""}`, async () => {
      const res = await c.send();
      expect(res.status, res.text.slice(0, 500)).toBe(c.status);
      if (c.code !== undefined) expect(res.body.error.code).toBe(c.code);
      expectDocumented(c.method, c.template, res);
    });
  }

  it("the new transport headers are sent as documented: ETag, Cache-Control, Vary, Content-Encoding, CORS", async () => {
    const res = await getPool(base, 1, P.v3, { headers: { origin: "https://app.example.com", "accept-encoding": "gzip" } });
    for (const name of [
      "etag",
      "cache-control",
      "vary",
      "content-encoding",
      "access-control-allow-origin",
      "access-control-expose-headers",
    ]) {
      expect(res.headers.get(name), name).not.toBeNull();
    }
    expectDocumented("GET", POOLS, res);
    const notModified = await getPool(base, 1, P.v3, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(notModified.status).toBe(304);
    expect(doc.paths[POOLS].get.responses["304"].headers.ETag.required).toBe(true);
  });

  it("a chosen trace id is echoed", async () => {
    const res = await postTokens(base, { config: { limit: 1 } }, { headers: { "x-trace-id": "partner.trace_01-A" } });
    expectDocumented("POST", "/v1/tokens", res);
    expect(res.headers.get("x-trace-id")).toBe("partner.trace_01-A");
    expect(res.body.traceId).toBe("partner.trace_01-A");
  });

  it("an unknown path → 404 ROUTE_NOT_FOUND, as components.responses.RouteNotFound", async () => {
    for (const res of [await request(base, "/v1/nope", { key: null }), await request(base, "/v1/pools/1", { method: "POST" })]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("ROUTE_NOT_FOUND");
      expectResponseMatches(doc.components.responses.RouteNotFound, res, "unknown path");
    }
  });

  it("a key over its quota → 429 RATE_LIMIT_EXCEEDED with Retry-After", async () => {
    // 3 requests per 60 s window: at most one window boundary can pass within these attempts.
    let res: HttpResponse | undefined;
    for (let attempt = 0; attempt < 8; attempt++) {
      res = await request(base, "/v1/protocols", { key: KEYS.rateLimited });
      expectDocumented("GET", "/v1/protocols", res);
      if (res.status === 429) break;
    }
    expect(res!.status).toBe(429);
    expect(res!.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(Number(res!.headers.get("retry-after"))).toBe(res!.body.error.metadata.retryAfterSeconds);
  });
});

describe("live responses of a gateway whose shared quota store cannot be reached (QUOTA_STORE=redis, QUOTA_FAILURE=closed)", () => {
  let closed: Gateway;
  beforeAll(async () => {
    // Port 1 on the loopback: nothing listens there, so every connection attempt is refused.
    closed = await startWithFixtures(basicFixture(), undefined, {
      QUOTA_STORE: "redis",
      REDIS_URL: "redis://127.0.0.1:1",
      QUOTA_FAILURE: "closed",
    });
  });
  afterAll(async () => {
    await closed?.stop();
  });

  it("keyed routes answer 503 QUOTA_STORE_UNAVAILABLE as documented", async () => {
    const cases: Array<[string, string, () => Promise<HttpResponse>]> = [
      ["GET", "/v1/protocols", () => request(closed.baseUrl, "/v1/protocols")],
      ["GET", POOLS, () => getPool(closed.baseUrl, 1, P.v3)],
      ["POST", "/v1/tokens", () => postTokens(closed.baseUrl, {})],
    ];
    for (const [method, template, send] of cases) {
      const res = await send();
      expect(res.status, res.text.slice(0, 300)).toBe(503);
      expect(res.body.error.code).toBe("QUOTA_STORE_UNAVAILABLE");
      expectDocumented(method, template, res);
    }
  });

  it("/ready answers 503 with the quota store's state, as documented", async () => {
    const res = await request(closed.baseUrl, "/ready", { key: null });
    expect(res.status).toBe(503);
    expect(res.body.quotaStore).toEqual({ kind: "redis", state: "unavailable", onFailure: "closed" });
    expectDocumented("GET", "/ready", res);
  });
});
