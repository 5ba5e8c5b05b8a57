/**
 * api-decisions.md §1 (every response): envelopes and their key order, trace ids, routing
 * errors (404 / 405), body framing errors (413 / 415 / MALFORMED_JSON).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicFixture, P } from "../support/fixtures.js";
import {
  expectError,
  expectSuccess,
  getPool,
  getProtocols,
  postTokens,
  request,
  startWithFixtures,
  type Gateway,
} from "../support/gateway-process.js";

let gw: Gateway;
let base: string;

beforeAll(async () => {
  gw = await startWithFixtures(basicFixture());
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const MAX_BODY = 65_536;

/** A valid token-list body of exactly `size` bytes (JSON padded with trailing spaces). */
function bodyOfSize(size: number): string {
  const json = JSON.stringify({ config: { limit: 1 } });
  return json + " ".repeat(size - Buffer.byteLength(json));
}

describe("success envelope", () => {
  it("GET /v1/protocols: keys in order, 200, path, ISO timestamp, trace id header", async () => {
    const res = await getProtocols(base);
    const data = expectSuccess(res, "/v1/protocols");
    expect(Object.keys(data)).toEqual(["protocols"]);
  });

  it("POST /v1/tokens answers 200 (not 201) with the envelope", async () => {
    const res = await postTokens(base, {});
    const data = expectSuccess(res, "/v1/tokens");
    expect(Object.keys(data).sort()).toEqual(["nextCursor", "tokens"]);
  });

  it("GET /v1/pools/{chainId}/{address} answers the envelope with data.pool", async () => {
    const res = await getPool(base, 1, P.v3);
    const data = expectSuccess(res, `/v1/pools/1/${P.v3}`);
    expect(Object.keys(data)).toEqual(["pool"]);
  });

  it("path includes the query string (success and error)", async () => {
    expectSuccess(await request(base, "/v1/protocols?foo=bar&x=1"), "/v1/protocols?foo=bar&x=1");
    expectError(await request(base, "/v1/nope?a=1&b=2", { key: null }), 404, "ROUTE_NOT_FOUND", "/v1/nope?a=1&b=2");
  });

  it("timestamps are current ISO 8601 UTC", async () => {
    const before = Date.now();
    const res = await getProtocols(base);
    const after = Date.now();
    const t = Date.parse(res.body.timestamp);
    expect(t).toBeGreaterThanOrEqual(before - 2000);
    expect(t).toBeLessThanOrEqual(after + 2000);
    expect(res.body.timestamp.endsWith("Z")).toBe(true);
  });
});

describe("trace ids", () => {
  it("a valid incoming x-trace-id is echoed in the header and the envelope", async () => {
    for (const id of ["abc-123._XYZ", "a", "x".repeat(128), "0123456789", "A.B_C-D"]) {
      const res = await getProtocols(base, { headers: { "x-trace-id": id } });
      expectSuccess(res);
      expect(res.body.traceId).toBe(id);
      expect(res.headers.get("x-trace-id")).toBe(id);
    }
  });

  it("a valid trace id is echoed on errors too", async () => {
    const res = await request(base, "/v1/unknown", { key: null, headers: { "x-trace-id": "err-trace.1" } });
    expectError(res, 404, "ROUTE_NOT_FOUND");
    expect(res.body.traceId).toBe("err-trace.1");
    const res2 = await postTokens(base, { config: { limit: 0 } }, { headers: { "x-trace-id": "err-trace.2" } });
    expectError(res2, 400, "VALIDATION_ERROR");
    expect(res2.body.traceId).toBe("err-trace.2");
  });

  it("an invalid incoming x-trace-id is replaced by a fresh id", async () => {
    for (const id of ["x".repeat(129), "bad id", "bad/id", "semi;colon", "exclaim!"]) {
      const res = await getProtocols(base, { headers: { "x-trace-id": id } });
      expectSuccess(res);
      expect(res.body.traceId).not.toBe(id);
      expect(res.body.traceId.length).toBeGreaterThan(0);
      expect(res.headers.get("x-trace-id")).toBe(res.body.traceId);
    }
  });

  it("fresh ids differ between requests", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await getProtocols(base)).body.traceId);
    expect(ids.size).toBe(20);
  });
});

