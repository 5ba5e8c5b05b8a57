/**
 * The request path in-process (createApp on an ephemeral port), attacked as
 * issue 9 describes: deep nesting in every field at every depth up to the body
 * limit, huge key counts, HEAD on every route, pipelining, odd Authorization
 * headers and key bytes, per-address limits from distinct client addresses,
 * handlers that throw or reject, clients that never read. Every case asserts
 * the documented 4xx (or the response) and that the app keeps serving.
 */
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../../src/api/limits.js";
import { dataReply, rawJson } from "../../src/http/reply.js";
import type { RouteSpec } from "../../src/http/route.js";
import { ROUTES } from "../../src/http/route-table.js";
import { basicFixture, KEYS, P, poolsFixture, standardKeys, type TestKey } from "../support/fixtures.js";
import { expectError, expectValidation, request, type HttpResponse } from "../support/gateway-process.js";
import { startInProcess, type InProcessApp } from "../support/in-process-app.js";
import { rawExchange, rawRequest } from "../support/raw-http.js";

/** A UTF-8 key with letters outside ASCII (the key ends in ASCII: see docs/operators.md, "API keys"). */
const UNICODE_KEY = "clé-partenaire-Ω-über-0123456789";

function post(app: InProcessApp, path: string, body: string, key: string | null = KEYS.active): Promise<HttpResponse> {
  return request(app.baseUrl, path, { method: "POST", key, headers: { "content-type": "application/json" }, body });
}

/** GET from a chosen local address (127.0.0.0/8 is all loopback on Linux). */
function getFrom(
  app: InProcessApp,
  path: string,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port: app.port, path, localAddress, headers, agent: false }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text), headers: res.headers }));
      })
      .on("error", reject);
  });
}

const nestedArrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

/** Where the nesting goes, and how many levels the body adds around it. */
const POSITIONS: ReadonlyArray<{ name: string; outer: number; wrap: (inner: string) => string }> = [
  { name: "the body itself", outer: 0, wrap: (inner) => inner },
  { name: "config", outer: 1, wrap: (inner) => `{"config":${inner}}` },
  { name: "filters", outer: 1, wrap: (inner) => `{"filters":${inner}}` },
  { name: "config.orderBy.direction", outer: 3, wrap: (inner) => `{"config":{"orderBy":{"direction":${inner}}}}` },
  { name: "filters.chainIds[0]", outer: 3, wrap: (inner) => `{"filters":{"chainIds":[${inner}]}}` },
  { name: "config.cursor", outer: 2, wrap: (inner) => `{"config":{"cursor":${inner}}}` },
  { name: "an unknown property", outer: 1, wrap: (inner) => `{"zzz":${inner}}` },
];

describe("bodies that attack the parser, the validator and the error echo", () => {
  let app: InProcessApp;
  beforeAll(async () => {
    app = await startInProcess(basicFixture());
  });
  afterAll(() => app.close());

  // Depths from shallow to the deepest a 64 KiB body can hold.
  const depths = [1, 16, MAX_JSON_DEPTH - 4, MAX_JSON_DEPTH - 3, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 1000, 16_719, 32_000];
  for (const position of POSITIONS) {
    for (const [shape, nest] of [
      ["arrays", nestedArrays],
      ["objects", nestedObjects],
    ] as const) {
      it(`nesting of ${shape} in ${position.name}: 400 at every depth, never a crash`, async () => {
        // Valid JSON at any depth, past MAX_JSON_DEPTH too: the first failing property is the one the
        // shallowest such body fails on (issue 19: no longer MALFORMED_JSON past the limit).
        const reference = expectError(await post(app, "/v1/tokens", position.wrap(nest(1))), 400, "VALIDATION_ERROR");
        let beyond = 0;
        for (const depth of depths) {
          const body = position.wrap(nest(depth));
          if (body.length > MAX_BODY_BYTES) continue;
          if (position.outer + depth > MAX_JSON_DEPTH) beyond++;
          const res = await post(app, "/v1/tokens", body);
          const error = expectError(res, 400, "VALIDATION_ERROR");
          expect(error.metadata.property, `depth ${depth}`).toBe(reference.metadata.property);
          expect(Object.keys(error.metadata.constraints), `depth ${depth}`).toEqual(Object.keys(reference.metadata.constraints));
          // The echoed value is either the value or a short summary; the body stays small.
          expect(res.text.length).toBeLessThan(20_000);
        }
        expect(beyond).toBeGreaterThanOrEqual(2);
        expect((await request(app.baseUrl, "/health")).status).toBe(200);
      });
    }
  }

  it("thousands of unknown properties: the first one is reported, in time linear in the body", async () => {
    for (const count of [3000, 6000]) {
      const body = `{${Array.from({ length: count }, (_, i) => `"k${i}":1`).join(",")}}`;
      expect(body.length).toBeLessThanOrEqual(MAX_BODY_BYTES);
      const started = performance.now();
      const res = await post(app, "/v1/tokens", body);
      const ms = performance.now() - started;
      expectValidation(res, "k0", "whitelist");
      // 6,000 keys took 2.8 s with the quadratic ranking; a linear one takes milliseconds.
      expect(ms).toBeLessThan(1000);
    }
  });

  it("tens of thousands of bad array items and a 60 KB cursor: one 400 each, bounded echo", async () => {
    const items = `{"filters":{"chainIds":[${Array.from({ length: 15_000 }, () => '"x"').join(",")}]}}`;
    expectValidation(await post(app, "/v1/tokens", items), "filters.chainIds.0", ["isNumber", "isInt"]);
    const cursor = "A".repeat(60_000);
    const res = await post(app, "/v1/tokens", JSON.stringify({ config: { cursor } }));
    const error = expectError(res, 400, "INVALID_PAGINATION_CURSOR");
    expect(String(error.metadata.receivedCursor)).toMatch(/^A{200}… \(60000 characters, not shown in full\)$/);
  });

  it("bodies over the limit are 413, declared or streamed", async () => {
    expectError(await post(app, "/v1/tokens", " ".repeat(MAX_BODY_BYTES + 1)), 413, "PAYLOAD_TOO_LARGE");
  });
});

