/**
 * GET /v1/stream when admission finishes asynchronously (QUOTA_STORE=redis, a
 * real redis-server): the WebSocket is upgraded once Redis has counted the
 * request (the response corked, its abort watched meanwhile), SSE starts the
 * same way, and a refusal decided by Redis (a key over its quota, an unknown
 * key) is still a plain HTTP answer, never an upgrade.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodePosition } from "../../src/query/positions.js";
import { KEYS, standardKeys, tempDir, writeChainFile, writeKeysFile } from "../support/fixtures.js";
import { expectError, request, startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { liveChain, LP, push } from "../support/live-fixture.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { openSse, openWs, refusedWs, type WsClient, OpenClients, refusalResponse } from "../support/stream-clients.js";

let redis: RedisServer;
let gw: Gateway;
let base: string;
let dir: string;
const open = new OpenClients();

beforeAll(async () => {
  redis = await startRedisServer();
  dir = tempDir("lgw-stream-redis-");
  writeChainFile(dir, liveChain(8453, 0));
  gw = await startGateway({
    snapshotDir: dir,
    keysFile: writeKeysFile(standardKeys()),
    env: { GATEWAY_THREADS: "2", QUOTA_STORE: "redis", REDIS_URL: redis.url, REDIS_KEY_PREFIX: "stream-test" },
  });
  base = gw.baseUrl;
  // A stream starts at the position every thread serves, published once each thread swapped the initial
  // load in; one opened before that on its thread is sent the initial load's `changes` event first (the
  // first test would take it for the push's). Probes until several in a row, on either thread, start past it.
  const empty = encodePosition(new Map());
  let inARow = 0;
  await waitFor("the initial load to be published to every thread's streams", async () => {
    const probe = await openSse(base, "topics=changes:8453");
    const subscribed = await probe.next();
    probe.close();
    inARow = subscribed.event.position === empty ? 0 : inARow + 1;
    return inARow >= 8 ? true : undefined;
  });
}, 60_000);

afterAll(async () => {
  open.closeAll();
  await gw?.stop();
  await redis?.stop();
});

describe("with the Redis quota store", () => {
  it("WebSocket and SSE open once Redis has counted the request, and receive a push", async () => {
    const ws = await openWs(base, `topics=changes:8453,pool:8453:${LP.a}`);
    const sse = await openSse(base, "topics=changes:8453");
    open.add(ws, sse);
    expect(ws.upgradeHeaders["ratelimit-limit"]).toBeTruthy();
    expect((await ws.next()).event.type).toBe("subscribed");
    expect((await sse.next()).event.type).toBe("subscribed");
    const file = liveChain(8453, 1);
    push(dir, file);
    await waitFor("the push to be served", async () =>
      (await request(base, "/v1/status")).body?.data?.chains?.[0]?.generatedAt === file.generatedAt ? true : undefined,
    );
    expect((await ws.next(20_000)).event).toMatchObject({ type: "changes", generatedAt: file.generatedAt });
    expect((await ws.next(20_000)).event).toMatchObject({ type: "pool", address: LP.a });
    expect((await sse.next(20_000)).event).toMatchObject({ type: "changes", generatedAt: file.generatedAt });
  });

  it("every WebSocket upgraded after Redis counted it stays open and receives the next push", async () => {
    // An upgrade from inside res.cork after the asynchronous admission let uWS end some WebSockets right after
    // `open` (src/http/response-writer.ts `upgrade`); which ones depends on where the allocator put the socket,
    // so this is a guard over many upgrades, not a deterministic reproduction: each must get the next push.
    const sockets: WsClient[] = [];
    for (let i = 0; i < 24; i++) {
      const ws = await openWs(base, i % 2 === 0 ? "topics=changes:8453" : `topics=changes,pool:8453:${LP.b}`);
      open.add(ws);
      expect((await ws.next()).event.type).toBe("subscribed");
      sockets.push(ws);
    }
    const file = liveChain(8453, 2);
    push(dir, file);
    for (const ws of sockets) {
      const { found } = await ws.until((event) => event.type === "changes", 20_000);
      expect(found.event).toMatchObject({ type: "changes", generatedAt: file.generatedAt });
    }
  });

  it("refusals Redis decides are plain HTTP answers", async () => {
    for (let i = 0; i < 3; i++) await request(base, "/v1/status", { key: KEYS.rateLimited });
    const over = await refusedWs(base, "topics=changes", { key: KEYS.rateLimited });
    expectError(refusalResponse(over), 429, "RATE_LIMIT_EXCEEDED");
    expect(over.headers["ratelimit-remaining"]).toBe("0");
    expectError(
      refusalResponse(await refusedWs(base, "topics=changes", { key: "lgw_nobody_0123456789abcdef0123" })),
      401,
      "API_KEY_NOT_FOUND",
    );
    expectError(refusalResponse(await refusedWs(base, "topics=changes:5")), 400, "UNSUPPORTED_CHAIN_ID");
  });
});
