/**
 * Health probes and keep-alive against the real server (issue 27): GET /ready and GET /health are never
 * refused for rate, whatever PUBLIC_RATE_LIMIT (a load balancer's or an orchestrator's probes must not take a
 * healthy instance out of service), while the other requests without a key keep their per-address budget;
 * and every keep-alive answer says `Keep-Alive: timeout=N` below uWS's idle timeout, so that a client pool
 * left idle across that timeout retires its sockets before the gateway closes them and never loses a request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEYS, standardKeys, tempDir, writeChainFile, writeKeysFile } from "../support/fixtures.js";
import { request, startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { liveChain, push } from "../support/live-fixture.js";

let gw: Gateway;
let dir: string;

beforeAll(async () => {
  dir = tempDir("lgw-probes-");
  writeChainFile(dir, liveChain(8453, 0));
  // An operator's tight public budget: two requests without a key per address an hour.
  gw = await startGateway({
    snapshotDir: dir,
    keysFile: writeKeysFile(standardKeys()),
    env: { GATEWAY_THREADS: "2", PUBLIC_RATE_LIMIT: "2/3600" },
  });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

describe("health probes (PUBLIC_RATE_LIMIT=2/3600)", () => {
  it("GET and HEAD /ready and /health are answered every time, never 429; other requests without a key still are refused", async () => {
    for (let i = 0; i < 30; i++) {
      for (const path of ["/ready", "/health"]) {
        const got = await request(gw.baseUrl, path, { key: null });
        expect(got.status, `${path} #${i}`).toBe(200);
        expect(got.headers.get("ratelimit-remaining")).toBeNull();
        const head = await request(gw.baseUrl, path, { key: null, method: "HEAD" });
        expect(head.status, `HEAD ${path} #${i}`).toBe(200);
      }
    }
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await request(gw.baseUrl, "/v1/openapi.json", { key: null })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await request(gw.baseUrl, "/metrics", { key: null })).status).toBe(429);
    expect((await request(gw.baseUrl, "/nowhere", { key: null })).status).toBe(429);
    // Probes still answer after the budget is spent.
    expect((await request(gw.baseUrl, "/ready", { key: null })).status).toBe(200);
  });

  it("/ready's answer follows the served snapshot (its bytes are encoded once per state, not per probe)", async () => {
    const before = (await request(gw.baseUrl, "/ready", { key: null })).body;
    expect(before).toMatchObject({ ready: true, chains: [8453], quotaStore: { kind: "memory", state: "local", onFailure: null } });
    push(dir, liveChain(8453, 1));
    const after = await waitFor("the pushed file to be served", async () => {
      const body = (await request(gw.baseUrl, "/v1/status")).body;
      return body?.data?.chains?.[0]?.generatedAt === liveChain(8453, 1).generatedAt ? true : undefined;
    }).then(async () => {
      // Every serving thread answers the new version (each encodes its own answer once).
      const seen = new Set<string>();
      for (let i = 0; i < 20; i++) seen.add((await request(gw.baseUrl, "/ready", { key: null })).body.version);
      return seen;
    });
    expect(after.has(before.version)).toBe(false);
    expect(after.size).toBe(1);
    // A key's answers are untouched by all this.
    expect((await request(gw.baseUrl, "/v1/protocols", { key: KEYS.active })).status).toBe(200);
  });
});