describe("HEAD, pipelining and framing", () => {
  let app: InProcessApp;
  /** A concrete path for each GET route with path parameters. */
  let concrete: Record<string, string>;
  beforeAll(async () => {
    const files = poolsFixture();
    app = await startInProcess(files, {
      baskets: { baskets: [{ id: "usd", name: "USD", description: "Dollars", logoUrl: "https://l", addresses: { "1": [P.usdc1] } }] },
    });
    concrete = {
      "pools.get": `/v1/pools/${files[0].chainId}/${files[0].pools[0].address}`,
      "tokens.basket": "/v1/tokens/baskets/usd",
      "tokens.chainBasket": "/v1/tokens/baskets/1/usd",
      "tokens.price": `/v1/tokens/prices/1/${P.usdc1}/usd`,
      "tokens.byAddress": `/v1/tokens/${P.usdc1}`,
      "tokens.chainToken": `/v1/tokens/1/${P.usdc1}`,
      "docs.asset": "/docs/assets/docs.js",
      // History is off in this app: 404 HISTORY_DISABLED, which HEAD answers alike.
      "history.tokenOhlcv": `/v1/history/tokens/1/${P.usdc1}/ohlcv/hour`,
      "history.pool": `/v1/history/pools/${files[0].chainId}/${files[0].pools[0].address}/hour`,
    };
  });
  afterAll(() => app.close());

  /** A concrete path for every GET route of the table. */
  function getPaths(): string[] {
    return ROUTES.filter((r) => r.method === "GET").map((r) => (r.path.includes("{") ? concrete[r.name] : r.path));
  }

  it("every GET route has a concrete path here", () => {
    const withParams = ROUTES.filter((r) => r.method === "GET" && r.path.includes("{")).map((r) => r.name);
    expect(withParams.sort()).toEqual(Object.keys(concrete).sort());
  });

  it("HEAD on every GET route: the GET status and headers, Content-Length of the GET body, no body; the next response on the connection intact", async () => {
    const auth = { authorization: `Bearer ${KEYS.active}` };
    for (const path of [...getPaths(), "/v1/pools/1/0xnot-an-address", "/no/such/route"]) {
      const payload = Buffer.concat([rawRequest("HEAD", path, auth), rawRequest("GET", path, auth), rawRequest("GET", "/health")]);
      const { responses, rest } = await rawExchange(app.port, payload, { responses: 3, methods: ["HEAD", "GET", "GET"] });
      expect(responses.length, path).toBe(3);
      const [head, get, health] = responses;
      expect(head.status, path).toBe(get.status);
      expect(head.body.length, path).toBe(0);
      // An unknown path's 404 names the method it was asked with (message and metadata), so its length differs from GET's by that.
      if (path === "/no/such/route")
        expect(Number(head.header("content-length")) - get.body.length).toBe(2 * ("HEAD".length - "GET".length));
      else expect(Number(head.header("content-length")), path).toBe(get.body.length);
      for (const name of ["content-type", "x-snapshot-version", "x-error-code", "ratelimit-limit"])
        expect(head.header(name) !== undefined, `${path} ${name}`).toBe(get.header(name) !== undefined);
      if (get.header("content-type")?.startsWith("application/json")) expect(() => JSON.parse(get.body.toString()), path).not.toThrow();
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body.toString())).toEqual({ status: "ok" });
      expect(rest.length, `${path}: no stray bytes`).toBe(0);
    }
  });

  it("many pipelined requests in one write are answered in order", async () => {
    const paths = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? "/health" : i % 3 === 1 ? concrete["pools.get"] : "/v1/protocols"));
    const payload = Buffer.concat(
      paths.map((p) => rawRequest("GET", p, { authorization: `Bearer ${KEYS.active}`, "x-trace-id": `trace-${p.length}` })),
    );
    const { responses } = await rawExchange(app.port, payload, { responses: paths.length, methods: paths.map(() => "GET") });
    expect(responses.map((r) => r.status)).toEqual(paths.map(() => 200));
    responses.forEach((r, i) => {
      const body = JSON.parse(r.body.toString());
      if (paths[i] === "/health") expect(body).toEqual({ status: "ok" });
      else expect(body.path).toBe(paths[i]);
    });
  });

  it("pipelined POST bodies are each read as their own request", async () => {
    const body = JSON.stringify({ config: { limit: 1 } });
    const headers = { authorization: `Bearer ${KEYS.active}`, "content-type": "application/json" };
    const payload = Buffer.concat([
      rawRequest("POST", "/v1/tokens", headers, body),
      rawRequest("POST", "/v1/tokens", headers, "{bad"),
      rawRequest("POST", "/v1/tokens", headers, body),
    ]);
    const { responses } = await rawExchange(app.port, payload, { responses: 3, methods: ["POST", "POST", "POST"] });
    expect(responses.map((r) => r.status)).toEqual([200, 400, 200]);
    expect(JSON.parse(responses[1].body.toString()).error.code).toBe("MALFORMED_JSON");
  });
});

