/**
 * Issue 9's attacks replayed against the real gateway (built, spawned, two
 * serving threads, real HTTP): bodies that used to kill a serving thread,
 * clients that never read their responses, and a keys file that must be
 * rejected without touching any quota. Through all of it no serving thread
 * exits (the supervisor's restart counter stays 0) and nothing reaches a
 * thread's last-resort handler.
 */
import http from "node:http";
import net from "node:net";
import { renameSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicFixture, KEYS, standardKeys, tempDir, writeKeysFile, writeSnapshotDir, type TestKey } from "../support/fixtures.js";
import { metricValue, request, rssBytes, startGateway, type Gateway } from "../support/gateway-process.js";
import { rawRequest } from "../support/raw-http.js";

const QUOTA_KEY = "lgw_test_hostile_quota_0123456789";
const keys: TestKey[] = [...standardKeys(), { id: "test-quota", key: QUOTA_KEY, rateLimit: { requests: 50, windowSeconds: 3600 } }];

function post(base: string, agent: http.Agent, body: string, key = KEYS.active): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/v1/tokens`,
      { method: "POST", agent, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function get(
  base: string,
  agent: http.Agent,
  path: string,
  key: string = KEYS.active,
): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers }));
      })
      .on("error", reject);
  });
}

describe("hostile traffic against the real gateway", () => {
  let gw: Gateway;
  let keysFile: string;

  beforeAll(async () => {
    keysFile = writeKeysFile(keys);
    gw = await startGateway({
      snapshotDir: writeSnapshotDir(basicFixture()),
      keysFile,
      env: { GATEWAY_THREADS: "2", MAX_API_KEYS: String(keys.length) },
    });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it("33 KB bodies nested 16,719 levels deep, sent for 2 s: each is a 400, and every other client is served", async () => {
    const deep = "[".repeat(16_719) + "]".repeat(16_719);
    const attacker = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const victims = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const until = Date.now() + 2000;
    const attacks: number[] = [];
    const served: number[] = [];
    const attack = async () => {
      while (Date.now() < until) attacks.push(await post(gw.baseUrl, attacker, `{"config":${deep}}`));
    };
    const serve = async () => {
      while (Date.now() < until) served.push((await get(gw.baseUrl, victims, "/v1/protocols")).status);
    };
    await Promise.all([attack(), attack(), attack(), attack(), serve(), serve(), serve(), serve()]);
    attacker.destroy();
    victims.destroy();
    expect(attacks.length).toBeGreaterThan(20);
    expect(new Set(attacks)).toEqual(new Set([400]));
    expect(served.length).toBeGreaterThan(20);
    expect(new Set(served)).toEqual(new Set([200]));
  });

  it("50 connections pipelining 200 requests each and never reading do not pin memory", async () => {
    const before = rssBytes(gw.process.pid!);
    const sockets: net.Socket[] = [];
    const publicBurst = Buffer.concat(Array.from({ length: 200 }, () => rawRequest("GET", "/v1/openapi.json")));
    const body = JSON.stringify({ config: { limit: 500 } });
    const tokenBurst = Buffer.concat(
      Array.from({ length: 200 }, () =>
        rawRequest("POST", "/v1/tokens", { authorization: `Bearer ${KEYS.active}`, "content-type": "application/json" }, body),
      ),
    );
    for (let i = 0; i < 50; i++) {
      const socket = net.connect({ port: gw.port, host: "127.0.0.1" });
      socket.on("error", () => {});
      socket.pause();
      socket.write(i % 2 === 0 ? publicBurst : tokenBurst);
      sockets.push(socket);
    }
    // Long enough for the old behaviour (every response buffered in full) to have answered most of the 10,000 requests.
    await new Promise((r) => setTimeout(r, 3000));
    const during = rssBytes(gw.process.pid!);
    expect((await request(gw.baseUrl, "/health", { key: null })).status).toBe(200);
    for (const s of sockets) s.destroy();
    console.log(`RSS growth under 50 never-reading pipelining clients: ${((during - before) / 1048576).toFixed(1)} MiB`);
    // Before the fix, the same load grew RSS by ~880 MiB (every response buffered in full).
    expect(during - before).toBeLessThan(48 * 1024 * 1024);
  });

  it("a keys file rejected for exceeding MAX_API_KEYS changes nothing: quotas keep counting, its new keys stay unknown", async () => {
    const agent = new http.Agent({ keepAlive: true });
    const remaining = async (key: string) => {
      const res = await get(gw.baseUrl, agent, "/v1/protocols", key);
      return { status: res.status, remaining: Number(res.headers["ratelimit-remaining"]) };
    };
    for (let i = 0; i < 3; i++) await remaining(QUOTA_KEY);
    expect(await remaining(QUOTA_KEY)).toEqual({ status: 200, remaining: 46 });

    const rejectionsBefore = metricValue((await request(gw.baseUrl, "/metrics", { key: null })).text, "gateway_keys_file_rejections_total");
    const extra = "lgw_test_hostile_extra_0123456789";
    const tooMany = [...keys, { id: "extra-1", key: extra }, { id: "extra-2", key: `${extra}x` }];
    writeKeysFileAt(keysFile, tooMany);
    await waitFor(
      async () =>
        metricValue((await request(gw.baseUrl, "/metrics", { key: null })).text, "gateway_keys_file_rejections_total") > rejectionsBefore,
    );
    expect(gw.logs().some((l) => l.event === "keys-file-rejected" && String(l.error).includes("MAX_API_KEYS"))).toBe(true);

    expect(await remaining(QUOTA_KEY)).toEqual({ status: 200, remaining: 45 });
    expect((await remaining(extra)).status).toBe(401);

    // A file that fits is applied, and the key keeps its count.
    const fits = [...keys.filter((k) => k.id !== "test-disabled"), { id: "extra-1", key: extra }];
    writeKeysFileAt(keysFile, fits);
    await waitFor(async () => (await remaining(extra)).status === 200);
    expect(await remaining(QUOTA_KEY)).toEqual({ status: 200, remaining: 44 });
    agent.destroy();
  });

  it("through all of it, no serving thread exited and nothing reached a last-resort handler", async () => {
    const metrics = (await request(gw.baseUrl, "/metrics", { key: null })).text;
    expect(metricValue(metrics, "gateway_serving_thread_restarts_total")).toBe(0);
    expect(metricValue(metrics, "gateway_uncaught_errors_total")).toBe(0);
    expect(metricValue(metrics, "gateway_serving_threads")).toBe(2);
    expect(gw.logs().filter((l) => l.event === "serving-thread-fatal" || l.event === "serving-thread-exited")).toEqual([]);
  });
});

/** Replaces the keys file the way an operator's atomic edit does: written elsewhere, renamed over it. */
function writeKeysFileAt(path: string, list: TestKey[]): void {
  const staged = writeKeysFile(list, tempDir("lgw-keys-staged-"));
  renameSync(staged, path);
}

async function waitFor(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
