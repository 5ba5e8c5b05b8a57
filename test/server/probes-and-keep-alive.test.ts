/**
 * Health probes and keep-alive against the real server (issue 27): GET /ready and GET /health are never
 * refused for rate, whatever PUBLIC_RATE_LIMIT (a load balancer's or an orchestrator's probes must not take a
 * healthy instance out of service), while the other requests without a key keep their per-address budget;
 * and every keep-alive answer says `Keep-Alive: timeout=N` below uWS's idle timeout, so that a client pool
 * left idle across that timeout retires its sockets before the gateway closes them and never loses a request.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEYS, standardKeys, tempDir, writeChainFile, writeKeysFile } from "../support/fixtures.js";
import { request, startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { liveChain, push } from "../support/live-fixture.js";
import { openSse } from "../support/stream-clients.js";

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

describe("keep-alive", () => {
  it("every answer that leaves the connection open says Keep-Alive: timeout=5, below uWS's idle timeout", async () => {
    const answers = [
      await request(gw.baseUrl, "/health", { key: null }),
      await request(gw.baseUrl, "/v1/protocols", { key: KEYS.active }),
      await request(gw.baseUrl, "/v1/protocols", { key: KEYS.active, method: "HEAD" }),
      await request(gw.baseUrl, "/v1/pools/8453/0x12", { key: KEYS.active }), // an error
      await request(gw.baseUrl, "/v1/protocols", { key: "lgw_nobody_0123456789abcdef0123" }), // refused before the key
      await request(gw.baseUrl, "/nowhere", { key: null }), // 429 here: the public budget is spent
    ];
    for (const answer of answers)
      expect(answer.headers.get("keep-alive"), `${answer.status} ${answer.text.slice(0, 80)}`).toBe("timeout=5");
    const sse = await openSse(gw.baseUrl, "topics=changes");
    expect(sse.headers["keep-alive"]).toBe("timeout=5");
    sse.close();
  });

  it("a client pool left idle across the gateway's idle timeout never loses a request (Node's http.Agent retires its sockets on the hint)", async () => {
    // An agent that would keep idle sockets a minute (`timeout`), as a client that sets a long socket timeout does.
    const agent = new http.Agent({ keepAlive: true, timeout: 60_000, maxSockets: 8 });
    const get = () =>
      new Promise<number>((resolve, reject) => {
        const req = http.get({ host: "127.0.0.1", port: gw.port, path: "/health", agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
      });
    const pooled = () => Object.values(agent.freeSockets).reduce((n, sockets) => n + (sockets?.length ?? 0), 0);
    try {
      expect(await Promise.all(Array.from({ length: 8 }, get))).toEqual(Array(8).fill(200));
      expect(pooled()).toBe(8);
      // Idle with the event loop free: the hint (5 s) has the agent retire its sockets at 4 s.
      await new Promise((r) => setTimeout(r, 6000));
      expect(pooled()).toBe(0);
      // Then busy (synchronously) across the moment the gateway closes idle connections (8-12 s after their last
      // answer), and the requests go out at once, before the client could see any close: a socket still pooled
      // here would carry a request into the gateway's close ("socket hang up").
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 7000);
      const results = await Promise.allSettled(Array.from({ length: 8 }, get));
      expect(results.map((r) => (r.status === "fulfilled" ? r.value : String(r.reason)))).toEqual(Array(8).fill(200));
    } finally {
      agent.destroy();
    }
  }, 30_000);
});