describe("Authorization headers and key bytes", () => {
  let app: InProcessApp;
  const keys: TestKey[] = [...standardKeys(), { id: "unicode", key: UNICODE_KEY, rateLimit: { requests: 1000, windowSeconds: 60 } }];
  beforeAll(async () => {
    app = await startInProcess(basicFixture(), { keys });
  });
  afterAll(() => app.close());

  async function withAuthorization(value: Buffer | null): Promise<{ status: number; code: string | undefined }> {
    const headers = value === null ? {} : { authorization: value };
    const { responses } = await rawExchange(app.port, rawRequest("GET", "/v1/protocols", headers), { responses: 1, methods: ["GET"] });
    expect(responses.length).toBe(1);
    const body = JSON.parse(responses[0].body.toString());
    return { status: responses[0].status, code: body.error?.code };
  }

  const latin1 = (text: string) => Buffer.from(text, "latin1");
  it.each([
    ["no header", null, 401, "API_KEY_MISSING"],
    ["empty", latin1(""), 401, "API_KEY_MISSING"],
    ["only spaces", latin1("   "), 401, "API_KEY_MISSING"],
    ["the word only", latin1("Bearer"), 401, "API_KEY_INVALID"],
    ["lowercase scheme", latin1(`bearer ${KEYS.active}`), 401, "API_KEY_INVALID"],
    ["two spaces", latin1(`Bearer  ${KEYS.active}`), 401, "API_KEY_INVALID"],
    ["a tab", latin1(`Bearer\t${KEYS.active}`), 401, "API_KEY_INVALID"],
    ["another scheme", latin1("Basic dXNlcjpwYXNz"), 401, "API_KEY_INVALID"],
    ["a second word", latin1(`Bearer ${KEYS.active} extra`), 401, "API_KEY_INVALID"],
    ["a 3,000-byte key", latin1(`Bearer ${"k".repeat(3000)}`), 401, "API_KEY_NOT_FOUND"],
    ["trailing spaces around a valid key", latin1(`Bearer ${KEYS.active}   `), 200, undefined],
    ["a UTF-8 key sent as UTF-8 bytes", Buffer.concat([latin1("Bearer "), Buffer.from(UNICODE_KEY, "utf8")]), 200, undefined],
    [
      "the same key sent as latin1 bytes",
      Buffer.concat([latin1("Bearer "), Buffer.from(UNICODE_KEY.replace("Ω", "O"), "latin1")]),
      401,
      "API_KEY_NOT_FOUND",
    ],
  ] as const)("%s → %s %s", async (_name, value, status, code) => {
    expect(await withAuthorization(value as Buffer | null)).toEqual({ status, code });
  });

  it("the UTF-8 key is counted under its own quota", async () => {
    const { responses } = await rawExchange(
      app.port,
      rawRequest("GET", "/v1/protocols", { authorization: Buffer.concat([latin1("Bearer "), Buffer.from(UNICODE_KEY, "utf8")]) }),
      {
        responses: 1,
        methods: ["GET"],
      },
    );
    expect(responses[0].header("ratelimit-limit")).toBe("1000");
  });
});

