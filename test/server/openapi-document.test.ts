/**
 * GET /v1/openapi.json: the document is valid OpenAPI 3.1 (checked by an independent validator),
 * and the real server keeps it: every live response of every route, success and each error code
 * that HTTP can provoke, matches the documented schema of its operation and status, with the
 * documented headers. The request and path-parameter schemas accept exactly what the server
 * accepts, the documented defaults are the server's, and the examples match their schemas and
 * come from the bundled sample data.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { unpack } from "msgpackr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CATALOGUE, type ErrorCode } from "../../src/api/errors.js";
import { ROUTES } from "../../src/http/route-table.js";
import { addr, basicFixture, KEYS, NATIVE_ADDRESS, P, poolId } from "../support/fixtures.js";
import {
  getPool,
  postPoolSearch,
  postJson,
  postTokens,
  PROJECT_ROOT,
  request,
  startWithBaskets,
  startWithFixtures,
  type Gateway,
  type HttpResponse,
} from "../support/gateway-process.js";

type Json = Record<string, any>;

let gw: Gateway;
let base: string;
let served: HttpResponse;
let doc: Json;
let ajv: Ajv2020;

/** The document is registered in ajv under this id; its `#/components/...` refs resolve inside it. */
const DOC_ID = "https://gateway.test/openapi.json";

/** Baskets over basicFixture's tokens (chains 1, 8453, 130, 143, 9745, 534352 loaded; 999 not). */
const BASKETS = {
  baskets: [
    {
      id: "usd-stablecoins",
      name: "USD Stablecoins",
      description: "Dollars.",
      logoUrl: "https://logos.test/usd.png",
      addresses: { "1": [P.usdc1], "8453": [P.usdcBase] },
    },
    {
      id: "ghost-basket",
      name: "Ghost",
      description: "Nothing on 8453.",
      logoUrl: "https://logos.test/ghost.png",
      addresses: { "1": [addr("e0e0")] },
    },
  ],
};

beforeAll(async () => {
  gw = await startWithBaskets(basicFixture(), BASKETS, undefined, { CORS_ORIGINS: "https://app.example.com" });
  base = gw.baseUrl;
  served = await request(base, "/v1/openapi.json", { key: null });
  doc = served.body;
  ajv = new Ajv2020({ allErrors: true, strict: false });
  ajvFormats.default(ajv);
  ajv.addSchema({ $id: DOC_ID, components: doc.components });
});

afterAll(async () => {
  await gw?.stop();
});

// ------------------------------------------------------------------ document helpers

/** A copy of `schema` whose local refs point into the registered document. */
function anchored(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === "$ref" && typeof value === "string" && value.startsWith("#/") ? DOC_ID + value : value,
  );
}

const compiled = new Map<string, ReturnType<Ajv2020["compile"]>>();

/** Validation errors of `value` against `schema` (a schema of the document), or null when valid. */
function schemaErrors(schema: unknown, value: unknown): string | null {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv.compile(anchored(schema) as object);
    compiled.set(key, validate);
  }
  return validate(value) ? null : ajv.errorsText(validate.errors, { separator: "\n" });
}

function expectMatches(schema: unknown, value: unknown, what: string): void {
  const errors = schemaErrors(schema, value);
  expect(errors, `${what} does not match its schema:\n${errors}\nvalue: ${JSON.stringify(value).slice(0, 2000)}`).toBeNull();
}

function component(name: string): Json {
  const schema = doc.components.schemas[name];
  expect(schema, `components.schemas.${name}`).toBeDefined();
  return schema;
}

/** The `default`s a request schema declares, nested like the request. */
function defaultsOf(schema: Json): Json {
  const out: Json = {};
  for (const [name, property] of Object.entries<Json>(schema.properties)) {
    if ("default" in property) out[name] = property.default;
    else if (property.$ref !== undefined) {
      const nested = defaultsOf(component(property.$ref.split("/").pop()));
      if (Object.keys(nested).length > 0) out[name] = nested;
    }
  }
  return out;
}

function operations(): { template: string; method: string; operation: Json }[] {
  const list: { template: string; method: string; operation: Json }[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) list.push({ template, method, operation });
  }
  return list;
}

/** The documented response of this status; a 405 is documented on every operation of its path. */
function documentedResponse(method: string, template: string, status: number): Json {
  const item: Json | undefined = doc.paths[template];
  expect(item, `path ${template} is documented`).toBeDefined();
  const operation: Json | undefined = status === 405 ? Object.values<Json>(item!)[0] : item![method.toLowerCase()];
  expect(operation, `${method} ${template} is documented`).toBeDefined();
  const response: Json | undefined = operation!.responses[String(status)];
  expect(response, `${method} ${template} documents status ${status}; it has ${Object.keys(operation!.responses)}`).toBeDefined();
  return response!;
}

