/**
 * The common rules of every /v1/tokens… route (api-extended.md §7, §11), route by route, against
 * the real server on test/support/token-surface-fixture.ts with its baskets file.
 *
 * Rule → test:
 *  C1  `tokens` covers every /v1/tokens… route: a key restricted to `pools` gets 403 on each ......... "route restrictions"
 *  C2  a path or body or query naming a chain the key may not use → 403 API_KEY_FORBIDDEN, on each
 *      route that names chains; a request naming no chain covers the key's allowed chains .............. "chain restrictions"
 *  C3  path chainId: base 10 without sign or leading zeros (VALIDATION_ERROR), supported
 *      (UNSUPPORTED_CHAIN_ID), loaded (503), on each route with one ...................................... "path chainId"
 *  C4  path token address: 0x + 40 hex any case, answered lowercase; else VALIDATION_ERROR
 *      `tokenAddress` / `isEthereumAddress`, on each route with one ..................................... "path tokenAddress"
 *  C5  GET query lists: a=1,2 / a=1&a=2 / a[]=1 alike; unknown query parameters → VALIDATION_ERROR
 *      `whitelist` naming the parameter, on every GET route under /v1/tokens ............................. "query parameters"
 *  C6  every cursor list: a cursor of one route is foreign to every other route .......................... "cursors across routes"
 *  C7  authentication and quotas as on every route (no key → 401; the rate-limit headers) ................. "access"
 * Cursors across snapshot swaps: token-surface-swap.test.ts. Error titles: every expectError checks them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../src/http/route-table.js";
import { KEYS } from "../support/fixtures.js";
import {
  expectError,
  expectSuccess,
  expectValidation,
  request,
  startWithBaskets,
  type Gateway,
  type HttpResponse,
} from "../support/gateway-process.js";
import { TS, tokenSurfaceBaskets, tokenSurfaceFixture } from "../support/token-surface-fixture.js";

let gw: Gateway;
let base: string;

beforeAll(async () => {
  gw = await startWithBaskets(tokenSurfaceFixture(), tokenSurfaceBaskets());
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

interface Call {
  route: string;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
}

function send(call: Call, key?: string | null): Promise<HttpResponse> {
  return request(base, call.path, {
    method: call.method,
    key,
    headers: call.method === "POST" ? { "Content-Type": "application/json" } : {},
    body: call.method === "POST" ? JSON.stringify(call.body ?? {}) : undefined,
  });
}

/** One valid call of every route under /v1/tokens. */
const CALLS: Call[] = [
  { route: "tokens.list", method: "POST", path: "/v1/tokens", body: {} },
  { route: "tokens.search", method: "POST", path: "/v1/tokens/search", body: { search: "usd" } },
  { route: "tokens.prices", method: "POST", path: "/v1/tokens/prices", body: { tokens: [{ chainId: 1, address: TS.usdc1 }] } },
  { route: "tokens.baskets", method: "GET", path: "/v1/tokens/baskets" },
  { route: "tokens.basket", method: "GET", path: "/v1/tokens/baskets/usd-stablecoins" },
  { route: "tokens.chainBasket", method: "GET", path: "/v1/tokens/baskets/1/usd-stablecoins" },
  { route: "tokens.price", method: "GET", path: `/v1/tokens/prices/1/${TS.usdc1}/usd` },
  { route: "tokens.chainList", method: "POST", path: "/v1/tokens/1", body: {} },
  { route: "tokens.byAddress", method: "GET", path: `/v1/tokens/${TS.usdc1}` },
  { route: "tokens.chainSearch", method: "POST", path: "/v1/tokens/1/search", body: { search: "usd" } },
  { route: "tokens.chainToken", method: "GET", path: `/v1/tokens/1/${TS.usdc1}` },
];