describe("limits per client address", () => {
  let app: InProcessApp;
  beforeAll(async () => {
    app = await startInProcess(basicFixture(), {
      failedAuthLimit: { requests: 5, windowSeconds: 60 },
      publicRateLimit: { requests: 3, windowSeconds: 60 },
    });
  });
  afterAll(() => app.close());

  it("wrong keys from one address lock out that address only: another address's valid key is served", async () => {
    for (let i = 0; i < 5; i++)
      expect((await getFrom(app, "/v1/protocols", "127.0.0.2", { authorization: `Bearer wrong-key-${i}` })).status).toBe(401);
    const blocked = await getFrom(app, "/v1/protocols", "127.0.0.2", { authorization: "Bearer wrong-key-x" });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(blocked.body.error.metadata.retryAfterSeconds).toBe(Number(blocked.headers["retry-after"]));
    // From the blocked address a valid key not confirmed yet is refused like a guess (and stays unconfirmed)...
    expect((await getFrom(app, "/v1/protocols", "127.0.0.2", { authorization: `Bearer ${KEYS.active}` })).status).toBe(429);
    expect((await getFrom(app, "/v1/protocols", "127.0.0.2", { authorization: `Bearer ${KEYS.active}` })).status).toBe(429);
    // Every other address is untouched, whatever it shares with the attacker's.
    for (const victim of ["127.0.0.3", "127.0.0.4", "127.0.2.2", "127.2.0.2"]) {
      expect((await getFrom(app, "/v1/protocols", victim, { authorization: `Bearer ${KEYS.active}` })).status, victim).toBe(200);
    }
    // ...and once confirmed (served elsewhere), the key is served from the blocked address too: a partner sharing
    // the attacker's NAT or proxy is not locked out.
    expect((await getFrom(app, "/v1/protocols", "127.0.0.2", { authorization: `Bearer ${KEYS.active}` })).status).toBe(200);
  });

  it("requests without a key are limited per address; other addresses are served; health probes never are", async () => {
    for (let i = 0; i < 3; i++) expect((await getFrom(app, "/v1/openapi.json", "127.0.0.5")).status).toBe(200);
    const over = await getFrom(app, "/v1/openapi.json", "127.0.0.5");
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(over.headers["retry-after"]).toBeDefined();
    expect((await getFrom(app, "/no/such/route", "127.0.0.5")).status).toBe(429);
    expect((await getFrom(app, "/v1/openapi.json", "127.0.0.6")).status).toBe(200);
    for (const probe of ["/health", "/ready"]) expect((await getFrom(app, probe, "127.0.0.5")).status, probe).not.toBe(429);
  });
});

