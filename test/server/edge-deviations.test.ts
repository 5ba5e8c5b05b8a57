/**
 * Issue 19 item 5 against the real gateway over real sockets: methods are
 * case-sensitive; If-None-Match is read whole; an unknown query parameter is
 * `whitelist` on every GET route under /v1/tokens, whatever its name; valid
 * JSON nested past the parser's depth limit is the validation error of its
 * first failing property; /v1/protocols is 503 before any chain has loaded.
 */
import { renameSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEYS, poolsFixture, tempDir, writeChainFile, writeKeysFile } from "../support/fixtures.js";
import {
  expectError,
  expectValidation,
  postTokens,
  request,
  startGateway,
  startWithBaskets,
  waitFor,
  type Gateway,
} from "../support/gateway-process.js";
import { rawExchange, rawRequest } from "../support/raw-http.js";
import { tokenSurfaceBaskets, tokenSurfaceFixture, TS } from "../support/token-surface-fixture.js";

const ORIGIN = "https://app.example.com";
const AUTH = `Bearer ${KEYS.active}`;

describe("a gateway with data", () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startWithBaskets(tokenSurfaceFixture(), tokenSurfaceBaskets(), undefined, {
      CORS_ORIGINS: ORIGIN,
      MAX_HEADER_BYTES: "65536",
    });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  /** One raw request and its answer (the connection left open). */
  async function raw(method: string, urlPath: string, headers: Record<string, string> = {}) {
    const { responses } = await rawExchange(gw.port, rawRequest(method, urlPath, headers), { responses: 1, methods: [method] });
    expect(responses, `${method} ${urlPath}`).toHaveLength(1);
    const [res] = responses;
    return { status: res.status, header: res.header, body: res.body.length > 0 ? JSON.parse(res.body.toString("utf8")) : null };
  }

  describe("methods are case-sensitive (RFC 9110 §9.1)", () => {
    it("get, head, Get on a known path are unknown methods: 405 with Allow; on an unknown path 404", async () => {
      for (const method of ["get", "head", "Get", "gET", "post", "options"]) {
        const known = await raw(method, "/health");
        expect(known.status, method).toBe(405);
        expect(known.header("x-error-code"), method).toBe("METHOD_NOT_ALLOWED");
        expect(known.header("allow"), method).toBe("GET, HEAD");
        expect(known.body.error.metadata.allowed).toEqual(["GET", "HEAD"]);
        const unknown = await raw(method, "/nowhere");
        expect(unknown.status, method).toBe(404);
        expect(unknown.body.error.metadata.method, method).toBe(method);
      }
      const post = await raw("post", "/v1/tokens", { authorization: AUTH, "content-type": "application/json" });
      expect(post.status).toBe(405);
      expect(post.header("allow")).toBe("POST");
    });

    it("GET, HEAD and a CORS preflight still work; a lowercase preflight is an unknown method", async () => {
      expect((await raw("GET", "/health")).status).toBe(200);
      const head = await raw("HEAD", "/health");
      expect(head.status).toBe(200);
      expect(head.body).toBeNull();
      expect(Number(head.header("content-length"))).toBeGreaterThan(0);
      const preflight = await raw("OPTIONS", "/v1/tokens", { origin: ORIGIN, "access-control-request-method": "POST" });
      expect(preflight.status).toBe(204);
      expect(preflight.header("access-control-allow-methods")).toBe("POST");
      expect(preflight.header("access-control-allow-origin")).toBe(ORIGIN);
      const lower = await raw("options", "/v1/tokens", { origin: ORIGIN, "access-control-request-method": "POST" });
      expect(lower.status).toBe(405);
      expect(lower.header("access-control-allow-origin")).toBe(ORIGIN);
    });
  });

  describe("If-None-Match is read whole", () => {
    it("a matching tag after 40 KB of other tags gets 304; the same list without it gets 200", async () => {
      const first = await request(gw.baseUrl, "/v1/protocols");
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^W\//);
      const others = Array.from({ length: 2000 }, (_, i) => `W/"000000000000-${i}-1"`).join(", ");
      expect(others.length).toBeGreaterThan(40_000);
      for (const [list, status] of [
        [`${others}, ${etag}`, 304],
        [`${others.slice(0, 4090)}, ${etag}`, 304], // the tag starts right past the first 4,096 characters
        [others, 200],
      ] as const) {
        const res = await raw("GET", "/v1/protocols", { authorization: AUTH, "if-none-match": list });
        expect(res.status, list.slice(-60)).toBe(status);
        if (status === 304) expect(res.header("etag")).toBe(etag);
      }
    });
  });

  describe("unknown query parameters are whitelist on every GET route under /v1/tokens", () => {
    const routes = [
      `/v1/tokens/${TS.usdc1}`,
      "/v1/tokens/baskets",
      "/v1/tokens/baskets/usd-stablecoins",
      "/v1/tokens/baskets/8453/usd-stablecoins",
      `/v1/tokens/prices/1/${TS.usdc1}/usd`,
      `/v1/tokens/1/${TS.usdc1}`,
    ];
    for (const route of routes) {
      it(`${route}: chainId, a chainIds where none is taken, and other names`, async () => {
        const takesChainIds = !/\/(8453|1)\//.test(route.replace("/v1/tokens/", "/"));
        const cases: Array<[string, string, unknown]> = [
          ["chainId=1", "chainId", "1"],
          ["chainId=1&chainId=8453", "chainId", ["1", "8453"]],
          ["chainId=5", "chainId", "5"],
          ["basketId=usd-stablecoins", "basketId", "usd-stablecoins"],
          ["limit=2", "limit", "2"],
        ];
        if (!takesChainIds) cases.push(["chainIds=1", "chainIds", "1"], ["chainIds=1&chainIds=5", "chainIds", ["1", "5"]]);
        for (const [query, property, value] of cases) {
          const res = await request(gw.baseUrl, `${route}?${query}`);
          const metadata = expectValidation(res, property, "whitelist", value);
          expect(metadata.constraints.whitelist, `${route}?${query}`).toEqual([`property ${property} should not exist`]);
        }
      });
    }
  });

  describe("valid JSON nested past the depth limit", () => {
    const arrays = (n: number) => "[".repeat(n) + "]".repeat(n);
    const post = (body: string) =>
      request(gw.baseUrl, "/v1/tokens", { method: "POST", body, headers: { "content-type": "application/json" } });

    it("a top-level array is isObject on the body; a deep chain id item is that item's error; a deeper later fault loses to an earlier one", async () => {
      expectValidation(await post(arrays(5000)), "body", "isObject");
      expectValidation(await post(`{"filters":{"chainIds":${arrays(2000)}}}`), "filters.chainIds.0", ["isNumber", "isInt"]);
      expectValidation(await post(`{"filters":{"chainIds":[8453,${arrays(2000)}]}}`), "filters.chainIds.1", ["isNumber", "isInt"]);
      expectValidation(await post(`{"config":{"limit":"x"},"filters":${arrays(2000)}}`), "config.limit", "isNumber");
      expectValidation(await post(`{"zzz":${arrays(300)},"config":{"limit":"x"}}`), "zzz", "whitelist");
      // The echoed value is a summary, the answer small.
      const res = await post(`{"filters":{"chainIds":${arrays(2000)}}}`);
      expect(res.text.length).toBeLessThan(2000);
      expect(res.body.error.metadata.value).toBe("[an array of 1 items, too large or too deep to show]");
    });

    it("invalid JSON past the limit is still MALFORMED_JSON", async () => {
      expectError(await post("[".repeat(3000)), 400, "MALFORMED_JSON");
      expectError(await post(`{"filters":${arrays(3000)},}`), 400, "MALFORMED_JSON");
    });

    it("pool search and prices too (their token lists are checked after the shape)", async () => {
      for (const [route, list] of [
        ["/v1/pools/search", "tokensA"],
        ["/v1/tokens/prices", "tokens"],
      ]) {
        const res = await request(gw.baseUrl, route, {
          method: "POST",
          body: `{"${list}":[{"chainId":1,"address":${arrays(1000)}}]}`,
          headers: { "content-type": "application/json" },
        });
        const error = expectError(res, 400, "INVALID_BLOCKCHAIN_ADDRESS");
        // As for a body within the limit whose address is an array too deep to echo: the list is summarised.
        const within = await request(gw.baseUrl, route, {
          method: "POST",
          body: `{"${list}":[{"chainId":1,"address":${arrays(40)}}]}`,
          headers: { "content-type": "application/json" },
        });
        expect(error.metadata, route).toEqual(expectError(within, 400, "INVALID_BLOCKCHAIN_ADDRESS").metadata);
        expect(error.metadata.receivedCount, route).toBe(1);
      }
    });
  });
});