/** Every header name the document mentions in any response. */
function documentedHeaderNames(): Set<string> {
  const names = new Set<string>();
  const add = (response: Json) => Object.keys(response.headers ?? {}).forEach((n) => names.add(n.toLowerCase()));
  for (const { operation } of operations()) Object.values<Json>(operation.responses).forEach(add);
  Object.values<Json>(doc.components.responses ?? {}).forEach(add);
  return names;
}

/** A header value as the schema's type: integers are sent in base 10. */
function headerValue(text: string, schema: Json): unknown {
  return schema.type === "integer" && /^(0|[1-9][0-9]*)$/.test(text) ? Number(text) : text;
}

/** The live response matches the documented response: body schema, required headers, header schemas, no undocumented known header. */
function expectResponseMatches(response: Json, res: HttpResponse, what: string): void {
  if (response.content === undefined) expect(res.text, `${what}: no body`).toBe("");
  else expectMatches(response.content["application/json"].schema, res.body, `${what}: body`);
  const documented = new Map(Object.entries<Json>(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), header]));
  for (const [name, header] of documented) {
    const value = res.headers.get(name);
    if (header.required) expect(value, `${what}: required header ${name}`).not.toBeNull();
    if (value !== null) expectMatches(header.schema, headerValue(value, header.schema), `${what}: header ${name}=${value}`);
  }
  for (const name of documentedHeaderNames()) {
    if (res.headers.get(name) !== null)
      expect(documented.has(name), `${what}: header ${name} is sent but not documented for this response`).toBe(true);
  }
  if (res.status !== 200 && res.body?.error !== undefined) expect(res.headers.get("x-error-code")).toBe(res.body.error.code);
}

function expectDocumented(method: string, template: string, res: HttpResponse): void {
  expectResponseMatches(documentedResponse(method, template, res.status), res, `${method} ${template} → ${res.status}`);
}

// ------------------------------------------------------------------ the document itself