describe("handlers that fail", () => {
  let app: InProcessApp;
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const doc = { operationId: "x", summary: "x", success: { description: "x", schema: "x", snapshotVersion: "never" as const }, errors: [] };
  const routes: RouteSpec[] = [
    {
      name: "throws",
      method: "GET",
      path: "/throws",
      access: "public",
      body: false,
      handler: () => {
        throw new TypeError("boom");
      },
      doc,
    },
    {
      name: "rejects",
      method: "GET",
      path: "/rejects",
      access: "public",
      body: false,
      handler: async () => {
        await new Promise((r) => setTimeout(r, 5));
        throw new RangeError("late boom");
      },
      doc,
    },
    {
      name: "cyclic",
      method: "GET",
      path: "/cyclic",
      access: "public",
      body: false,
      handler: () => {
        throw new ApiError("VALIDATION_ERROR", "bad", "bad", { property: "x", value: cyclic, constraints: {} });
      },
      doc,
    },
    {
      name: "bigint",
      method: "GET",
      path: "/bigint",
      access: "public",
      body: false,
      handler: () => {
        throw new ApiError("VALIDATION_ERROR", "bad", "bad", { property: "x", value: 10n ** 30n, constraints: {} });
      },
      doc,
    },
    {
      name: "slow",
      method: "GET",
      path: "/slow",
      access: "public",
      body: false,
      handler: async () => {
        await new Promise((r) => setTimeout(r, 200));
        return dataReply(['"late"']);
      },
      doc,
    },
    { name: "ok", method: "GET", path: "/ok", access: "public", body: false, handler: () => rawJson(200, '{"ok":true}'), doc },
  ];
  beforeAll(async () => {
    app = await startInProcess(basicFixture(), { routes });
  });
  afterAll(() => app.close());

  it("a sync throw and an async rejection are each one 500 UNKNOWN_ERROR that leaks nothing", async () => {
    for (const path of ["/throws", "/rejects"]) {
      const error = expectError(await request(app.baseUrl, path, { key: null }), 500, "UNKNOWN_ERROR");
      expect(JSON.stringify(error)).not.toMatch(/boom|TypeError|RangeError|at /);
    }
    expect((await request(app.baseUrl, "/ok", { key: null })).status).toBe(200);
  });

  it("metadata that cannot be serialised as is (cyclic, bigint) is summarised, never a crash", async () => {
    const cyclicError = expectError(await request(app.baseUrl, "/cyclic", { key: null }), 400, "VALIDATION_ERROR");
    expect(cyclicError.metadata.value).toMatch(/too large or too deep/);
    const bigError = expectError(await request(app.baseUrl, "/bigint", { key: null }), 400, "VALIDATION_ERROR");
    expect(bigError.metadata.value).toBe(String(10n ** 30n));
  });

  it("a client that leaves before an async reply: nothing is written, the request is settled", async () => {
    const before = app.counts.settled;
    await new Promise<void>((resolve) => {
      const req = http.get({ host: "127.0.0.1", port: app.port, path: "/slow", agent: false });
      req.on("error", () => resolve());
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 30);
    });
    await new Promise((r) => setTimeout(r, 400));
    expect(app.counts.settled).toBeGreaterThan(before);
    expect((await request(app.baseUrl, "/ok", { key: null })).status).toBe(200);
  });
});

describe("clients that never read", () => {
  const big = Buffer.alloc(4 * 1024 * 1024, 0x61);
  const doc = { operationId: "x", summary: "x", success: { description: "x", schema: "x", snapshotVersion: "never" as const }, errors: [] };
  const routes: RouteSpec[] = [
    ...ROUTES,
    {
      name: "big",
      method: "GET",
      path: "/big",
      access: "public",
      body: false,
      handler: () => ({ kind: "raw", status: 200, contentType: "text/plain", body: big }),
      doc,
    },
  ];

  it("a pipelining client that never reads makes the app read no further requests from it", async () => {
    const app = await startInProcess(basicFixture(), { routes });
    try {
      const { socket, done } = openNeverReading(app.port, Buffer.concat(Array.from({ length: 200 }, () => rawRequest("GET", "/big"))));
      await new Promise((r) => setTimeout(r, 500));
      // The kernel buffers take a few responses at most; then uWS stops parsing this connection.
      expect(app.counts.started).toBeLessThan(10);
      expect((await request(app.baseUrl, "/health", { key: null })).status).toBe(200);
      socket.destroy();
      await done;
      await waitUntil(() => app.counts.settled === app.counts.started);
    } finally {
      app.close();
    }
  });

  it("past the thread's cap on held bytes, such connections are closed and everyone else is served", async () => {
    const app = await startInProcess(basicFixture(), { routes, limits: { maxHeldBytes: 6 * 1024 * 1024 } });
    try {
      const clients = Array.from({ length: 6 }, () => openNeverReading(app.port, rawRequest("GET", "/big")));
      await waitUntil(() => app.counts.overloaded > 0);
      expect((await request(app.baseUrl, "/health", { key: null })).status).toBe(200);
      for (const c of clients) c.socket.destroy();
      await Promise.all(clients.map((c) => c.done));
      await waitUntil(() => app.counts.settled === app.counts.started);
    } finally {
      app.close();
    }
  });
});

function openNeverReading(port: number, payload: Buffer): { socket: net.Socket; done: Promise<void> } {
  const socket = net.connect({ port, host: "127.0.0.1" });
  socket.pause();
  socket.write(payload);
  const done = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.on("error", () => {});
  return { socket, done };
}

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