describe("GET /v1/protocols before any chain has loaded", () => {
  let gw: Gateway;
  let dir: string;

  beforeAll(async () => {
    dir = tempDir("lgw-empty-");
    gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile() });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it("is 503 CHAIN_DATA_UNAVAILABLE (chainId null, Retry-After) like the other data routes, then 200 once a chain loads", async () => {
    const before = await request(gw.baseUrl, "/v1/protocols");
    const error = expectError(before, 503, "CHAIN_DATA_UNAVAILABLE", "/v1/protocols");
    expect(error.metadata).toEqual({ chainId: null });
    expect(before.headers.get("retry-after")).toBe("30");
    expect(before.headers.get("x-snapshot-version")).toBeNull();
    // The token list answers the same before any load.
    expect(expectError(await postTokens(gw.baseUrl, {}), 503, "CHAIN_DATA_UNAVAILABLE").metadata).toEqual({ chainId: null });
    // HEAD and a conditional GET are 503 as well.
    expect((await request(gw.baseUrl, "/v1/protocols", { method: "HEAD" })).status).toBe(503);
    expect((await request(gw.baseUrl, "/v1/protocols", { headers: { "if-none-match": "*" } })).status).toBe(503);

    const file = poolsFixture()[0];
    const tmp = writeChainFile(dir, file, `.chain-${file.chainId}.tmp`);
    renameSync(tmp, path.join(dir, `chain-${file.chainId}.msgpack`));
    const after = await waitFor("the first chain to load", async () => {
      const res = await request(gw.baseUrl, "/v1/protocols");
      return res.status === 200 ? res : undefined;
    });
    expect(after.body.data.protocols.length).toBeGreaterThan(0);
    expect(after.headers.get("x-snapshot-version")).toMatch(/^[0-9a-f]+$/);
  });
});
