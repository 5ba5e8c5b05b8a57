/**
 * Compression, conditional requests and CORS through the request path
 * (in-process createApp): every compressed body decodes to the identity body,
 * ETags validate `data` and change with it, 304s carry no body and still count
 * against the key's quota, and CORS answers only the origins allowed.
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CorsPolicy } from "../../src/http/transport/cors.js";
import { DEFAULT_TRANSPORT } from "../../src/http/response-writer.js";
import { KEYS, poolsFixture, tokenListFixture } from "../support/fixtures.js";
import { startInProcess, type InProcessApp } from "../support/in-process-app.js";
import { rawExchange, rawRequest, type RawResponse } from "../support/raw-http.js";

const auth = { authorization: `Bearer ${KEYS.active}` };

async function one(
  app: InProcessApp,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  const { responses } = await rawExchange(app.port, rawRequest(method, path, headers, body), { responses: 1, methods: [method] });
  expect(responses.length, `${method} ${path} answered`).toBe(1);
  return responses[0];
}

function decoded(r: RawResponse): any {
  const coding = r.header("content-encoding");
  const bytes = coding === "gzip" ? gunzipSync(r.body) : coding === "br" ? brotliDecompressSync(r.body) : r.body;
  return JSON.parse(bytes.toString("utf8"));
}

/** An envelope without the fields that differ on every response. */
function stable(envelope: any): unknown {
  const { timestamp: _t, traceId: _i, ...rest } = envelope;
  return rest;
}

describe("compression", () => {
  let app: InProcessApp;
  let poolPath: string;
  beforeAll(async () => {
    const files = [...poolsFixture(), ...tokenListFixture().filter((f) => !poolsFixture().some((p) => p.chainId === f.chainId))];
    app = await startInProcess(files);
    poolPath = `/v1/pools/${files[0].chainId}/${files[0].pools[0].address}`;
  });
  afterAll(() => app.close());

  const tokenPage = JSON.stringify({
    config: { limit: 500 },
    filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0 },
  });
  const requests = () => [
    { method: "GET", path: poolPath, body: undefined },
    { method: "POST", path: "/v1/tokens", body: tokenPage },
    { method: "GET", path: "/v1/openapi.json", body: undefined },
  ];

  it("gzip and br bodies decode to the identity body; Vary and Content-Length are right", async () => {
    for (const { method, path, body } of requests()) {
      const headers = { ...auth, ...(body ? { "content-type": "application/json" } : {}) };
      const identity = await one(app, method, path, headers, body);
      expect(identity.header("content-encoding"), path).toBeUndefined();
      for (const [accept, coding] of [
        ["gzip", "gzip"],
        ["br", "br"],
        ["gzip, deflate, br", "gzip"],
        ["br;q=1, gzip;q=0.5", "br"],
      ] as const) {
        const r = await one(app, method, path, { ...headers, "accept-encoding": accept }, body);
        expect(r.status).toBe(200);
        expect(r.header("content-encoding"), `${path} ${accept}`).toBe(coding);
        expect(r.header("vary")).toMatch(/Accept-Encoding/);
        expect(Number(r.header("content-length"))).toBe(r.body.length);
        expect(r.body.length).toBeLessThan(identity.body.length);
        const value = decoded(r);
        if (path === "/v1/openapi.json") expect(value).toEqual(JSON.parse(identity.body.toString()));
        else expect(stable(value)).toEqual(stable(JSON.parse(identity.body.toString())));
      }
    }
  });

  it("a compressed body served again from the kept compression is identical but for the envelope", async () => {
    const first = await one(app, "GET", poolPath, { ...auth, "accept-encoding": "gzip", "x-trace-id": "same" });
    const second = await one(app, "GET", poolPath, { ...auth, "accept-encoding": "gzip", "x-trace-id": "same" });
    expect(stable(decoded(second))).toEqual(stable(decoded(first)));
  });

  it("identity;q=0 or *;q=0 without an acceptable coding, unknown codings, small bodies and HEAD: sent as is", async () => {
    for (const accept of ["identity;q=0", "*;q=0", "deflate", "zstd", "gzip;q=0"]) {
      const r = await one(app, "GET", poolPath, { ...auth, "accept-encoding": accept });
      expect(r.header("content-encoding"), accept).toBeUndefined();
      expect(JSON.parse(r.body.toString()).data.pool).toBeDefined();
    }
    const small = await one(app, "GET", "/health", { "accept-encoding": "gzip" });
    expect(small.header("content-encoding")).toBeUndefined();
    const head = await one(app, "HEAD", poolPath, { ...auth, "accept-encoding": "gzip" });
    expect(head.header("content-encoding")).toBeUndefined();
    expect(head.body.length).toBe(0);
  });

  it("errors are never compressed and never stored", async () => {
    const r = await one(
      app,
      "POST",
      "/v1/tokens",
      { ...auth, "content-type": "application/json", "accept-encoding": "gzip" },
      JSON.stringify({ zzz: "x".repeat(5000) }),
    );
    expect(r.status).toBe(400);
    expect(r.header("content-encoding")).toBeUndefined();
    expect(r.header("cache-control")).toBe("no-store");
  });
});

