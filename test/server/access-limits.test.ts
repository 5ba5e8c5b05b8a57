/**
 * Per-key quotas exact across serving threads, their headers, and the limit
 * on failed authentication per client address (issue 4), over real HTTP
 * against the built gateway running two serving threads.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicFixture, BIG_RATE_LIMIT, KEYS, standardKeys, writeKeysFile, writeSnapshotDir } from "../support/fixtures.js";
import { startGateway, type Gateway } from "../support/gateway-process.js";

const WINDOW_SECONDS = 4;
const QUOTA = 60;
const QUOTA_KEY = "lgw_test_quota_0123456789abcdefgh";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

const agents = new Map<string, http.Agent>();

/** GET over a keep-alive connection from `localAddress` (any 127.x address reaches the loopback). */
function get(base: string, path: string, key: string | null, localAddress = "127.0.0.1"): Promise<Answer> {
  const agent = agents.get(localAddress) ?? new http.Agent({ keepAlive: true, maxSockets: 64, localAddress } as http.AgentOptions);
  agents.set(localAddress, agent);
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { agent, headers: key ? { authorization: `Bearer ${key}` } : {} }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on("error", reject);
  });
}

/** Waits until a fresh fixed window (aligned to the epoch) has just begun. */
async function atWindowStart(windowSeconds: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const wait = windowMs - (Date.now() % windowMs);
  await new Promise((r) => setTimeout(r, wait + 20));
}

describe("per-key quota with two serving threads", () => {
  let gw: Gateway;

  beforeAll(async () => {
    const keys = [
      ...standardKeys(),
      { id: "test-quota", key: QUOTA_KEY, status: "active" as const, rateLimit: { requests: QUOTA, windowSeconds: WINDOW_SECONDS } },
    ];
    gw = await startGateway({
      snapshotDir: writeSnapshotDir(basicFixture()),
      keysFile: writeKeysFile(keys),
      env: { GATEWAY_THREADS: "2" },
    });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it("many concurrent requests over many connections: exactly N succeed, the rest 429 with a true Retry-After; then requests succeed again", async () => {
    await atWindowStart(WINDOW_SECONDS);
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 4 * QUOTA }, () => get(gw.baseUrl, "/v1/protocols", QUOTA_KEY)));
    expect(Date.now() - started, "the burst must fit in one window").toBeLessThan(WINDOW_SECONDS * 1000 - 500);

    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(ok).toHaveLength(QUOTA);
    expect(limited).toHaveLength(3 * QUOTA);
    // Every remaining count from QUOTA-1 down to 0 was handed out exactly once.
    expect(ok.map((a) => Number(a.headers["ratelimit-remaining"])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: QUOTA }, (_, i) => i),
    );

    const windowEnd = (Math.floor(started / (WINDOW_SECONDS * 1000)) + 1) * WINDOW_SECONDS * 1000;
    for (const a of limited) {
      expect(a.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
      const retryAfter = Number(a.headers["retry-after"]);
      expect(a.body.error.metadata.retryAfterSeconds).toBe(retryAfter);
      expect(a.headers["ratelimit-reset"]).toBe(String(retryAfter));
      expect(a.headers["ratelimit-limit"]).toBe(String(QUOTA));
      expect(a.headers["ratelimit-remaining"]).toBe("0");
      // The truth: the window ends within Retry-After seconds, and not a second earlier.
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
      expect(windowEnd - Date.now()).toBeLessThanOrEqual(retryAfter * 1000);
    }
    const retryAfter = Math.max(...limited.map((a) => Number(a.headers["retry-after"])));
    await new Promise((r) => setTimeout(r, Math.max(0, windowEnd - Date.now()) + 50));
    expect(retryAfter * 1000).toBeGreaterThanOrEqual(windowEnd - started - 1000);
    const again = await get(gw.baseUrl, "/v1/protocols", QUOTA_KEY);
    expect(again.status).toBe(200);
    expect(again.headers["ratelimit-remaining"]).toBe(String(QUOTA - 1));
  });

  it("RateLimit headers mean the same on 2xx and 429, and each key has its own quota", async () => {
    const a = await get(gw.baseUrl, "/v1/protocols", KEYS.active);
    expect(a.headers["ratelimit-limit"]).toBe(String(BIG_RATE_LIMIT.requests));
    const reset = Number(a.headers["ratelimit-reset"]);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(BIG_RATE_LIMIT.windowSeconds);
    const b = await get(gw.baseUrl, "/v1/protocols", KEYS.active);
    expect(Number(b.headers["ratelimit-remaining"])).toBe(Number(a.headers["ratelimit-remaining"]) - 1);
  });
});

describe("failed authentication per client address", () => {
  let gw: Gateway;
  const LIMIT = 5;

  beforeAll(async () => {
    gw = await startGateway({
      snapshotDir: writeSnapshotDir(basicFixture()),
      keysFile: writeKeysFile(standardKeys()),
      env: { GATEWAY_THREADS: "2", FAILED_AUTH_LIMIT: `${LIMIT}/60` },
    });
  });

  afterAll(async () => {
    await gw?.stop();
    for (const agent of agents.values()) agent.destroy();
  });

  it("an address that keeps failing is slowed to 429; a key never confirmed is refused there too, a confirmed one is served; other addresses are unaffected", async () => {
    const attacker = "127.0.0.2";
    // Valid requests never count against an address.
    for (let i = 0; i < 3 * LIMIT; i++) expect((await get(gw.baseUrl, "/v1/protocols", KEYS.active)).status).toBe(200);

    const guesses = [];
    for (let i = 0; i < LIMIT; i++) guesses.push(await get(gw.baseUrl, "/v1/protocols", `lgw_guess_${i}_0123456789abcdef`, attacker));
    expect(guesses.map((g) => g.status)).toEqual(Array(LIMIT).fill(401));

    const blocked = await get(gw.baseUrl, "/v1/protocols", "lgw_guess_next_0123456789abcdef", attacker);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(Number(blocked.headers["retry-after"])).toBe(blocked.body.error.metadata.retryAfterSeconds);
    // A valid key this gateway has not confirmed yet is refused like any guess from the blocked address: guessing learns nothing.
    expect((await get(gw.baseUrl, "/v1/protocols", KEYS.activeFuture, attacker)).status).toBe(429);
    // A key confirmed valid (served before, on either thread) is served whatever its address: a partner
    // behind the attacker's NAT or proxy is not locked out.
    expect((await get(gw.baseUrl, "/v1/protocols", KEYS.active, attacker)).status).toBe(200);
    // The refused key was not confirmed by being refused.
    expect((await get(gw.baseUrl, "/v1/protocols", KEYS.activeFuture, attacker)).status).toBe(429);

    // Other addresses, with valid keys, are served as before.
    expect((await get(gw.baseUrl, "/v1/protocols", KEYS.active)).status).toBe(200);
    expect((await get(gw.baseUrl, "/v1/protocols", KEYS.active, "127.0.0.3")).status).toBe(200);
  });
});
