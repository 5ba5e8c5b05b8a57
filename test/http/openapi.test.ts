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
import { ERROR_CATALOGUE, type ErrorCode } from "../../src/http/errors.js";
import { ROUTES } from "../../src/http/route-table.js";
import { basicFixture, KEYS, P, poolId } from "../support/fixtures.js";
import {
  getPool,
  postTokens,
  PROJECT_ROOT,
  request,
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

beforeAll(async () => {
  gw = await startWithFixtures(basicFixture());
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
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === "$ref" && typeof value === "string" && value.startsWith("#/") ? DOC_ID + value : value));
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
  expectMatches(response.content["application/json"].schema, res.body, `${what}: body`);
  const documented = new Map(Object.entries<Json>(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), header]));
  for (const [name, header] of documented) {
    const value = res.headers.get(name);
    if (header.required) expect(value, `${what}: required header ${name}`).not.toBeNull();
    if (value !== null) expectMatches(header.schema, headerValue(value, header.schema), `${what}: header ${name}=${value}`);
  }
  for (const name of documentedHeaderNames()) {
    if (res.headers.get(name) !== null) expect(documented.has(name), `${what}: header ${name} is sent but not documented for this response`).toBe(true);
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
    for (const core of ["POST /v1/tokens", "GET /v1/pools/{chainId}/{poolAddress}", "GET /v1/protocols", "GET /health", "GET /ready", "GET /metrics", "GET /v1/openapi.json"]) {
      expect(routes).toContain(core);
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const { template, operation } of operations()) {
      if (["/health", "/ready", "/metrics", "/v1/openapi.json"].includes(template)) expect(operation.security, template).toEqual([]);
      else {
        expect(template, "every other route is under /v1").toMatch(/^\/v1\//);
        expect(operation.security, template).toBeUndefined();
      }
    }
  });

  it("has an envelope schema for every error code, with the catalogue's status and title", () => {
    const listed = new Set<string>();
    for (const { operation } of operations()) {
      for (const response of Object.values<Json>(operation.responses)) for (const code of response.headers?.["x-error-code"]?.schema.enum ?? []) listed.add(code);
    }
    for (const response of Object.values<Json>(doc.components.responses)) for (const code of response.headers["x-error-code"].schema.enum) listed.add(code);
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
      expect([404, 405].includes(res.status) && ["ROUTE_NOT_FOUND", "METHOD_NOT_ALLOWED"].includes(res.body?.error?.code), `${method} ${url}: ${res.text.slice(0, 300)}`).toBe(false);
    }
  });

  it("the request schema accepts exactly the bodies the server accepts", async () => {
    const bodies: unknown[] = [
      {},
      { config: { limit: 500, matchAllSymbols: true, cursor: null, orderBy: { field: "tvl", direction: "asc" } } },
      { config: { cursor: "" } },
      { filters: { chainIds: [1, 8453], minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0.5, ignoreWrappedNative: false } },
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
      expect(res.status === 200, `${JSON.stringify(body)}: schema says ${documentedValid ? "valid" : "invalid"}, server ${res.status} ${res.text.slice(0, 300)}`).toBe(documentedValid);
    }
  });

  it("the documented defaults are the ones the server applies", async () => {
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
    const explicit = defaultsOf(component("TokenListRequest"));
    expect(explicit).toEqual({
      config: { matchAllSymbols: expect.any(Boolean), limit: expect.any(Number), orderBy: { field: expect.any(String), direction: expect.any(String) } },
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
    const flipped = await postTokens(base, { ...explicit, filters: { ...explicit.filters, ignoreWrappedNative: !explicit.filters.ignoreWrappedNative } });
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

  it("a pool's metadata must have exactly the shape of its type", () => {
    const pool = component("Pool");
    const concentrated = { latestSqrtPriceX96: "79228162514264337593543950336", tickSpacing: 60, latestTick: "-12", positionManagerAddress: `0x${"1".repeat(40)}` };
    const base = {
      chainId: 1,
      address: `0x${"a".repeat(40)}`,
      createdAtTimestamp: 1_700_000_000,
      feeTier: { feeTierPercentage: 0.3, isDynamic: false },
      tokens: [],
      protocol: { id: "p", name: "P", logoUrl: "https://l", url: "https://u" },
      stats: Object.fromEntries(["stats24h", "stats7d", "stats30d", "stats90d"].map((k) => [k, { feesUsd: 0, swapVolumeUsd: 0, yield: 0, netInflowUsd: 0, liquidityVolumeUsd: 0 }])),
      balance: { totalValueLockedUsd: 0, tokens: [] },
    };
    expect(schemaErrors(pool, { ...base, type: "V3", metadata: concentrated })).toBeNull();
    expect(schemaErrors(pool, { ...base, type: "V2", metadata: { positionManagerAddress: concentrated.positionManagerAddress } })).toBeNull();
    // A V3 pool with only the V2 router field, or a V4 pool without its V4 fields, is not a valid pool.
    expect(schemaErrors(pool, { ...base, type: "V3", metadata: { positionManagerAddress: concentrated.positionManagerAddress } })).not.toBeNull();
    expect(schemaErrors(pool, { ...base, type: "V4", metadata: concentrated })).not.toBeNull();
    expect(schemaErrors(pool, { ...base, type: "V5", metadata: concentrated })).not.toBeNull();
  });

  it("every example matches its schema", () => {
    let checked = 0;
    for (const { template, method, operation } of operations()) {
      const contents: [string, Json][] = Object.entries<Json>(operation.responses).map(([status, r]) => [`${status}`, r.content?.["application/json"]]);
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
      for (const other of others) expect(chain(other.chainId).tokens.some((t: Json) => t.address === other.address), `token ${other.chainId}/${other.address}`).toBe(true);
      for (const id of entry.chainIds) expect(requestExample.filters.chainIds).toContain(id);
    }

    const pool = doc.paths["/v1/pools/{chainId}/{poolAddress}"].get.responses["200"].content["application/json"].examples.sample.value.data.pool;
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
    expect(pool.balance.tokens.map((t: Json) => [t.token.address, t.amount, t.amountUsd])).toEqual(record.tokens.map((t: Json) => [t.address, t.amount, t.amountUsd]));
    for (const token of pool.tokens) {
      const t = file.tokens.find((r: Json) => r.address === token.address);
      expect([token.symbol, token.name, token.decimals, token.logoUrl]).toEqual([t.symbol, t.name, t.decimals, t.logoUrl]);
    }

    const protocols = doc.paths["/v1/protocols"].get.responses["200"].content["application/json"].examples.sample.value.data.protocols;
    const sampleChains = [1, 130, 143, 999, 8453, 9745, 534352];
    for (const protocol of protocols) {
      expect(sampleChains.some((id) => chain(id).protocols.some((p: Json) => JSON.stringify(p) === JSON.stringify(protocol))), `protocol ${protocol.id}`).toBe(true);
    }
  });
});

// ------------------------------------------------------------------ live responses

interface LiveCase {
  name: string;
  method: string;
  template: string;
  status: number;
  code?: ErrorCode;
  send: () => Promise<HttpResponse>;
}

const json = { "Content-Type": "application/json" };
const POOLS = "/v1/pools/{chainId}/{poolAddress}";
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
        filters: { chainIds: [1, 8453], minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0, ignoreWrappedNative: false },
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
  ).map(([name, chainId, address]): LiveCase => ({ name: `pool ${name}`, method: "GET", template: POOLS, status: 200, send: () => getPool(base, chainId, address) })),
  { name: "protocols", method: "GET", template: "/v1/protocols", status: 200, send: () => request(base, "/v1/protocols") },
  { name: "health", method: "GET", template: "/health", status: 200, send: () => request(base, "/health", { key: null }) },
  { name: "ready", method: "GET", template: "/ready", status: 200, send: () => request(base, "/ready", { key: null }) },
  { name: "openapi", method: "GET", template: "/v1/openapi.json", status: 200, send: () => request(base, "/v1/openapi.json", { key: null }) },

  { name: "limit over 500", method: "POST", template: "/v1/tokens", status: 400, code: "VALIDATION_ERROR", send: () => postTokens(base, { config: { limit: 501 } }) },
  { name: "unknown property", method: "POST", template: "/v1/tokens", status: 400, code: "VALIDATION_ERROR", send: () => postTokens(base, { config: { foo: 1 } }) },
  { name: "body not an object", method: "POST", template: "/v1/tokens", status: 400, code: "VALIDATION_ERROR", send: () => postTokens(base, "[1]") },
  { name: "path chainId with a leading zero", method: "GET", template: POOLS, status: 400, code: "VALIDATION_ERROR", send: () => getPool(base, "01", P.v3) },
  { name: "syntax error", method: "POST", template: "/v1/tokens", status: 400, code: "MALFORMED_JSON", send: () => postTokens(base, '{"config":') },
  { name: "empty body", method: "POST", template: "/v1/tokens", status: 400, code: "MALFORMED_JSON", send: () => postTokens(base, "") },
  { name: "unsupported chain in filters", method: "POST", template: "/v1/tokens", status: 400, code: "UNSUPPORTED_CHAIN_ID", send: () => postTokens(base, { filters: { chainIds: [1, 5] } }) },
  { name: "unsupported chain in the path", method: "GET", template: POOLS, status: 400, code: "UNSUPPORTED_CHAIN_ID", send: () => getPool(base, 5, P.v3) },
  { name: "invalid pool address", method: "GET", template: POOLS, status: 400, code: "INVALID_POOL_ADDRESS", send: () => getPool(base, 1, "0x1234") },
  {
    name: "garbage cursor",
    method: "POST",
    template: "/v1/tokens",
    status: 400,
    code: "INVALID_PAGINATION_CURSOR",
    send: () => postTokens(base, { config: { cursor: "bm90LWEtY3Vyc29y" } }),
  },

  { name: "no key", method: "GET", template: "/v1/protocols", status: 401, code: "API_KEY_MISSING", send: () => request(base, "/v1/protocols", { key: null }) },
  {
    name: "another scheme",
    method: "POST",
    template: "/v1/tokens",
    status: 401,
    code: "API_KEY_INVALID",
    send: () => postTokens(base, {}, { headers: { Authorization: `Basic ${KEYS.active}` } }),
  },
  { name: "unknown key", method: "GET", template: POOLS, status: 401, code: "API_KEY_NOT_FOUND", send: () => getPool(base, 1, P.v3, { key: "lgw_nobody_0123456789abcdef" }) },
  { name: "disabled key", method: "GET", template: "/v1/protocols", status: 403, code: "API_KEY_DISABLED", send: () => request(base, "/v1/protocols", { key: KEYS.disabled }) },
  { name: "expired key", method: "POST", template: "/v1/tokens", status: 403, code: "API_KEY_EXPIRED", send: () => postTokens(base, {}, { key: KEYS.expired }) },
  { name: "route outside the key's routes", method: "POST", template: "/v1/tokens", status: 403, code: "API_KEY_FORBIDDEN", send: () => postTokens(base, {}, { key: KEYS.poolsOnly }) },
  { name: "chain outside the key's chains", method: "GET", template: POOLS, status: 403, code: "API_KEY_FORBIDDEN", send: () => getPool(base, 8453, P.slipstream, { key: KEYS.chain1Only }) },
  {
    name: "chain outside the key's chains (token list)",
    method: "POST",
    template: "/v1/tokens",
    status: 403,
    code: "API_KEY_FORBIDDEN",
    send: () => postTokens(base, { filters: { chainIds: [8453] } }, { key: KEYS.chain1Only }),
  },

  { name: "unknown pool", method: "GET", template: POOLS, status: 404, code: "LIQUIDITY_POOL_NOT_FOUND", send: () => getPool(base, 1, NO_POOL) },
  { name: "POST on protocols", method: "POST", template: "/v1/protocols", status: 405, code: "METHOD_NOT_ALLOWED", send: () => request(base, "/v1/protocols", { method: "POST" }) },
  { name: "GET on tokens", method: "GET", template: "/v1/tokens", status: 405, code: "METHOD_NOT_ALLOWED", send: () => request(base, "/v1/tokens", { key: null }) },
  { name: "DELETE on a pool", method: "DELETE", template: POOLS, status: 405, code: "METHOD_NOT_ALLOWED", send: () => request(base, `/v1/pools/1/${P.v3}`, { method: "DELETE" }) },
  { name: "POST on health", method: "POST", template: "/health", status: 405, code: "METHOD_NOT_ALLOWED", send: () => request(base, "/health", { method: "POST", key: null }) },
  { name: "PUT on ready", method: "PUT", template: "/ready", status: 405, code: "METHOD_NOT_ALLOWED", send: () => request(base, "/ready", { method: "PUT", key: null }) },
  { name: "POST on the document", method: "POST", template: "/v1/openapi.json", status: 405, code: "METHOD_NOT_ALLOWED", send: () => request(base, "/v1/openapi.json", { method: "POST", key: null }) },
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
  { name: "unloaded chain (token list)", method: "POST", template: "/v1/tokens", status: 503, code: "CHAIN_DATA_UNAVAILABLE", send: () => postTokens(base, { filters: { chainIds: [999] } }) },
  { name: "unloaded chain (pool)", method: "GET", template: POOLS, status: 503, code: "CHAIN_DATA_UNAVAILABLE", send: () => getPool(base, 999, NO_POOL) },
];

describe("live responses match the document", () => {
  for (const c of liveCases) {
    it(`${c.name}: ${c.method} ${c.template} → ${c.status}${c.code ? ` ${c.code}` : ""}`, async () => {
      const res = await c.send();
      expect(res.status, res.text.slice(0, 500)).toBe(c.status);
      if (c.code !== undefined) expect(res.body.error.code).toBe(c.code);
      expectDocumented(c.method, c.template, res);
    });
  }

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