describe("conditional requests", () => {
  let app: InProcessApp;
  let poolPath: string;
  const files = poolsFixture();
  beforeAll(async () => {
    app = await startInProcess(files);
    poolPath = `/v1/pools/${files[0].chainId}/${files[0].pools[0].address}`;
  });
  afterAll(() => app.close());

  it("every 200 GET carries an ETag; If-None-Match with it → 304, no body, same ETag and snapshot version, still counted", async () => {
    for (const path of [poolPath, "/v1/protocols", "/health", "/ready", "/v1/openapi.json"]) {
      const first = await one(app, "GET", path, auth);
      const etag = first.header("etag")!;
      expect(etag, path).toMatch(/^(W\/)?"[0-9a-z-]+"$/);
      expect(first.header("cache-control")).toBe(path.startsWith("/v1/") && path !== "/v1/openapi.json" ? "private, no-cache" : "no-cache");
      const again = await one(app, "GET", path, { ...auth, "if-none-match": etag });
      expect(again.status, path).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.header("etag")).toBe(etag);
      expect(again.header("x-snapshot-version")).toBe(first.header("x-snapshot-version"));
      expect(again.header("content-length")).toBeUndefined();
      if (path.startsWith("/v1/") && path !== "/v1/openapi.json") {
        expect(Number(again.header("ratelimit-remaining"))).toBe(Number(first.header("ratelimit-remaining")) - 1);
      }
    }
  });

  it("enveloped answers have weak validators; constant bodies strong ones that differ per coding", async () => {
    expect((await one(app, "GET", poolPath, auth)).header("etag")).toMatch(/^W\//);
    const doc = await one(app, "GET", "/v1/openapi.json");
    const docGzip = await one(app, "GET", "/v1/openapi.json", { "accept-encoding": "gzip" });
    expect(doc.header("etag")).toMatch(/^"/);
    expect(docGzip.header("etag")).toBe(`${doc.header("etag")!.slice(0, -1)}-gzip"`);
    expect((await one(app, "GET", "/v1/openapi.json", { "if-none-match": docGzip.header("etag")! })).status).toBe(304);
  });

  it("lists, * and stale tags; HEAD; POST answers have no ETag", async () => {
    const etag = (await one(app, "GET", poolPath, auth)).header("etag")!;
    expect((await one(app, "GET", poolPath, { ...auth, "if-none-match": `"nope", ${etag}` })).status).toBe(304);
    expect((await one(app, "GET", poolPath, { ...auth, "if-none-match": "*" })).status).toBe(304);
    expect((await one(app, "GET", poolPath, { ...auth, "if-none-match": 'W/"stale"' })).status).toBe(200);
    expect((await one(app, "HEAD", poolPath, { ...auth, "if-none-match": etag })).status).toBe(304);
    const post = await one(app, "POST", "/v1/tokens", { ...auth, "content-type": "application/json", "if-none-match": "*" }, "{}");
    expect(post.status).toBe(200);
    expect(post.header("etag")).toBeUndefined();
  });

  it("a 304 is never sent for an error, and the ETag changes when the data does", async () => {
    const missing = await one(app, "GET", `/v1/pools/1/0x${"ab".repeat(20)}`, { ...auth, "if-none-match": "*" });
    expect(missing.status).toBe(404);
    const before = await one(app, "GET", poolPath, auth);
    const changed = poolsFixture().map((f) => ({
      ...f,
      generatedAt: f.generatedAt + 60,
      pools: f.pools.map((p, i) => (i === 0 ? { ...p, totalValueLockedUsd: p.totalValueLockedUsd + 1 } : p)),
    }));
    app.swap(changed);
    const after = await one(app, "GET", poolPath, { ...auth, "if-none-match": before.header("etag")! });
    expect(after.status).toBe(200);
    expect(after.header("etag")).not.toBe(before.header("etag"));
    expect(after.header("x-snapshot-version")).not.toBe(before.header("x-snapshot-version"));
  });
});

describe("CORS", () => {
  it("off by default: no CORS headers, and OPTIONS is not a method of any route", async () => {
    const app = await startInProcess(poolsFixture());
    try {
      const r = await one(app, "GET", "/v1/protocols", { ...auth, origin: "https://app.example.com" });
      expect(r.header("access-control-allow-origin")).toBeUndefined();
      const preflight = await one(app, "OPTIONS", "/v1/protocols", {
        origin: "https://app.example.com",
        "access-control-request-method": "GET",
      });
      expect(preflight.status).toBe(405);
    } finally {
      app.close();
    }
  });

  it("a listed origin gets the CORS headers on every answer (errors and 304 too); another origin none; preflights 204 without a key", async () => {
    const app = await startInProcess(poolsFixture(), {
      transport: { ...DEFAULT_TRANSPORT, cors: CorsPolicy.parse("https://app.example.com") },
    });
    try {
      const origin = { origin: "https://app.example.com" };
      const ok = await one(app, "GET", "/v1/protocols", { ...auth, ...origin });
      expect(ok.header("access-control-allow-origin")).toBe("https://app.example.com");
      expect(ok.header("access-control-expose-headers")).toMatch(/x-trace-id.*x-snapshot-version.*RateLimit-Remaining.*Retry-After.*ETag/);
      expect(ok.header("vary")).toBe("Accept-Encoding, Origin");
      const refused = await one(app, "GET", "/v1/protocols", origin);
      expect(refused.status).toBe(401);
      expect(refused.header("access-control-allow-origin")).toBe("https://app.example.com");
      const notModified = await one(app, "GET", "/v1/protocols", { ...auth, ...origin, "if-none-match": ok.header("etag")! });
      expect(notModified.status).toBe(304);
      expect(notModified.header("access-control-allow-origin")).toBe("https://app.example.com");
      expect(
        (await one(app, "GET", "/v1/protocols", { ...auth, origin: "https://evil.example" })).header("access-control-allow-origin"),
      ).toBeUndefined();

      const preflight = await one(app, "OPTIONS", "/v1/tokens", {
        ...origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      });
      expect(preflight.status).toBe(204);
      expect(preflight.header("access-control-allow-origin")).toBe("https://app.example.com");
      expect(preflight.header("access-control-allow-methods")).toBe("POST");
      expect(preflight.header("access-control-allow-headers")).toMatch(/Authorization.*Content-Type.*x-trace-id/);
      expect(Number(preflight.header("access-control-max-age"))).toBeGreaterThan(0);
      expect(preflight.body.length).toBe(0);
      expect(
        (await one(app, "OPTIONS", "/v1/pools/1/0xabc", { ...origin, "access-control-request-method": "GET" })).header(
          "access-control-allow-methods",
        ),
      ).toBe("GET, HEAD");
      expect((await one(app, "OPTIONS", "/no/such/path", { ...origin, "access-control-request-method": "GET" })).status).toBe(404);
      // Not a preflight (no Access-Control-Request-Method), or from another origin: OPTIONS is routed like any method.
      expect((await one(app, "OPTIONS", "/v1/tokens", origin)).status).toBe(405);
      expect(
        (await one(app, "OPTIONS", "/v1/tokens", { origin: "https://evil.example", "access-control-request-method": "POST" })).status,
      ).toBe(405);
    } finally {
      app.close();
    }
  });

  it("`*` answers every origin with `*` and does not vary by Origin", async () => {
    const app = await startInProcess(poolsFixture(), { transport: { ...DEFAULT_TRANSPORT, cors: CorsPolicy.parse("*") } });
    try {
      const r = await one(app, "GET", "/v1/protocols", { ...auth, origin: "https://anyone.example" });
      expect(r.header("access-control-allow-origin")).toBe("*");
      expect(r.header("vary")).toBe("Accept-Encoding");
    } finally {
      app.close();
    }
  });
});