describe("route restrictions (C1)", () => {
  it("the calls cover every route of the route table under /v1/tokens", () => {
    expect(CALLS.map((c) => c.route).sort()).toEqual(
      ROUTES.filter((r) => r.path.startsWith("/v1/tokens"))
        .map((r) => r.name)
        .sort(),
    );
    expect(ROUTES.filter((r) => r.path.startsWith("/v1/tokens")).every((r) => r.access === "tokens")).toBe(true);
  });

  for (const call of CALLS) {
    it(`${call.method} ${call.path}: 200 for a key with every route, 403 for a key restricted to pools`, async () => {
      expectSuccess(await send(call));
      const err = expectError(await send(call, KEYS.poolsOnly), 403, "API_KEY_FORBIDDEN");
      expect(err.metadata).toEqual({ route: "tokens", allowedRoutes: ["pools"] });
    });
  }
});

describe("chain restrictions (C2)", () => {
  const forbidden: Call[] = [
    { route: "tokens.list", method: "POST", path: "/v1/tokens", body: { filters: { chainIds: [8453] } } },
    { route: "tokens.search", method: "POST", path: "/v1/tokens/search", body: { search: "usd", filters: { chainIds: [1, 8453] } } },
    {
      route: "tokens.prices",
      method: "POST",
      path: "/v1/tokens/prices",
      body: {
        tokens: [
          { chainId: 1, address: TS.usdc1 },
          { chainId: 8453, address: TS.usdc8453 },
        ],
      },
    },
    { route: "tokens.baskets", method: "GET", path: "/v1/tokens/baskets?chainIds=8453" },
    { route: "tokens.basket", method: "GET", path: "/v1/tokens/baskets/usd-stablecoins?chainIds=1,8453" },
    { route: "tokens.chainBasket", method: "GET", path: "/v1/tokens/baskets/8453/usd-stablecoins" },
    { route: "tokens.price", method: "GET", path: `/v1/tokens/prices/8453/${TS.usdc8453}/usd` },
    { route: "tokens.chainList", method: "POST", path: "/v1/tokens/8453", body: {} },
    { route: "tokens.byAddress", method: "GET", path: `/v1/tokens/${TS.shared}?chainIds=8453` },
    { route: "tokens.chainSearch", method: "POST", path: "/v1/tokens/8453/search", body: { search: "usd" } },
    { route: "tokens.chainToken", method: "GET", path: `/v1/tokens/8453/${TS.usdc8453}` },
  ];

  it("covers every route", () => {
    expect(forbidden.map((c) => c.route).sort()).toEqual(CALLS.map((c) => c.route).sort());
  });

  for (const call of forbidden) {
    it(`${call.method} ${call.path}: 403 for a key restricted to chain 1, 200 for a key with every chain`, async () => {
      const err = expectError(await send(call, KEYS.chain1Only), 403, "API_KEY_FORBIDDEN");
      expect(err.metadata).toEqual({ chainId: 8453, allowedChainIds: [1] });
      expectSuccess(await send(call));
    });
  }

  it("a request naming no chain covers the key's allowed chains", async () => {
    const key = KEYS.chain1Only;
    const searched = expectSuccess(await send({ route: "", method: "POST", path: "/v1/tokens/search", body: { search: "usdc" } }, key));
    expect(searched.filters.chainIds).toEqual([1]);
    expect(searched.tokens[0].chainIds).toEqual([1]);
    expect(
      expectSuccess(await send({ route: "", method: "POST", path: "/v1/tokens", body: { config: { limit: 500 } } }, key)).tokens.every(
        (t: { chainIds: number[] }) => t.chainIds.join() === "1",
      ),
    ).toBe(true);
    expect(
      expectSuccess(await send({ route: "", method: "GET", path: `/v1/tokens/${TS.shared}` }, key)).tokens.map(
        (t: { chainId: number }) => t.chainId,
      ),
    ).toEqual([1]);
    expect(
      expectSuccess(await send({ route: "", method: "GET", path: "/v1/tokens/baskets/usd-stablecoins" }, key)).basket.chainIds,
    ).toEqual([1]);
  });
});

