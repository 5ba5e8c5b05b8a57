/**
 * The request path when the access step continues asynchronously
 * (QUOTA_STORE=redis), in-process (createApp) against a real redis-server:
 * the checks keep their order (quota, then Content-Type, then the body), a
 * body arriving before or after Redis's answer is read whole, a client that
 * leaves while Redis decides gets nothing written and costs nothing, failed
 * authentications are counted in Redis, and a Redis that cannot be reached
 * at all never throws out of the store: open counts locally, closed answers
 * 503.
 */
import http from "node:http";
import net from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalQuotaStore } from "../../src/access/quota-store.js";
import { RedisQuotaStore, type RedisQuotaOptions } from "../../src/access/redis-quota-store.js";
import { basicFixture, KEYS, standardKeys, type TestKey } from "../support/fixtures.js";
import { startInProcess, type InProcessApp } from "../support/in-process-app.js";
import { parseResponses, rawExchange, rawRequest } from "../support/raw-http.js";
import { scriptCalls, startRedisServer, type RedisServer } from "../support/redis-server.js";

const FAILED_AUTH = { requests: 3, windowSeconds: 60 };
const SMALL_KEY = "lgw_test_small_quota_0123456789abc";

function redisStore(url: string, failure: "open" | "closed", uncounted: { n: number }): (local: LocalQuotaStore) => RedisQuotaStore {
  const options: RedisQuotaOptions = {
    url,
    keyPrefix: "inproc",
    timeoutMs: 250,
    failure,
    failedAuthLimit: FAILED_AUTH,
    defaultRateLimit: { requests: 1000, windowSeconds: 60 },
    maxKeys: 64,
  };
  return (local) => new RedisQuotaStore(options, local, pino({ level: "silent" }), () => uncounted.n++);
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

function call(
  app: InProcessApp,
  path: string,
  opts: { key?: string; method?: string; body?: string; contentType?: string; localAddress?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.key ?? KEYS.active}` };
  if (opts.contentType !== undefined) headers["content-type"] = opts.contentType;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: app.port, path, method: opts.method ?? "GET", headers, agent: false, localAddress: opts.localAddress },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the access step waiting for Redis", () => {
  let redis: RedisServer;
  let app: InProcessApp;
  const uncounted = { n: 0 };

  beforeAll(async () => {
    redis = await startRedisServer();
    const keys: TestKey[] = [
      ...standardKeys(),
      { id: "test-small", key: SMALL_KEY, status: "active", rateLimit: { requests: 2, windowSeconds: 3600 } },
    ];
    app = await startInProcess(basicFixture(), {
      keys,
      failedAuthLimit: FAILED_AUTH,
      quotaStore: redisStore(redis.url, "open", uncounted),
    });
    // The client connects right after start.
    for (let i = 0; i < 100 && app.ctx.quotas.status(Date.now()).state !== "connected"; i++) await sleep(20);
  });

  afterAll(async () => {
    app?.close();
    await redis?.stop();
  });

  it("counts in Redis: POST bodies are read, and the checks keep their order (quota, Content-Type, body size, JSON)", async () => {
    const before = await scriptCalls(redis);
    const ok = await call(app, "/v1/tokens", { method: "POST", body: '{"config":{"limit":2}}', contentType: "application/json" });
    expect(ok.status).toBe(200);
    expect(ok.body.data.tokens).toHaveLength(2);
    expect(ok.headers["ratelimit-limit"]).toBe("1000000");
    const remaining = Number(ok.headers["ratelimit-remaining"]);
    const plain = await call(app, "/v1/tokens", { method: "POST", body: "{}", contentType: "text/plain" });
    expect(plain.status).toBe(415);
    expect(Number(plain.headers["ratelimit-remaining"])).toBe(remaining - 1);
    const big = await call(app, "/v1/tokens", {
      method: "POST",
      body: `{"config":{}}${" ".repeat(70_000)}`,
      contentType: "application/json",
    });
    expect(big.status).toBe(413);
    const broken = await call(app, "/v1/tokens", { method: "POST", body: '{"config":', contentType: "application/json" });
    expect(broken.body.error.code).toBe("MALFORMED_JSON");
    expect((await scriptCalls(redis)) - before).toBe(4);
    expect(uncounted.n).toBe(0);

    // Over its quota, a wrong Content-Type is not looked at: 429 first, as on the synchronous path.
    for (let i = 0; i < 2; i++) expect((await call(app, "/v1/protocols", { key: SMALL_KEY })).status).toBe(200);
    const over = await call(app, "/v1/tokens", { key: SMALL_KEY, method: "POST", body: "{}", contentType: "text/plain" });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
  });

  it("keeps one counter per key and window on Redis's clock, <prefix>:q:<keyId>:<windowIndex>, expiring with its window", async () => {
    const redisNow = async () => {
      const [seconds, micros] = [...(await redis.command(["TIME"])).matchAll(/^(\d+)\r$/gm)].map((m) => Number(m[1]));
      return seconds * 1000 + Math.floor(micros / 1000);
    };
    const windowMs = 60_000; // test-active's window
    const before = Math.floor((await redisNow()) / windowMs);
    const answer = await call(app, "/v1/protocols");
    const after = Math.floor((await redisNow()) / windowMs);
    const name = [before, after].map((w) => `inproc:q:test-active:${w}`);
    const counts = await Promise.all(name.map((n) => redis.command(["GET", n])));
    const held = counts.findIndex((c) => !c.startsWith("$-1"));
    expect(held, `one of ${name.join(", ")} holds the count`).toBeGreaterThanOrEqual(0);
    expect(Number(counts[held].split("\r\n")[1])).toBe(1_000_000 - Number(answer.headers["ratelimit-remaining"]));
    const ttl = Number(/^:(-?\d+)/.exec(await redis.command(["PTTL", name[held]]))![1]);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(windowMs);
  });

  it("a body that arrives after Redis answered, and one that arrived before, are both read whole", async () => {
    const body = '{"config":{"limit":1}}';
    const head = rawRequest("POST", "/v1/tokens", { authorization: `Bearer ${KEYS.active}`, "content-type": "application/json" }, body);
    const split = head.length - 8;
    // Late body: headers and part of the body now, the rest after Redis has long answered.
    const late = await new Promise<string>((resolve, reject) => {
      const socket = net.connect({ port: app.port, host: "127.0.0.1" });
      let text = "";
      socket.setEncoding("latin1");
      socket.on("data", (c: string) => {
        text += c;
        if (parseResponses(Buffer.from(text, "latin1"), ["POST"]).responses.length > 0) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on("error", reject);
      socket.write(head.subarray(0, split));
      setTimeout(() => socket.write(head.subarray(split)), 150);
    });
    expect(late.startsWith("HTTP/1.1 200")).toBe(true);
    // Early body: Redis is slower (stalled under the timeout) than the whole request.
    const stall = redis.command(["DEBUG", "SLEEP", "0.15"]);
    await sleep(20);
    const { responses } = await rawExchange(app.port, head, { responses: 1, methods: ["POST"] });
    await stall;
    expect(responses[0].status).toBe(200);
  });

  it("a client that leaves while Redis decides: nothing is written to it, the request settles, and the next ones are served", async () => {
    const stall = redis.command(["DEBUG", "SLEEP", "0.2"]);
    await sleep(20);
    const { started, settled } = app.counts;
    const finished = app.counts.statuses.length;
    const socket = net.connect({ port: app.port, host: "127.0.0.1" });
    await new Promise((r) => socket.once("connect", r));
    socket.write(rawRequest("GET", "/v1/protocols", { authorization: `Bearer ${KEYS.active}` }));
    await sleep(50);
    socket.destroy();
    await stall;
    await sleep(300);
    expect(app.counts.started).toBe(started + 1);
    expect(app.counts.settled).toBe(settled + 1);
    expect(app.counts.statuses.length, "no response was written").toBe(finished);
    expect((await call(app, "/v1/protocols")).status).toBe(200);
  });

  it("failed authentications are counted in Redis: over the budget the address gets 429, also with a valid key not confirmed yet; others are served", async () => {
    const from = "127.0.0.9";
    for (let i = 0; i < FAILED_AUTH.requests; i++)
      expect((await call(app, "/v1/protocols", { key: `lgw_wrong_${i}_0123456789abcdef`, localAddress: from })).status).toBe(401);
    const before = await scriptCalls(redis);
    const blocked = await call(app, "/v1/protocols", { key: "lgw_wrong_x_0123456789abcdef", localAddress: from });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBe(blocked.body.error.metadata.retryAfterSeconds);
    expect((await call(app, "/v1/protocols", { key: KEYS.activeFuture, localAddress: from })).status).toBe(429);
    // The thread knew (the reply that reached the budget said so): no round trip for either.
    expect((await scriptCalls(redis)) - before).toBe(0);
    expect((await call(app, "/v1/protocols", { localAddress: "127.0.0.10" })).status).toBe(200);
  });
});

describe("a Redis that cannot be reached at all", () => {
  let deadPort: number;
  beforeAll(async () => {
    // A port nobody listens on.
    deadPort = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const port = (server.address() as net.AddressInfo).port;
        server.close(() => resolve(port));
      });
    });
  });

  for (const failure of ["open", "closed"] as const) {
    it(`QUOTA_FAILURE=${failure}: ${failure === "open" ? "counted on local counters" : "503 QUOTA_STORE_UNAVAILABLE with Retry-After"}, never a crash; /ready says so`, async () => {
      const uncounted = { n: 0 };
      const app = await startInProcess(basicFixture(), {
        failedAuthLimit: FAILED_AUTH,
        quotaStore: redisStore(`redis://127.0.0.1:${deadPort}`, failure, uncounted),
      });
      try {
        await sleep(300); // a few reconnection attempts fail meanwhile
        const answers = [];
        for (let i = 0; i < 5; i++) answers.push(await call(app, "/v1/protocols"));
        const wrong = await call(app, "/v1/protocols", { key: "lgw_wrong_key_0123456789abcdef" });
        const ready = await call(app, "/ready");
        if (failure === "open") {
          expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
          expect(answers.map((r) => Number(r.headers["ratelimit-remaining"]))).toEqual([999_999, 999_998, 999_997, 999_996, 999_995]);
          expect(wrong.status).toBe(401);
          expect(ready.status).toBe(200);
        } else {
          for (const r of answers) {
            expect(r.status).toBe(503);
            expect(r.body.error.code).toBe("QUOTA_STORE_UNAVAILABLE");
            expect(r.headers["retry-after"]).toBe(String(r.body.error.metadata.retryAfterSeconds));
          }
          expect(wrong.status).toBe(503);
          expect(ready.status).toBe(503);
        }
        expect(ready.body.quotaStore).toEqual({ kind: "redis", state: "unavailable", onFailure: failure });
        expect(uncounted.n).toBe(6);
      } finally {
        app.close();
      }
    });
  }
});