describe("the document", () => {
  it("is served without a key, as JSON", () => {
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toMatch(/^application\/json\b/);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("passes an independent OpenAPI 3.1 validator", async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? null, JSON.stringify(result.errors, null, 1)).toBeNull();
    expect(result.valid).toBe(true);
  });

  it("documents every route; the /v1 data routes need the bearer key, the others are public", () => {
    const routes = operations().map(({ method, template }) => `${method.toUpperCase()} ${template}`);
    expect(routes.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const core of [
      "POST /v1/tokens",
      "GET /v1/pools/{chainId}/{poolAddress}",
      "GET /v1/protocols",
      "GET /health",
      "GET /ready",
      "GET /metrics",
      "GET /v1/openapi.json",
    ]) {
      expect(routes).toContain(core);
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const { template, operation } of operations()) {
      if (["/health", "/ready", "/metrics", "/v1/openapi.json", "/v1/asyncapi.json", "/docs", "/docs/assets/{file}"].includes(template))
        expect(operation.security, template).toEqual([]);
      else {
        expect(template, "every other route is under /v1").toMatch(/^\/v1\//);
        expect(operation.security, template).toBeUndefined();
      }
    }
  });

  it("has an envelope schema for every error code, with the catalogue's status and title", () => {
    const listed = new Set<string>();
    for (const { operation } of operations()) {
      for (const response of Object.values<Json>(operation.responses))
        for (const code of response.headers?.["x-error-code"]?.schema.enum ?? []) listed.add(code);
    }
    for (const response of Object.values<Json>(doc.components.responses))
      for (const code of response.headers["x-error-code"].schema.enum) listed.add(code);
    for (const [code, { status, title }] of Object.entries(ERROR_CATALOGUE)) {
      expect(listed.has(code), `${code} is answered by some operation`).toBe(true);
      const envelope = Object.values<Json>(doc.components.schemas).find((s) => s.properties?.error?.properties?.code?.const === code);
      expect(envelope, `envelope of ${code}`).toBeDefined();
      expect(envelope!.properties.statusCode.const).toBe(status);
      expect(envelope!.properties.error.properties.title.const).toBe(title);
    }
  });

  it("every documented operation is routed (never ROUTE_NOT_FOUND or METHOD_NOT_ALLOWED)", async () => {
    for (const { template, method, operation } of operations()) {
      const params: Json[] = operation.parameters ?? [];
      const url = template.replace(/\{(\w+)\}/g, (_, name) => String(params.find((p) => p.name === name)!.example));
      const res = await request(base, url, {
        method: method.toUpperCase(),
        headers: method === "post" ? { "Content-Type": "application/json" } : {},
        body: method === "post" ? "{}" : undefined,
      });
      expect(
        [404, 405].includes(res.status) && ["ROUTE_NOT_FOUND", "METHOD_NOT_ALLOWED"].includes(res.body?.error?.code),
        `${method} ${url}: ${res.text.slice(0, 300)}`,
      ).toBe(false);
    }
  });

  it("the request schema accepts exactly the bodies the server accepts", async () => {
    const bodies: unknown[] = [
      {},
      { config: { limit: 500, matchAllSymbols: true, cursor: null, orderBy: { field: "tvl", direction: "asc" } } },
      { config: { cursor: "" } },
      {
        filters: {
          chainIds: [1, 8453],
          minimumTotalValuePooledUsd: 0,
          minimumSwapsCount: 0,
          minimumSwapVolumeUsd: 0.5,
          ignoreWrappedNative: false,
        },
      },
      { filters: { chainIds: [] } },
      { config: { limit: 501 } },
      { config: { limit: 0 } },
      { config: { limit: 1.5 } },
      { config: { limit: "10" } },
      { config: { cursor: 5 } },
      { config: { orderBy: { direction: "up" } } },
      { config: { orderBy: { field: "volume" } } },
      { config: { matchAllSymbols: "false" } },
      { filters: { chainIds: [1, 1] } },
      { filters: { chainIds: [5] } },
      { filters: { chainIds: ["1"] } },
      { filters: { minimumSwapsCount: 1.5 } },
      { filters: { minimumTotalValuePooledUsd: -1 } },
      { filters: { ignoreWrappedNative: null } },
      { extra: 1 },
      { config: { limit: 5, extra: true } },
      { config: { orderBy: { direction: "asc", extra: 1 } } },
      { filters: { chainId: [1] } },
      [],
      null,
      "{}",
    ];
    const schema = doc.paths["/v1/tokens"].post.requestBody.content["application/json"].schema;
    for (const body of bodies) {
      const res = await postTokens(base, JSON.stringify(body));
      const documentedValid = schemaErrors(schema, body) === null;
      expect(
        res.status === 200,
        `${JSON.stringify(body)}: schema says ${documentedValid ? "valid" : "invalid"}, server ${res.status} ${res.text.slice(0, 300)}`,
      ).toBe(documentedValid);
    }
  });

  it("the pool search request schema accepts exactly the bodies the server accepts", async () => {
    const usdc = { chainId: 1, address: P.usdc1 };
    const bodies: unknown[] = [
      { tokensA: [usdc] },
      {
        tokensA: [{ chainId: 8453, address: P.usdcBase.toUpperCase().replace("0X", "0x") }],
        tokensB: [{ chainId: 8453, address: NATIVE_ADDRESS }],
      },
      {
        tokensA: [usdc],
        tokensB: [],
        basketsB: [],
        filters: {
          minimumTotalValueLockedUsd: 0.5,
          protocols: ["uniswap-v3"],
          blockedProtocols: ["nope"],
          poolTypes: ["V3", "V4"],
          blockedPoolTypes: ["V2"],
        },
        config: {
          limit: 500,
          cursor: null,
          orderBy: { field: "fees", direction: "asc", timeframe: "90d" },
          parseWrappedToNative: "NEVER",
          useWrappedForNative: false,
        },
      },
      { tokensA: [usdc], config: { cursor: "" } },
      { tokensA: [{ chainId: 1, address: "0x1234" }] },
      { tokensA: [{ chainId: 1, address: 5 }] },
      { tokensA: [{ chainId: 1 }] },
      { tokensA: [{ chainId: 5, address: P.usdc1 }] },
      { tokensA: [{ chainId: "1", address: P.usdc1 }] },
      { tokensA: [{ ...usdc, extra: 1 }] },
      { tokensA: Array.from({ length: 101 }, () => usdc) },
      { tokensA: [usdc], basketsA: [{ basketId: "x", chainIds: [1, 1] }] },
      { tokensA: [usdc], basketsA: Array.from({ length: 11 }, () => ({ basketId: "x" })) },
      { tokensA: [usdc], filters: { minimumTotalValueLockedUsd: -1 } },
      { tokensA: [usdc], filters: { protocols: "uniswap-v3" } },
      { tokensA: [usdc], filters: { poolTypes: ["V5"] } },
      { tokensA: [usdc], config: { limit: 0 } },
      { tokensA: [usdc], config: { limit: 2.5 } },
      { tokensA: [usdc], config: { orderBy: { field: "apr" } } },
      { tokensA: [usdc], config: { orderBy: { timeframe: "1y" } } },
      { tokensA: [usdc], config: { parseWrappedToNative: "auto" } },
      { tokensA: [usdc], config: { useWrappedForNative: 1 } },
      { tokensA: [usdc], config: { matchAllSymbols: true } },
      { tokensA: [usdc], tokensC: [] },
      [],
      null,
    ];
    const schema = doc.paths["/v1/pools/search"].post.requestBody.content["application/json"].schema;
    for (const body of bodies) {
      const res = await postPoolSearch(base, JSON.stringify(body));
      const documentedValid = schemaErrors(schema, body) === null;
      expect(
        res.status === 200,
        `${JSON.stringify(body).slice(0, 200)}: schema says ${documentedValid ? "valid" : "invalid"}, server ${res.status} ${res.text.slice(0, 300)}`,
      ).toBe(documentedValid);
    }
  });

  it("the pool search's documented defaults are the ones the server applies", async () => {
    const defaultsOf = (schema: Json): Json => {
      const out: Json = {};
      for (const [name, property] of Object.entries<Json>(schema.properties)) {
        if ("default" in property) out[name] = property.default;
        else if (property.$ref !== undefined) {
          const nested = defaultsOf(component(property.$ref.split("/").pop()));
          if (Object.keys(nested).length > 0) out[name] = nested;
        }
      }
      return out;
    };
    const explicit = defaultsOf(component("PoolSearchRequest"));
    expect(explicit).toEqual({
      filters: { minimumTotalValueLockedUsd: expect.any(Number) },
      config: {
        limit: expect.any(Number),
        orderBy: { field: expect.any(String), direction: expect.any(String), timeframe: expect.any(String) },
        parseWrappedToNative: expect.any(String),
        useWrappedForNative: expect.any(Boolean),
      },
    });
    const sides = { tokensA: [{ chainId: 1, address: P.usdc1 }], tokensB: [{ chainId: 1, address: NATIVE_ADDRESS }] };
    const implicit = expectSuccessData(await postPoolSearch(base, sides));
    const spelledOut = expectSuccessData(await postPoolSearch(base, { ...sides, ...explicit }));
    expect(spelledOut.pools).toEqual(implicit.pools);
    expect(spelledOut.filters).toEqual(implicit.filters);
    expect(implicit.pools.length).toBeGreaterThan(1);
    // and the defaults matter: flipping one changes the answer
    const flipped = expectSuccessData(
      await postPoolSearch(base, {
        ...sides,
        ...explicit,
        config: { ...explicit.config, useWrappedForNative: !explicit.config.useWrappedForNative },
      }),
    );
    expect(flipped.pools).not.toEqual(implicit.pools);
  });

  it("the new request schemas accept exactly the bodies the server accepts", async () => {
    const cases: [string, string, unknown[]][] = [
      [
        "/v1/tokens/search",
        "/v1/tokens/search",
        [
          { search: "usd" },
          {
            search: "usd",
            config: { limit: 500, matchAllSymbols: true, cursor: null, orderBy: { field: "relevance", direction: "desc" } },
          },
          {
            search: "usd",
            config: { orderBy: { field: "tvl", direction: "asc" } },
            filters: {
              chainIds: [1],
              minimumTotalValuePooledUsd: 0,
              minimumSwapsCount: 0,
              minimumSwapVolumeUsd: 0,
              ignoreWrappedNative: true,
            },
          },
          {},
          { search: 5 },
          { search: "usd", config: { limit: 0 } },
          { search: "usd", config: { orderBy: { field: "volume" } } },
          { search: "usd", filters: { chainIds: [5] } },
          { search: "usd", extra: 1 },
          { search: "usd", filters: { minimumSwapsCount: -1 } },
        ],
      ],
      [
        "/v1/tokens/{chainId}",
        "/v1/tokens/1",
        [
          {},
          {
            config: { limit: 3, cursor: "", orderBy: { field: "tvl", direction: "asc" } },
            filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0, ignoreWrappedNative: false },
          },
          { config: { matchAllSymbols: true } },
          { config: { orderBy: { field: "relevance" } } },
          { filters: { chainIds: [1] } },
          { search: "usd" },
          { config: { limit: 501 } },
        ],
      ],
      [
        "/v1/tokens/{chainId}/search",
        "/v1/tokens/1/search",
        [
          { search: "usd" },
          { search: "usd", config: { limit: 1, orderBy: { field: "relevance" } }, filters: { ignoreWrappedNative: true } },
          {},
          { search: "usd", config: { matchAllSymbols: true } },
          { search: "usd", filters: { chainIds: [1] } },
          { search: ["usd"] },
        ],
      ],
      [
        "/v1/tokens/prices",
        "/v1/tokens/prices",
        [
          { tokens: [{ chainId: 1, address: P.usdc1 }] },
          {
            tokens: [
              { chainId: 1, address: P.usdc1.toUpperCase().replace("0X", "0x") },
              { chainId: 8453, address: NATIVE_ADDRESS },
            ],
          },
          { tokens: [] },
          { tokens: [{ chainId: 1, address: "0x12" }] },
          { tokens: [{ chainId: 5, address: P.usdc1 }] },
          { tokens: [{ chainId: 1, address: P.usdc1, extra: 1 }] },
          { tokens: Array.from({ length: 101 }, () => ({ chainId: 1, address: P.usdc1 })) },
          {},
        ],
      ],
    ];
    for (const [template, url, bodies] of cases) {
      const schema = doc.paths[template].post.requestBody.content["application/json"].schema;
      for (const body of bodies) {
        const res = await postJson(base, url, body);
        const documentedValid = schemaErrors(schema, body) === null;
        expect(
          res.status === 200,
          `${url} ${JSON.stringify(body).slice(0, 200)}: schema says ${documentedValid ? "valid" : "invalid"}, server ${res.status} ${res.text.slice(0, 300)}`,
        ).toBe(documentedValid);
      }
    }
  });

  it("the new requests' documented defaults are the ones the server applies", async () => {
    const cases: [string, string, Json][] = [
      ["TokenSearchRequest", "/v1/tokens/search", { search: "u" }],
      ["SingleChainTokenListRequest", "/v1/tokens/1", {}],
      ["SingleChainTokenSearchRequest", "/v1/tokens/1/search", { search: "u" }],
    ];
    for (const [name, url, minimal] of cases) {
      const defaults = defaultsOf(component(name));
      expect(Object.keys(defaults.filters ?? {}).sort(), name).toEqual([
        "ignoreWrappedNative",
        "minimumSwapVolumeUsd",
        "minimumSwapsCount",
        "minimumTotalValuePooledUsd",
      ]);
      expect(defaults.config?.limit, name).toBe(10);
      const implicit = (await postJson(base, url, minimal)).body.data;
      const spelledOut = (await postJson(base, url, { ...minimal, ...defaults })).body.data;
      expect(spelledOut, name).toEqual(implicit);
    }
    expect(defaultsOf(component("TokenSearchRequest")).filters).toEqual({
      minimumTotalValuePooledUsd: 0,
      minimumSwapsCount: 0,
      minimumSwapVolumeUsd: 0,
      ignoreWrappedNative: false,
    });
    expect(defaultsOf(component("SingleChainTokenListRequest")).filters).toEqual({
      minimumTotalValuePooledUsd: 10_000,
      minimumSwapsCount: 1_000,
      minimumSwapVolumeUsd: 100_000,
      ignoreWrappedNative: true,
    });
  });

  it("the documented defaults are the ones the server applies", async () => {
    const explicit = defaultsOf(component("TokenListRequest"));
    expect(explicit).toEqual({
      config: {
        matchAllSymbols: expect.any(Boolean),
        limit: expect.any(Number),
        orderBy: { field: expect.any(String), direction: expect.any(String) },
      },
      filters: {
        minimumTotalValuePooledUsd: expect.any(Number),
        minimumSwapsCount: expect.any(Number),
        minimumSwapVolumeUsd: expect.any(Number),
        ignoreWrappedNative: expect.any(Boolean),
      },
    });
    const implicit = await postTokens(base, {});
    const spelledOut = await postTokens(base, explicit);
    expect(spelledOut.status).toBe(200);
    expect(spelledOut.body.data.tokens).toEqual(implicit.body.data.tokens);
    expect(spelledOut.body.data.nextCursor === null).toBe(implicit.body.data.nextCursor === null);
    // and the defaults matter: flipping one changes the list
    const flipped = await postTokens(base, {
      ...explicit,
      filters: { ...explicit.filters, ignoreWrappedNative: !explicit.filters.ignoreWrappedNative },
    });
    expect(flipped.body.data.tokens).not.toEqual(implicit.body.data.tokens);
  });

  it("the path parameter schemas agree with the server", async () => {
    const params: Json[] = doc.paths["/v1/pools/{chainId}/{poolAddress}"].get.parameters;
    const chainId = params.find((p) => p.name === "chainId")!;
    const poolAddress = params.find((p) => p.name === "poolAddress")!;
    for (const text of ["1", "130", "8453", "534352", "0", "5", "10", "137", "4294967297"]) {
      const res = await getPool(base, text, P.v3);
      const rejected = res.status === 400 && ["UNSUPPORTED_CHAIN_ID", "VALIDATION_ERROR"].includes(res.body.error.code);
      expect(rejected, `chainId ${text}: ${res.text.slice(0, 200)}`).toBe(schemaErrors(chainId.schema, Number(text)) !== null);
    }
    const candidates = [
      P.v3,
      P.v3.toUpperCase().replace("0X", "0x"),
      P.v3.toUpperCase(),
      P.v4Native,
      poolId("abc"),
      P.v3.slice(0, -1),
      P.v3 + "0",
      P.v4Native.slice(0, -1),
      P.v3.slice(2),
      "0x" + "g".repeat(40),
      "0x" + "0".repeat(52),
    ];
    for (const address of candidates) {
      const res = await getPool(base, 1, address);
      const rejected = res.status === 400 && res.body.error.code === "INVALID_POOL_ADDRESS";
      expect(rejected, `poolAddress ${address}: ${res.text.slice(0, 200)}`).toBe(schemaErrors(poolAddress.schema, address) !== null);
    }
  });

  it("the token path parameter schemas agree with the server", async () => {
    const params: Json[] = doc.paths["/v1/tokens/{chainId}/{tokenAddress}"].get.parameters;
    const tokenAddress = params.find((p) => p.name === "tokenAddress")!;
    const chainId = params.find((p) => p.name === "chainId")!;
    for (const address of [
      P.usdc1,
      P.usdc1.toUpperCase().replace("0X", "0x"),
      "0X" + P.usdc1.slice(2),
      P.usdc1.slice(0, -1),
      P.usdc1 + "0",
      P.usdc1.slice(2),
      "0x" + "g".repeat(40),
      "0x" + "a".repeat(64),
    ]) {
      const res = await request(base, `/v1/tokens/1/${address}`);
      const rejected = res.status === 400 && res.body.error.code === "VALIDATION_ERROR";
      expect(rejected, `tokenAddress ${address}: ${res.text.slice(0, 200)}`).toBe(schemaErrors(tokenAddress.schema, address) !== null);
    }
    for (const text of ["1", "8453", "5", "0"]) {
      const res = await request(base, `/v1/tokens/${text}/${P.usdc1}`);
      const rejected = res.status === 400 && ["UNSUPPORTED_CHAIN_ID", "VALIDATION_ERROR"].includes(res.body.error.code);
      expect(rejected, `chainId ${text}: ${res.text.slice(0, 200)}`).toBe(schemaErrors(chainId.schema, Number(text)) !== null);
    }
  });

  it("a pool's metadata must have exactly the shape of its type", () => {
    const pool = component("Pool");
    const concentrated = {
      latestSqrtPriceX96: "79228162514264337593543950336",
      tickSpacing: 60,
      latestTick: "-12",
      positionManagerAddress: `0x${"1".repeat(40)}`,
    };
    const base = {
      chainId: 1,
      address: `0x${"a".repeat(40)}`,
      createdAtTimestamp: 1_700_000_000,
      feeTier: { feeTierPercentage: 0.3, isDynamic: false },
      tokens: [],
      protocol: { id: "p", name: "P", logoUrl: "https://l", url: "https://u" },
      stats: Object.fromEntries(
        ["stats24h", "stats7d", "stats30d", "stats90d"].map((k) => [
          k,
          { feesUsd: 0, swapVolumeUsd: 0, yield: 0, netInflowUsd: 0, liquidityVolumeUsd: 0 },
        ]),
      ),
      balance: { totalValueLockedUsd: 0, tokens: [] },
    };
    expect(schemaErrors(pool, { ...base, type: "V3", metadata: concentrated })).toBeNull();
    expect(
      schemaErrors(pool, { ...base, type: "V2", metadata: { positionManagerAddress: concentrated.positionManagerAddress } }),
    ).toBeNull();
    // A V3 pool with only the V2 router field, or a V4 pool without its V4 fields, is not a valid pool.
    expect(
      schemaErrors(pool, { ...base, type: "V3", metadata: { positionManagerAddress: concentrated.positionManagerAddress } }),
    ).not.toBeNull();
    expect(schemaErrors(pool, { ...base, type: "V4", metadata: concentrated })).not.toBeNull();
    expect(schemaErrors(pool, { ...base, type: "V5", metadata: concentrated })).not.toBeNull();
  });

  it("every example matches its schema", () => {
    let checked = 0;
    for (const { template, method, operation } of operations()) {
      const contents: [string, Json][] = Object.entries<Json>(operation.responses).map(([status, r]) => [
        `${status}`,
        r.content?.["application/json"],
      ]);
      if (operation.requestBody) contents.push(["request body", operation.requestBody.content["application/json"]]);
      for (const [where, content] of contents) {
        for (const [name, example] of Object.entries<Json>(content?.examples ?? {})) {
          expectMatches(content.schema, example.value, `${method} ${template} ${where} example ${name}`);
          checked++;
        }
      }
      for (const parameter of operation.parameters ?? []) {
        if (parameter.example === undefined) continue;
        expectMatches(parameter.schema, parameter.example, `${method} ${template} parameter ${parameter.name} example`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(25);
  });

  it("the examples' data appear in the bundled sample (snapshots/)", () => {
    const sample = new Map<number, Json>();
    const chain = (id: number): Json => {
      if (!sample.has(id)) sample.set(id, unpack(readFileSync(path.join(PROJECT_ROOT, "snapshots", `chain-${id}.msgpack`))));
      return sample.get(id)!;
    };
    const tokens = doc.paths["/v1/tokens"].post;
    const requestExample = tokens.requestBody.content["application/json"].examples.sample.value;
    const listExample = tokens.responses["200"].content["application/json"].examples.sample.value.data;
    expect(listExample.tokens.length).toBe(requestExample.config.limit);
    for (const entry of listExample.tokens) {
      const [anchor, ...others] = entry.addresses;
      const record = chain(anchor.chainId).tokens.find((t: Json) => t.address === anchor.address);
      expect(record, `token ${anchor.chainId}/${anchor.address}`).toBeDefined();
      expect([entry.symbol, entry.name, entry.logoUrl]).toEqual([record.symbol, record.name, record.logoUrl]);
      for (const other of others)
        expect(
          chain(other.chainId).tokens.some((t: Json) => t.address === other.address),
          `token ${other.chainId}/${other.address}`,
        ).toBe(true);
      for (const id of entry.chainIds) expect(requestExample.filters.chainIds).toContain(id);
    }

    const pool =
      doc.paths["/v1/pools/{chainId}/{poolAddress}"].get.responses["200"].content["application/json"].examples.sample.value.data.pool;
    const file = chain(pool.chainId);
    const record = file.pools.find((p: Json) => p.address === pool.address);
    expect(record, `pool ${pool.chainId}/${pool.address}`).toBeDefined();
    expect(pool.createdAtTimestamp).toBe(record.createdAtTimestamp);
    expect(pool.feeTier).toEqual({ feeTierPercentage: record.feeTierPercentage, isDynamic: record.isDynamicFee });
    expect(pool.type).toBe(record.type);
    expect(pool.stats).toEqual(record.stats);
    expect(pool.metadata).toEqual(record.metadata);
    expect(pool.protocol).toEqual(file.protocols.find((p: Json) => p.id === record.protocolId));
    expect(pool.balance.totalValueLockedUsd).toBe(record.totalValueLockedUsd);
    expect(pool.balance.tokens.map((t: Json) => [t.token.address, t.amount, t.amountUsd])).toEqual(
      record.tokens.map((t: Json) => [t.address, t.amount, t.amountUsd]),
    );
    for (const token of pool.tokens) {
      const t = file.tokens.find((r: Json) => r.address === token.address);
      expect([token.symbol, token.name, token.decimals, token.logoUrl]).toEqual([t.symbol, t.name, t.decimals, t.logoUrl]);
    }

    // The search example: the same pool, its wrapped native token shown as the native asset (side B names it).
    const search = doc.paths["/v1/pools/search"].post;
    const searchRequest = search.requestBody.content["application/json"].examples.sample.value;
    for (const t of [...searchRequest.tokensA, ...searchRequest.tokensB]) {
      expect(
        t.address === "0x0000000000000000000000000000000000000000" || chain(t.chainId).tokens.some((r: Json) => r.address === t.address),
        `token ${t.chainId}/${t.address}`,
      ).toBe(true);
    }
    const [found] = search.responses["200"].content["application/json"].examples.sample.value.data.pools;
    const wrapped = "0x4200000000000000000000000000000000000006";
    const native = chain(8453).tokens.find((r: Json) => r.address === "0x0000000000000000000000000000000000000000");
    const asNative = (t: Json) =>
      t.address === wrapped
        ? { chainId: 8453, address: native.address, decimals: 18, name: "Ether", symbol: "ETH", logoUrl: native.logoUrl }
        : t;
    expect(found).toEqual({
      ...pool,
      tokens: pool.tokens.map(asNative),
      balance: { ...pool.balance, tokens: pool.balance.tokens.map((b: Json) => ({ ...b, token: asNative(b.token) })) },
    });

    const protocols = doc.paths["/v1/protocols"].get.responses["200"].content["application/json"].examples.sample.value.data.protocols;
    const sampleChains = [1, 130, 143, 999, 8453, 9745, 534352];
    for (const protocol of protocols) {
      expect(
        sampleChains.some((id) => chain(id).protocols.some((p: Json) => JSON.stringify(p) === JSON.stringify(protocol))),
        `protocol ${protocol.id}`,
      ).toBe(true);
    }
  });
});

describe("the token surface's examples", () => {
  it("come from the bundled sample (snapshots/, snapshots/baskets.json)", () => {
    const sample = new Map<number, Json>();
    const chain = (id: number): Json => {
      if (!sample.has(id)) sample.set(id, unpack(readFileSync(path.join(PROJECT_ROOT, "snapshots", `chain-${id}.msgpack`))));
      return sample.get(id)!;
    };
    const baskets: Json[] = JSON.parse(readFileSync(path.join(PROJECT_ROOT, "snapshots", "baskets.json"), "utf8")).baskets;
    const example = (template: string, method = "get"): Json =>
      doc.paths[template][method].responses["200"].content["application/json"].examples.sample.value.data;
    /** A SingleChainTokenMetadata of an example equals the sample's record. */
    const expectSampleToken = (t: Json) => {
      const record = chain(t.chainId).tokens.find((r: Json) => r.address === t.address);
      expect(record, `token ${t.chainId}/${t.address}`).toBeDefined();
      expect([t.decimals, t.name, t.symbol, t.logoUrl]).toEqual([record.decimals, record.name, record.symbol, record.logoUrl]);
      return record;
    };
    let tokens = 0;
    for (const [template, method] of [
      ["/v1/tokens/{chainId}", "post"],
      ["/v1/tokens/{chainId}/search", "post"],
      ["/v1/tokens/{tokenAddress}", "get"],
    ] as const) {
      for (const t of example(template, method).tokens) {
        expectSampleToken(t);
        tokens++;
      }
    }
    const token = example("/v1/tokens/{chainId}/{tokenAddress}").token;
    expect(token.totalValuePooledUsd).toBe(expectSampleToken(token).trackedTotalValuePooledUsd);
    const price = example("/v1/tokens/prices/{chainId}/{tokenAddress}/usd").price;
    expect(price).toBe(chain(8453).tokens.find((r: Json) => r.address === "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913").trackedUsdPrice);
    for (const entry of example("/v1/tokens/prices", "post").prices) {
      expect(entry.price).toBe(chain(entry.chainId).tokens.find((r: Json) => r.address === entry.address).trackedUsdPrice);
    }
    for (const entry of example("/v1/tokens/search", "post").tokens) {
      for (const a of entry.addresses)
        expect(
          chain(a.chainId).tokens.some((r: Json) => r.address === a.address),
          `${a.chainId}/${a.address}`,
        ).toBe(true);
    }
    const examples = [
      ...example("/v1/tokens/baskets").baskets,
      example("/v1/tokens/baskets/{basketId}").basket,
      example("/v1/tokens/baskets/{chainId}/{basketId}").basket,
    ];
    for (const basket of examples) {
      const record = baskets.find((b) => b.id === basket.id);
      expect(record, `basket ${basket.id}`).toBeDefined();
      expect([basket.name, basket.description, basket.logoUrl]).toEqual([record.name, record.description, record.logoUrl]);
      for (const a of basket.addresses)
        expect(record.addresses[String(a.chainId)], `${basket.id} ${a.chainId}/${a.address}`).toContain(a.address);
      for (const t of basket.tokens) {
        expectSampleToken(t);
        tokens++;
      }
    }
    expect(tokens).toBeGreaterThanOrEqual(8);
  });
});

// ------------------------------------------------------------------ live responses

function expectSuccessData(res: HttpResponse): Json {
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.body.data;
}

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
