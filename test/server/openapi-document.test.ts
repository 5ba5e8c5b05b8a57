/**
 * GET /v1/openapi.json, the document: it is valid OpenAPI 3.1 (checked by an independent validator) and the real
 * server keeps it: every route is documented, the request and path-parameter schemas accept exactly what the server
 * accepts, the documented defaults are the server's, and the examples match their schemas and come from the bundled
 * sample data. The live responses of every route against the document: openapi-live.test.ts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { unpack } from "msgpackr";
import { describe, expect, it } from "vitest";
import { ERROR_CATALOGUE } from "../../src/api/errors.js";
import { ROUTES } from "../../src/http/route-table.js";
import { NATIVE_ADDRESS, P, poolId } from "../support/fixtures.js";
import { getPool, postPoolSearch, postJson, postTokens, PROJECT_ROOT, request } from "../support/gateway-process.js";
import {
  base,
  served,
  doc,
  useDocumentedGateway,
  type Json,
  schemaErrors,
  expectMatches,
  component,
  defaultsOf,
  operations,
  expectSuccessData,
} from "../support/documented-gateway.js";

useDocumentedGateway();

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
