/**
 * Several gateway instances behind one Redis (issue 15), over real HTTP
 * against the built gateway and a real redis-server: two gateway processes
 * with two serving threads each, on two ports, the same snapshot files, keys
 * file and CURSOR_SECRET, QUOTA_STORE=redis. Instance A fails open, instance B
 * fails closed. Per-key quotas and the failed-authentication limit hold
 * exactly across both; a cursor from one continues on the other; Redis killed
 * mid-run: A keeps serving on its own counters, B answers 503 and is not
 * ready; Redis back: shared counting resumes; Redis stalled: no request waits
 * for it past REDIS_TIMEOUT_MS.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BIG_RATE_LIMIT,
  KEYS,
  standardKeys,
  tokenListFixture,
  writeKeysFile,
  writeSnapshotDir,
  type TestKey,
} from "../support/fixtures.js";
import { expectError, metricValue, startGateway, type Gateway } from "../support/gateway-process.js";
import { scriptCalls, startRedisServer, type RedisServer } from "../support/redis-server.js";

const WINDOW_SECONDS = 5;
const QUOTA = 60;
const QUOTA_KEY = "lgw_test_shared_quota_0123456789abc";
const FAILED_AUTH = 5;
const CURSOR_SECRET = "shared-cursor-secret-of-both-instances";
/** Keys whose quota nothing else uses: one per check that needs a fresh count. */
const FRESH = Array.from({ length: 4 }, (_, i) => ({ id: `test-fresh-${i}`, key: `lgw_test_fresh_${i}_0123456789abcdefgh` }));

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  ms: number;
}