describe("404 ROUTE_NOT_FOUND (routing before auth)", () => {
  const cases: [string, string][] = [
    ["GET", "/"],
    ["GET", "/v1"],
    ["GET", "/v1/"],
    ["GET", "/v2/tokens"],
    ["POST", "/v1/nope"],
    ["DELETE", "/v1/unknown/deeper"],
    ["GET", "/v1/pools/1"],
    ["GET", `/v1/pools/1/${P.v3}/extra`],
    ["GET", "/v1/protocols/extra"],
    ["POST", "/v1/tokens/1/search/extra"],
    ["GET", "/v1/tokens/1/2/3"],
  ];
  for (const [method, path] of cases) {
    it(`${method} ${path} without a key → 404 with metadata.method`, async () => {
      const res = await request(base, path, { method, key: null });
      const err = expectError(res, 404, "ROUTE_NOT_FOUND", path);
      expect(err.metadata.method).toBe(method);
    });
  }

  it("also with a valid key", async () => {
    const res = await request(base, "/v1/nothing-here", { method: "PUT" });
    expect(expectError(res, 404, "ROUTE_NOT_FOUND").metadata.method).toBe("PUT");
  });
});

describe("405 METHOD_NOT_ALLOWED (routing before auth)", () => {
  const cases: [string, string, string][] = [
    ["GET", "/v1/tokens", "POST"],
    ["PUT", "/v1/tokens", "POST"],
    ["DELETE", "/v1/tokens", "POST"],
    ["PATCH", "/v1/tokens", "POST"],
    ["POST", "/v1/protocols", "GET"],
    ["DELETE", "/v1/protocols", "GET"],
    ["POST", `/v1/pools/1/${P.v3}`, "GET"],
    ["PUT", `/v1/pools/1/${P.v3}`, "GET"],
  ];
  for (const [method, path, allowed] of cases) {
    it(`${method} ${path} → 405, Allow: ${allowed}`, async () => {
      for (const key of [null, undefined]) {
        const res = await request(base, path, {
          method,
          key,
          ...(method === "GET" || method === "DELETE" ? {} : { body: "{}", headers: { "Content-Type": "application/json" } }),
        });
        const err = expectError(res, 405, "METHOD_NOT_ALLOWED", path);
        expect(Array.isArray(err.metadata.allowed)).toBe(true);
        expect(err.metadata.allowed).toContain(allowed);
        expect(err.metadata.allowed).not.toContain(method);
        const header = (res.headers.get("allow") ?? "")
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
        expect(header).toContain(allowed);
        expect([...header].sort()).toEqual([...err.metadata.allowed].sort());
      }
    });
  }

  it("405 on the pool route does not depend on the path parameters being valid", async () => {
    const res = await request(base, "/v1/pools/abc/0x123", {
      method: "POST",
      key: null,
      body: "{}",
      headers: { "Content-Type": "application/json" },
    });
    expectError(res, 405, "METHOD_NOT_ALLOWED");
  });
});

describe("413 PAYLOAD_TOO_LARGE", () => {
  it("a body of exactly 65,536 bytes is accepted", async () => {
    const body = bodyOfSize(MAX_BODY);
    expect(Buffer.byteLength(body)).toBe(MAX_BODY);
    const data = expectSuccess(await postTokens(base, body));
    expect(data.tokens.length).toBe(1);
  });

  it("a body of 65,537 bytes is rejected with maxBytes", async () => {
    const body = bodyOfSize(MAX_BODY + 1);
    expect(Buffer.byteLength(body)).toBe(MAX_BODY + 1);
    const err = expectError(await postTokens(base, body), 413, "PAYLOAD_TOO_LARGE", "/v1/tokens");
    expect(err.metadata.maxBytes).toBe(MAX_BODY);
  });

  it("a 1 MiB body is rejected too (and the server keeps serving)", async () => {
    const err = expectError(await postTokens(base, bodyOfSize(1024 * 1024)), 413, "PAYLOAD_TOO_LARGE");
    expect(err.metadata.maxBytes).toBe(MAX_BODY);
    expectSuccess(await getProtocols(base));
  });

  it("multi-byte characters count as bytes, not characters", async () => {
    // 65,537 bytes but fewer characters
    const json = JSON.stringify({ config: { cursor: "" } });
    const pad = MAX_BODY + 1 - Buffer.byteLength(json);
    const body = JSON.stringify({ config: { cursor: "é".repeat(Math.floor((pad - 0) / 2)) } });
    const exact = body + " ".repeat(MAX_BODY + 1 - Buffer.byteLength(body));
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY + 1);
    expect(exact.length).toBeLessThan(MAX_BODY);
    expectError(await postTokens(base, exact), 413, "PAYLOAD_TOO_LARGE");
  });
});