describe("path chainId (C3)", () => {
  const withChain = (chain: string): Call[] => [
    { route: "tokens.chainList", method: "POST", path: `/v1/tokens/${chain}`, body: {} },
    { route: "tokens.chainSearch", method: "POST", path: `/v1/tokens/${chain}/search`, body: { search: "usd" } },
    { route: "tokens.chainToken", method: "GET", path: `/v1/tokens/${chain}/${TS.usdc1}` },
    { route: "tokens.price", method: "GET", path: `/v1/tokens/prices/${chain}/${TS.usdc1}/usd` },
    { route: "tokens.chainBasket", method: "GET", path: `/v1/tokens/baskets/${chain}/usd-stablecoins` },
  ];

  it("a leading zero or a sign is a VALIDATION_ERROR on chainId", async () => {
    for (const text of ["01", "+1", "1.0"])
      for (const call of withChain(text)) expectValidation(await send(call), "chainId", "isInt", text);
  });

  it("an unsupported chain is UNSUPPORTED_CHAIN_ID; a supported one never loaded is 503", async () => {
    for (const call of withChain("5"))
      expect(expectError(await send(call), 400, "UNSUPPORTED_CHAIN_ID").metadata).toMatchObject({ chainId: 5, unsupportedIds: [5] });
    for (const call of withChain("999")) expectError(await send(call), 503, "CHAIN_DATA_UNAVAILABLE");
  });
});

describe("path tokenAddress (C4)", () => {
  const withAddress = (address: string): Call[] => [
    { route: "tokens.byAddress", method: "GET", path: `/v1/tokens/${address}` },
    { route: "tokens.chainToken", method: "GET", path: `/v1/tokens/1/${address}` },
    { route: "tokens.price", method: "GET", path: `/v1/tokens/prices/1/${address}/usd` },
  ];

  it("malformed addresses are a VALIDATION_ERROR on tokenAddress (isEthereumAddress), the value as sent", async () => {
    for (const address of [
      "0x1234",
      TS.usdc1.slice(0, -1),
      TS.usdc1 + "0",
      TS.usdc1.slice(2) + "00",
      "0x" + "g".repeat(40),
      "0x" + "a".repeat(64),
    ]) {
      for (const call of withAddress(address)) expectValidation(await send(call), "tokenAddress", "isEthereumAddress", address);
    }
  });

  it("any letter case is accepted and answered in lowercase", async () => {
    for (const address of [TS.usdc1.toUpperCase().replace("0X", "0x"), "0X" + TS.usdc1.slice(2).toUpperCase()]) {
      const calls = withAddress(address);
      expect(expectSuccess(await send(calls[0])).tokens[0].address).toBe(TS.usdc1);
      expect(expectSuccess(await send(calls[1])).token.address).toBe(TS.usdc1);
      expect(expectSuccess(await send(calls[2]))).toEqual({ price: 1 });
    }
  });
});

