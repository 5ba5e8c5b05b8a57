/** Pure pieces of the request path: the router, the JSON nesting scan, the bounded echo of error metadata. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { boundedEcho, ECHO_MAX_CHARS } from "../../../src/http/bounded-echo.js";
import { ApiError } from "../../../src/api/errors.js";
import { jsonNestingDepth, parseJsonBody, TOO_DEEP } from "../../../src/http/json-body.js";
import { MAX_JSON_DEPTH } from "../../../src/api/limits.js";
import type { RouteSpec } from "../../../src/http/route.js";
import { Router } from "../../../src/http/router.js";

const route = (name: string, method: "GET" | "POST", path: string): RouteSpec => ({
  name,
  method,
  path,
  access: "public",
  body: method === "POST",
  handler: () => ({ kind: "raw", status: 200, contentType: "text/plain", body: name }),
  doc: { operationId: name, summary: name, success: { description: name, schema: name, snapshotVersion: "never" }, errors: [] },
});

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("Router", () => {
  const routes = [
    route("list", "POST", "/v1/tokens"),
    route("search", "POST", "/v1/tokens/search"),
    route("chain", "POST", "/v1/tokens/{chainId}"),
    route("byAddress", "GET", "/v1/tokens/{tokenAddress}"),
    route("baskets", "GET", "/v1/tokens/baskets"),
    route("basket", "GET", "/v1/tokens/baskets/{basketId}"),
    route("token", "GET", "/v1/tokens/{chainId}/{tokenAddress}"),
    route("price", "GET", "/v1/tokens/prices/{chainId}/{tokenAddress}/usd"),
  ];
  const router = new Router(routes);
  const name = (method: string, url: string) => {
    const m = router.match(method, url);
    return [router.route(m.index).name, ...m.params];
  };

  test("literal segments win over parameters; parameters are captured in order", () => {
    expect(name("POST", "/v1/tokens/search")).toEqual(["search"]);
    expect(name("POST", "/v1/tokens/8453")).toEqual(["chain", "8453"]);
    expect(name("GET", "/v1/tokens/0xabc")).toEqual(["byAddress", "0xabc"]);
    expect(name("GET", "/v1/tokens/baskets")).toEqual(["baskets"]);
    expect(name("GET", "/v1/tokens/baskets/usd")).toEqual(["basket", "usd"]);
    expect(name("GET", "/v1/tokens/1/0xabc")).toEqual(["token", "1", "0xabc"]);
    expect(name("GET", "/v1/tokens/prices/1/0xabc/usd")).toEqual(["price", "1", "0xabc"]);
    expect(name("HEAD", "/v1/tokens/baskets")).toEqual(["baskets"]);
  });

  test("a literal path with another method is 405 with its own methods, never a parameter route", () => {
    const error = refusal(() => router.match("GET", "/v1/tokens/search"));
    expect(error.code).toBe("METHOD_NOT_ALLOWED");
    expect(error.metadata).toEqual({ allowed: ["POST"] });
    expect(error.headers).toEqual({ allow: "POST" });
    expect(refusal(() => router.match("DELETE", "/v1/tokens/baskets")).metadata).toEqual({ allowed: ["GET", "HEAD"] });
  });

  test("unknown paths, empty segments and trailing slashes are 404", () => {
    for (const url of ["/", "/v1", "/v1/tokens/", "/v1//tokens", "/v1/tokens/1/0xabc/extra", "v1/tokens", "/v1/tokens/prices/1/0xabc"]) {
      const error = refusal(() => router.match("GET", url));
      expect(error.code, url).toBe("ROUTE_NOT_FOUND");
      expect(error.details).toContain("GET /v1/tokens/{tokenAddress}");
    }
  });

  test("a route declared twice is refused when the table is compiled", () => {
    expect(() => new Router([route("a", "GET", "/x"), route("a", "GET", "/y")])).toThrow(/declared twice/);
    expect(() => new Router([route("a", "GET", "/x/{p}"), route("b", "GET", "/x/{q}")])).toThrow(/declared twice/);
  });
});

describe("jsonNestingDepth", () => {
  test("counts arrays and objects, ignores brackets inside strings and escaped quotes", () => {
    expect(jsonNestingDepth(Buffer.from('{"a":[1,{"b":[]}]}'))).toBe(4);
    expect(jsonNestingDepth(Buffer.from('"[[[[{{{{"'))).toBe(0);
    expect(jsonNestingDepth(Buffer.from('["\\"[[[", [1]]'))).toBe(2);
    expect(jsonNestingDepth(Buffer.from('{"k\\\\":[[]]}'))).toBe(3);
  });

  test("agrees with the depth of any JSON value", () => {
    const depthOf = (v: unknown): number =>
      v !== null && typeof v === "object" ? 1 + Math.max(0, ...Object.values(v as object).map(depthOf)) : 0;
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), (v) => jsonNestingDepth(Buffer.from(JSON.stringify(v))) === depthOf(v)));
  });

  test(`valid bodies deeper than ${MAX_JSON_DEPTH} levels are cut there (issue 19); invalid ones are MALFORMED_JSON`, () => {
    expect(parseJsonBody(Buffer.from("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH)))).toBeInstanceOf(Array);
    let node = parseJsonBody(Buffer.from("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1)));
    for (let level = 1; level <= MAX_JSON_DEPTH; level++) node = (node as unknown[])[0];
    expect(node).toBe(TOO_DEEP);
    expect(refusal(() => parseJsonBody(Buffer.from("[".repeat(30_000)))).code).toBe("MALFORMED_JSON");
  });
});

describe("boundedEcho", () => {
  test("small, shallow values are echoed as they are", () => {
    for (const v of [null, 1, "x", true, [1, 2], { a: { b: [1] } }]) expect(boundedEcho(v)).toEqual(v);
  });

  test("deep, large or cyclic values become a short summary, whatever their shape", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(boundedEcho(deep)).toMatch(/^\[an array of 1 items/);
    expect(boundedEcho(Array.from({ length: 100_000 }, (_, i) => i))).toMatch(/100000 items/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(boundedEcho(cyclic)).toMatch(/^\{an object of 1 properties/);
    expect(boundedEcho("x".repeat(ECHO_MAX_CHARS + 1))).toMatch(/characters, not shown in full\)$/);
    fc.assert(fc.property(fc.anything(), (v) => JSON.stringify(boundedEcho(v) ?? null).length < 3 * ECHO_MAX_CHARS));
  });
});