describe("415 UNSUPPORTED_MEDIA_TYPE", () => {
  it("text/plain → 415 with received", async () => {
    const res = await request(base, "/v1/tokens", { method: "POST", body: "{}", headers: { "Content-Type": "text/plain" } });
    const err = expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE", "/v1/tokens");
    expect(err.metadata.received).toBe("text/plain");
  });

  it("missing content-type → 415", async () => {
    const res = await request(base, "/v1/tokens", { method: "POST", body: new TextEncoder().encode("{}") });
    expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("other media types → 415", async () => {
    for (const ct of ["application/x-www-form-urlencoded", "application/xml", "multipart/form-data; boundary=x", "application/jsonx"]) {
      const res = await request(base, "/v1/tokens", { method: "POST", body: "{}", headers: { "Content-Type": ct } });
      expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
    }
  });

  it("application/json with a charset parameter is accepted", async () => {
    for (const ct of ["application/json; charset=utf-8", "application/json;charset=UTF-8", "application/json"]) {
      const res = await request(base, "/v1/tokens", { method: "POST", body: "{}", headers: { "Content-Type": ct } });
      expectSuccess(res);
    }
  });
});

describe("MALFORMED_JSON", () => {
  const bodies: [string, string][] = [
    ["empty", ""],
    ["whitespace only", "   "],
    ["garbage", "not json at all"],
    ["unterminated object", "{"],
    ["trailing comma", '{"config":{"limit":1},}'],
    ["single quotes", "{'config':{}}"],
    ["two values", "{} {}"],
  ];
  for (const [label, body] of bodies) {
    it(`${label} → 400 MALFORMED_JSON with a reason`, async () => {
      const res = await request(base, "/v1/tokens", { method: "POST", body, headers: { "Content-Type": "application/json" } });
      const err = expectError(res, 400, "MALFORMED_JSON", "/v1/tokens");
      expect(typeof err.metadata.reason).toBe("string");
      expect(err.metadata.reason.length).toBeGreaterThan(0);
    });
  }
});

describe("errors never leak as 5xx for client mistakes", () => {
  it("a burst of mixed bad requests all get 4xx and the server stays up", async () => {
    const reqs = [
      request(base, "/v1/tokens", { method: "POST", body: "\u0000\u0001", headers: { "Content-Type": "application/json" } }),
      request(base, "/v1/pools/%00/%00"),
      request(base, "/v1/pools/1/%zz"),
      request(base, "/v1/tokens", { method: "POST", body: '{"config":{"limit":1e999}}', headers: { "Content-Type": "application/json" } }),
      request(base, "/v1/tokens", { method: "POST", body: '{"__proto__":{"x":1}}', headers: { "Content-Type": "application/json" } }),
      request(base, "/v1/tokens", {
        method: "POST",
        body: '{"config":{"__proto__":{"limit":1}}}',
        headers: { "Content-Type": "application/json" },
      }),
      request(base, "/v1/tokens", {
        method: "POST",
        body: '{"constructor":{"prototype":{}}}',
        headers: { "Content-Type": "application/json" },
      }),
    ];
    for (const res of await Promise.all(reqs)) {
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      expect(res.status, res.text).toBeLessThan(500);
      expect(res.headers.get("x-error-code")).toBe(res.body?.error?.code);
    }
    expectSuccess(await getProtocols(base));
  });
});