describe("query parameters (C5)", () => {
  const GETS = CALLS.filter((c) => c.method === "GET");

  it("an unknown parameter is a VALIDATION_ERROR (whitelist) naming it, on every GET route", async () => {
    for (const call of GETS) {
      for (const [query, property] of [
        ["foo=1", "foo"],
        ["foo[]=1&foo[]=2", "foo"],
        ["limit=5", "limit"],
        ["__proto__=1", "__proto__"],
        ["chainid=1", "chainid"],
      ] as const) {
        const sep = call.path.includes("?") ? "&" : "?";
        expectValidation(await send({ ...call, path: `${call.path}${sep}${query}` }), property, "whitelist");
      }
    }
  });

  it("routes without a chainIds parameter refuse it", async () => {
    for (const call of GETS.filter((c) => ["tokens.chainBasket", "tokens.price", "tokens.chainToken"].includes(c.route))) {
      expectValidation(await send({ ...call, path: `${call.path}?chainIds=1` }), "chainIds", "whitelist");
    }
  });

  it("list forms a=1,2 / a=1&a=2 / a[]=1&a[]=2 (and mixed) are the same request", async () => {
    for (const call of GETS.filter((c) => ["tokens.baskets", "tokens.basket", "tokens.byAddress"].includes(c.route))) {
      const answers = [];
      for (const query of [
        "chainIds=1,8453",
        "chainIds=1&chainIds=8453",
        "chainIds[]=1&chainIds[]=8453",
        "chainIds[]=1&chainIds=8453",
        "chainIds=8453,1",
      ]) {
        answers.push(expectSuccess(await send({ ...call, path: `${call.path}?${query}` })));
      }
      for (const answer of answers) expect(answer, call.route).toEqual(answers[0]);
    }
  });

  it("the first failing parameter in query order is reported", async () => {
    expectValidation(await send({ route: "", method: "GET", path: "/v1/tokens/baskets?foo=1&chainIds=x" }), "foo", "whitelist");
    expectValidation(await send({ route: "", method: "GET", path: "/v1/tokens/baskets?chainIds=x&foo=1" }), "chainIds.0", "isNumber", "x");
  });
});

describe("cursors across routes (C6)", () => {
  const paged: Call[] = [
    {
      route: "tokens.list",
      method: "POST",
      path: "/v1/tokens",
      body: {
        config: { limit: 1 },
        filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0, ignoreWrappedNative: false },
      },
    },
    { route: "tokens.search", method: "POST", path: "/v1/tokens/search", body: { search: "u", config: { limit: 1 } } },
    { route: "tokens.chainList", method: "POST", path: "/v1/tokens/1", body: { config: { limit: 1 } } },
    { route: "tokens.chainSearch", method: "POST", path: "/v1/tokens/1/search", body: { search: "u", config: { limit: 1 } } },
    { route: "tokens.chainList", method: "POST", path: "/v1/tokens/8453", body: { config: { limit: 1 } } },
  ];

  it("a cursor of one route (or chain) is INVALID_PAGINATION_CURSOR on every other", async () => {
    const cursors: string[] = [];
    for (const call of paged) {
      const data = expectSuccess(await send(call));
      expect(data.nextCursor, call.path).toEqual(expect.any(String));
      cursors.push(data.nextCursor);
    }
    for (let from = 0; from < paged.length; from++) {
      for (let to = 0; to < paged.length; to++) {
        const body = paged[to].body as { config: Record<string, unknown> };
        const res = await send({ ...paged[to], body: { ...body, config: { ...body.config, cursor: cursors[from] } } });
        if (from === to) expectSuccess(res);
        else
          expect(expectError(res, 400, "INVALID_PAGINATION_CURSOR").metadata, `${paged[from].path} → ${paged[to].path}`).toEqual({
            receivedCursor: cursors[from],
          });
      }
    }
  });

  it('a cursor that is not a string is a VALIDATION_ERROR; null and "" start from the beginning', async () => {
    for (const call of paged.slice(1)) {
      const body = call.body as { config: Record<string, unknown> };
      expectValidation(await send({ ...call, body: { ...body, config: { ...body.config, cursor: 5 } } }), "config.cursor", "isString");
      const first = expectSuccess(await send(call));
      expect(expectSuccess(await send({ ...call, body: { ...body, config: { ...body.config, cursor: null } } }))).toEqual(first);
      expect(expectSuccess(await send({ ...call, body: { ...body, config: { ...body.config, cursor: "" } } }))).toEqual(first);
    }
  });
});

describe("access (C7)", () => {
  it("every route needs a key, and counts against its quota", async () => {
    for (const call of CALLS) {
      expectError(await send(call, null), 401, "API_KEY_MISSING");
      const res = await send(call);
      expect(res.headers.get("ratelimit-limit"), call.path).not.toBeNull();
      expect(res.headers.get("ratelimit-remaining"), call.path).not.toBeNull();
    }
  });
});