/** One request on a fresh connection (so the kernel spreads them over both serving threads). */
function send(
  base: string,
  path: string,
  opts: { key?: string | null; method?: string; body?: unknown; localAddress?: string } = {},
): Promise<Answer> {
  const started = performance.now();
  const key = opts.key === undefined ? KEYS.active : opts.key;
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (payload !== undefined) headers["content-type"] = "application/json";
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { method: opts.method ?? "GET", agent: false, headers, localAddress: opts.localAddress ?? "127.0.0.1" },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: text ? JSON.parse(text) : undefined,
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until a fresh fixed window (aligned to the epoch) has just begun. */
async function atWindowStart(windowSeconds: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  await sleep(windowMs - (Date.now() % windowMs) + 20);
}

/** Polls `check` (bounded) until it holds; returns whether it did. */
async function eventually(check: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

describe("two instances sharing one Redis", () => {
  let redis: RedisServer;
  let a: Gateway; // QUOTA_FAILURE=open
  let b: Gateway; // QUOTA_FAILURE=closed

  beforeAll(async () => {
    redis = await startRedisServer();
    const keys: TestKey[] = [
      ...standardKeys(),
      { id: "test-shared-quota", key: QUOTA_KEY, status: "active", rateLimit: { requests: QUOTA, windowSeconds: WINDOW_SECONDS } },
      ...FRESH.map((k) => ({ ...k, status: "active" as const, rateLimit: { requests: 1000, windowSeconds: 3600 } })),
    ];
    const snapshotDir = writeSnapshotDir(tokenListFixture());
    const keysFile = writeKeysFile(keys);
    const env = (failure: string) => ({
      GATEWAY_THREADS: "2",
      QUOTA_STORE: "redis",
      REDIS_URL: redis.url,
      QUOTA_FAILURE: failure,
      CURSOR_SECRET,
      FAILED_AUTH_LIMIT: `${FAILED_AUTH}/60`,
    });
    [a, b] = await Promise.all([
      startGateway({ snapshotDir, keysFile, env: env("open") }),
      startGateway({ snapshotDir, keysFile, env: env("closed") }),
    ]);
    // Both instances' threads connect to Redis right after start: wait until B (closed) admits keyed requests.
    expect(
      await eventually(
        async () => (await Promise.all([1, 2, 3, 4].map(() => send(b.baseUrl, "/v1/protocols")))).every((r) => r.status === 200),
        10_000,
      ),
    ).toBe(true);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
  });

  it("serve the same snapshot version, and report the quota store in /ready", async () => {
    const [ra, rb] = await Promise.all([send(a.baseUrl, "/ready", { key: null }), send(b.baseUrl, "/ready", { key: null })]);
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    expect(ra.body.version).toBe(rb.body.version);
    expect(ra.body.quotaStore).toEqual({ kind: "redis", state: "connected", onFailure: "open" });
    expect(rb.body.quotaStore).toEqual({ kind: "redis", state: "connected", onFailure: "closed" });
  });

  it("240 concurrent requests over both instances, quota 60: exactly 60 succeed, each remaining count once, the rest 429 with a true Retry-After; once refused, a thread answers without asking Redis", async () => {
    await atWindowStart(WINDOW_SECONDS);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 4 * QUOTA }, (_, i) => send(i % 2 === 0 ? a.baseUrl : b.baseUrl, "/v1/protocols", { key: QUOTA_KEY })),
    );
    const ok = answers.filter((r) => r.status === 200);
    const limited = answers.filter((r) => r.status === 429);
    expect(ok).toHaveLength(QUOTA);
    expect(limited).toHaveLength(3 * QUOTA);
    expect(ok.map((r) => Number(r.headers["ratelimit-remaining"])).sort((x, y) => x - y)).toEqual(
      Array.from({ length: QUOTA }, (_, i) => i),
    );
    const windowEnd = (Math.floor(started / (WINDOW_SECONDS * 1000)) + 1) * WINDOW_SECONDS * 1000;
    for (const r of limited) {
      expect(r.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
      const retryAfter = Number(r.headers["retry-after"]);
      expect(r.body.error.metadata.retryAfterSeconds).toBe(retryAfter);
      expect(r.headers["ratelimit-remaining"]).toBe("0");
      expect(r.headers["ratelimit-limit"]).toBe(String(QUOTA));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
      expect(windowEnd - Date.now()).toBeLessThanOrEqual(retryAfter * 1000);
    }

    // Every serving thread that has seen the key refused answers it locally until the window turns: at most one
    // more script call per thread (4) for 40 more requests. Sent one after another: a thread that saw no refusal in
    // the burst above (the kernel spreads connections over the threads) asks Redis once, not once per request it
    // holds in flight before that answer comes back.
    const before = await scriptCalls(redis);
    const more: Answer[] = [];
    for (let i = 0; i < 40; i++) more.push(await send(i % 2 === 0 ? a.baseUrl : b.baseUrl, "/v1/protocols", { key: QUOTA_KEY }));
    expect(Date.now(), "the burst and the check must fit in one window").toBeLessThan(windowEnd - 200);
    expect(more.every((r) => r.status === 429)).toBe(true);
    expect((await scriptCalls(redis)) - before).toBeLessThanOrEqual(4);

    // The next window: the key is served again, counted from 1 in Redis.
    await sleep(Math.max(0, windowEnd - Date.now()) + 50);
    const again = await send(b.baseUrl, "/v1/protocols", { key: QUOTA_KEY });
    expect(again.status).toBe(200);
    expect(again.headers["ratelimit-remaining"]).toBe(String(QUOTA - 1));
  });

  it("failed authentications of one address are counted across both instances; once over, a key not yet confirmed is refused there (a confirmed one is served)", async () => {
    const attacker = "127.0.0.7";
    const guesses: Answer[] = [];
    for (let i = 0; i < FAILED_AUTH; i++)
      guesses.push(
        await send(i % 2 === 0 ? a.baseUrl : b.baseUrl, "/v1/protocols", {
          key: `lgw_guess_${i}_0123456789abcdef`,
          localAddress: attacker,
        }),
      );
    expect(guesses.map((g) => g.status)).toEqual(Array(FAILED_AUTH).fill(401));
    for (const gw of [a, b]) {
      const blocked = await send(gw.baseUrl, "/v1/protocols", { key: "lgw_guess_next_0123456789abcdef", localAddress: attacker });
      expectError(
        { ...blocked, headers: new Headers(blocked.headers as Record<string, string>), text: JSON.stringify(blocked.body) },
        429,
        "RATE_LIMIT_EXCEEDED",
      );
      expect(Number(blocked.headers["retry-after"])).toBe(blocked.body.error.metadata.retryAfterSeconds);
      expect((await send(gw.baseUrl, "/v1/protocols", { key: KEYS.activeFuture, localAddress: attacker })).status).toBe(429);
      // Served from another address, the key is confirmed on this instance; then it is served from the attacker's too.
      expect((await send(gw.baseUrl, "/v1/protocols", { localAddress: "127.0.0.8" })).status).toBe(200);
      expect((await send(gw.baseUrl, "/v1/protocols", { localAddress: attacker })).status).toBe(200);
    }
  });

  it("a cursor walk that alternates instances yields each entry once, as one instance does", async () => {
    const walk = async (instances: Gateway[]) => {
      const tokens: unknown[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 200; page++) {
        const gw = instances[page % instances.length];
        const config: Record<string, unknown> = { limit: 3 };
        if (cursor !== null) config.cursor = cursor;
        const res = await send(gw.baseUrl, "/v1/tokens", { method: "POST", body: { config } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        tokens.push(...res.body.data.tokens);
        cursor = res.body.data.nextCursor;
        if (cursor === null) return tokens;
      }
      throw new Error("the walk did not end within 200 pages");
    };
    const alone = await walk([a]);
    const alternating = await walk([a, b]);
    expect(alone.length).toBeGreaterThan(6);
    const keys = alternating.map((t) => JSON.stringify(t));
    expect(new Set(keys).size).toBe(keys.length);
    expect(alternating).toEqual(alone);
  });

  it("Redis killed: A (open) keeps serving on its own counters, B (closed) answers 503 and is not ready; Redis back: shared counting resumes", async () => {
    await redis.kill();
    const outageStarted = Date.now();
    const duringA = await Promise.all(Array.from({ length: 30 }, () => send(a.baseUrl, "/v1/protocols")));
    expect(duringA.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(duringA.every((r) => r.headers["ratelimit-limit"] === String(BIG_RATE_LIMIT.requests))).toBe(true);
    const duringB = await Promise.all(Array.from({ length: 10 }, () => send(b.baseUrl, "/v1/protocols")));
    for (const r of duringB) {
      const err = expectError(
        { ...r, headers: new Headers(r.headers as Record<string, string>), text: JSON.stringify(r.body) },
        503,
        "QUOTA_STORE_UNAVAILABLE",
      );
      expect(Number(r.headers["retry-after"])).toBe(err.metadata.retryAfterSeconds);
      expect(r.headers["ratelimit-limit"]).toBeUndefined();
    }
    // Public routes do not need the quota store.
    expect((await send(b.baseUrl, "/health", { key: null })).status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const [ra, rb] = await Promise.all([send(a.baseUrl, "/ready", { key: null }), send(b.baseUrl, "/ready", { key: null })]);
      expect(ra.status).toBe(200);
      expect(ra.body.quotaStore).toEqual({ kind: "redis", state: "unavailable", onFailure: "open" });
      expect(rb.status).toBe(503);
      expect(rb.body).toMatchObject({ ready: false, quotaStore: { kind: "redis", state: "unavailable", onFailure: "closed" } });
    }
    const metrics = await (await fetch(`${a.baseUrl}/metrics`)).text();
    expect(metricValue(metrics, "gateway_quota_store_errors_total")).toBeGreaterThanOrEqual(30);

    await redis.restart();
    const outageMs = Date.now() - outageStarted;
    // Both of B's threads admit again once their clients have reconnected.
    expect(
      await eventually(
        async () => (await Promise.all(Array.from({ length: 6 }, () => send(b.baseUrl, "/v1/protocols")))).every((r) => r.status === 200),
        15_000,
      ),
    ).toBe(true);
    expect(await eventually(async () => (await send(a.baseUrl, "/ready", { key: null })).body.quotaStore.state === "connected", 5000)).toBe(
      true,
    );
    // A key nobody used: its count now runs across both instances (8 requests, 8 successive counts).
    const fresh = FRESH[0].key;
    const remaining: number[] = [];
    for (let i = 0; i < 8; i++)
      remaining.push(
        Number((await send(i % 2 === 0 ? a.baseUrl : b.baseUrl, "/v1/protocols", { key: fresh })).headers["ratelimit-remaining"]),
      );
    expect(remaining).toEqual([999, 998, 997, 996, 995, 994, 993, 992]);

    // Reported in the log at most once per 10 s per thread, not once per request; and nothing crashed.
    const reports = a.logs().filter((l) => l.event === "quota-store-unavailable").length;
    expect(reports).toBeGreaterThanOrEqual(1);
    expect(reports).toBeLessThanOrEqual(2 * (1 + Math.ceil(outageMs / 10_000)));
    expect(a.logs().some((l) => l.event === "quota-store-connected")).toBe(true);
    for (const gw of [a, b]) {
      const text = await (await fetch(`${gw.baseUrl}/metrics`)).text();
      expect(metricValue(text, "gateway_uncaught_errors_total")).toBe(0);
      expect(metricValue(text, "gateway_serving_thread_restarts_total")).toBe(0);
      expect(gw.process.exitCode).toBeNull();
    }
  });

  it("Redis stalled: no request waits for it past REDIS_TIMEOUT_MS (250 ms); A answers from its counters, B 503", async () => {
    const stall = redis.command(["DEBUG", "SLEEP", "2"]);
    await sleep(50);
    const [ra, rb] = await Promise.all([
      send(a.baseUrl, "/v1/protocols", { key: FRESH[1].key }),
      send(b.baseUrl, "/v1/protocols", { key: FRESH[1].key }),
    ]);
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(503);
    expect(rb.body.error.code).toBe("QUOTA_STORE_UNAVAILABLE");
    // Answered well before Redis wakes up (2 s): the wait is bounded by the timeout, not by Redis.
    expect(ra.ms).toBeLessThan(1500);
    expect(rb.ms).toBeLessThan(1500);
    await stall;
    expect(
      await eventually(
        async () => (await Promise.all(Array.from({ length: 6 }, () => send(b.baseUrl, "/v1/protocols")))).every((r) => r.status === 200),
        10_000,
      ),
    ).toBe(true);
  });
});
