/**
 * GET /v1/stream against the real server (two serving threads) with real
 * snapshot files, over WebSocket (`ws`) and server-sent events (fetch): the
 * `subscribed` event first, every event type, exact change sets checked
 * against what the REST routes answer before and after each push, pool and
 * token events byte-identical to the REST answers, events only after the swap
 * serves (a REST read on receipt sees the new data, whichever thread answers),
 * subscribe/unsubscribe, replay with `since` / `Last-Event-ID` and `resync`,
 * every refusal as a plain HTTP answer (never an upgrade), bad messages and
 * topic limits.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodePosition } from "../../src/query/positions.js";
import { KEYS, tempDir, writeChainFile, writeKeysFile, standardKeys, BIG_RATE_LIMIT } from "../support/fixtures.js";
import { expectError, expectValidation, metricValue, request, startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { startNginx, type Nginx } from "../support/nginx-process.js";
import {
  dataField,
  expectedChanges,
  freshGet,
  LIVE_POOLS,
  LIVE_TOKENS,
  liveChain,
  LP,
  LT,
  push,
  restState,
  statusPosition,
} from "../support/live-fixture.js";
import { openSse, openWs, refusedSse, refusedWs, type StreamEvent, OpenClients, refusalResponse } from "../support/stream-clients.js";

const STREAM_KEY = "lgw_test_stream_only_0123456789ab";
const MAX_TOPICS = 9;
const MAX_BAD = 3;

let gw: Gateway;
let base: string;
let dir: string;
/** The version of chain 8453 served now (liveChain(8453, k)). */
let version = 0;
const open = new OpenClients();

/** `n` distinct pool topics of chain 8453 (addresses no file holds). */
function poolTopics(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `pool:8453:0x${String(i + 1).padStart(40, "0")}`);
}

/** The record JSON of a pool or token event, as sent. */
function recordText(e: StreamEvent, field: "pool" | "token"): string {
  return e.text.slice(e.text.indexOf(`"${field}":`) + field.length + 3, e.text.lastIndexOf(',"removed"'));
}

/** Pushes the next version of chain 8453 and waits until the gateway serves it (GET /v1/status). */
async function pushNext(): Promise<void> {
  version++;
  const file = liveChain(8453, version);
  push(dir, file);
  await waitFor("the pushed file to be served", async () => {
    const res = await request(base, "/v1/status");
    const chain = res.body?.data?.chains?.find((c: any) => c.chainId === 8453);
    return chain?.generatedAt === file.generatedAt ? true : undefined;
  });
}

beforeAll(async () => {
  dir = tempDir("lgw-stream-");
  writeChainFile(dir, liveChain(8453, 0));
  writeChainFile(dir, liveChain(1, 0));
  const keys = [
    ...standardKeys(),
    { id: "test-stream-only", key: STREAM_KEY, status: "active" as const, routes: ["stream" as const], rateLimit: BIG_RATE_LIMIT },
  ];
  gw = await startGateway({
    snapshotDir: dir,
    keysFile: writeKeysFile(keys),
    // The message rate is raised out of the way: these tests send their messages in bursts (its own: stream-edge.test.ts).
    env: {
      GATEWAY_THREADS: "2",
      STREAM_MAX_TOPICS: String(MAX_TOPICS),
      STREAM_MAX_BAD_MESSAGES: String(MAX_BAD),
      STREAM_MAX_MESSAGES_PER_SECOND: "1000",
    },
  });
  base = gw.baseUrl;
});

afterAll(async () => {
  open.closeAll();
  await gw?.stop();
});

describe("opening", () => {
  it("the first event is `subscribed`: the query's topics, lowercase, and the current position (WebSocket and SSE)", async () => {
    const position = await statusPosition(base);
    const topics = `changes:8453,POOL:8453:${LP.a.toUpperCase().replace("0X", "0x")},token:8453:${LT.x}`;
    const ws = open.track(await openWs(base, `topics=${topics}`));
    const first = await ws.next();
    expect(first.event).toEqual({
      type: "subscribed",
      topics: ["changes:8453", `pool:8453:${LP.a}`, `token:8453:${LT.x}`],
      position,
    });
    expect(Object.keys(first.event)).toEqual(["type", "topics", "position"]);
    expect(ws.upgradeHeaders["x-trace-id"]).toBeTruthy();
    expect(ws.upgradeHeaders["ratelimit-limit"]).toBe(String(BIG_RATE_LIMIT.requests));

    const sse = open.track(await openSse(base, `topics=${encodeURIComponent(topics)}`));
    expect(sse.headers["content-type"]).toBe("text/event-stream");
    expect(sse.headers["cache-control"]).toBe("no-store");
    expect(sse.headers["x-trace-id"]).toBeTruthy();
    const sseFirst = await sse.next();
    expect(sseFirst.sseType).toBe("subscribed");
    expect(sseFirst.sseId).toBe(position);
    expect(sseFirst.text).toBe(first.text);
  });

  it("no topics: `subscribed` with none; repeats count once (`topics=a,b` and `topics=a&topics=b` alike)", async () => {
    const none = open.track(await openWs(base));
    expect((await none.next()).event.topics).toEqual([]);
    const repeated = open.track(await openWs(base, `topics=changes:8453,CHANGES:8453&topics=changes&topics[]=changes:1`));
    expect((await repeated.next()).event.topics).toEqual(["changes:8453", "changes", "changes:1"]);
  });
});

describe("a push", () => {
  it("sends exact change sets and the touched records, after the swap serves, the same bytes on both transports", async () => {
    const records = [...LIVE_POOLS.map((a) => `pool:8453:${a}`), ...LIVE_TOKENS.map((a) => `token:8453:${a}`)].join(",");
    const changesWs = open.track(await openWs(base, "topics=changes"));
    const recordsWs = open.track(await openWs(base, `topics=${records}`));
    const bothSse = open.track(await openSse(base, `topics=changes:8453,${records}`));
    const chain1Key = open.track(await openWs(base, "topics=changes", { key: KEYS.chain1Only }));
    for (const c of [changesWs, recordsWs, bothSse, chain1Key]) expect((await c.next()).event.type).toBe("subscribed");

    for (let round = 0; round < 2; round++) {
      const before = await restState(base, 8453, LIVE_POOLS, LIVE_TOKENS);
      version++;
      const file = liveChain(8453, version);
      push(dir, file);

      // The changes event: on receipt, every thread serves the new file (new connections spread over both threads).
      const { found: changes } = await changesWs.until((e) => e.type === "changes" && e.chainId === 8453);
      const reads = await Promise.all(Array.from({ length: 8 }, () => freshGet(`${base}/v1/pools/8453/${LP.a}`)));
      const after = await restState(base, 8453, LIVE_POOLS, LIVE_TOKENS);
      for (const read of reads) expect(dataField(read.text, "pool")).toBe(after.pools.get(LP.a));

      const expected = expectedChanges(before, after);
      const position = await statusPosition(base);
      expect(changes.event).toMatchObject({
        type: "changes",
        position,
        chainId: 8453,
        generatedAt: file.generatedAt,
        blockNumber: file.blockNumber,
        pools: expected.pools,
        tokens: expected.tokens,
        truncated: false,
      });
      expect(Object.keys(changes.event)).toEqual([
        "type",
        "position",
        "chainId",
        "id",
        "previous",
        "generatedAt",
        "blockNumber",
        "servedAt",
        "snapshotVersion",
        "pools",
        "tokens",
        "truncated",
      ]);
      expect(changes.event.id).toMatch(new RegExp(`^${file.generatedAt}\\.[0-9a-f]{12}$`));
      expect(changes.event.previous).toMatch(new RegExp(`^${file.generatedAt - 100}\\.[0-9a-f]{12}$`));
      expect(Date.parse(changes.event.servedAt)).toBeGreaterThan(Date.now() - 60_000);
      const status = (await request(base, "/v1/status")).body.data.chains.find((c: any) => c.chainId === 8453);
      expect(changes.event.id).toBe(status.id);
      expect(changes.event.servedAt).toBe(status.servedAt);
      expect(expected.pools.upserted).toContain(LP.a);
      expect(expected.pools.removed).toEqual([round === 0 ? LP.b : LP.d]);
      expect(expected.tokens.removed).toEqual([round === 0 ? LT.z : LT.w]);

      // One event per touched record, each byte-identical to its REST answer (null when removed).
      const recordEvents = await recordsWs.rest(500);
      const touched = [
        ...expected.pools.upserted.map((a) => ({ type: "pool", a, removed: false })),
        ...expected.pools.removed.map((a) => ({ type: "pool", a, removed: true })),
        ...expected.tokens.upserted.map((a) => ({ type: "token", a, removed: false })),
        ...expected.tokens.removed.map((a) => ({ type: "token", a, removed: true })),
      ];
      expect(recordEvents.map((e) => `${e.event.type}:${e.event.address}`).sort()).toEqual(touched.map((t) => `${t.type}:${t.a}`).sort());
      for (const e of recordEvents) {
        const t = touched.find((x) => x.type === e.event.type && x.a === e.event.address)!;
        expect(e.event.removed).toBe(t.removed);
        expect(e.event.position).toBe(position);
        expect(e.event.chainId).toBe(8453);
        expect(Object.keys(e.event)).toEqual(["type", "position", "chainId", "address", e.event.type, "removed"]);
        if (t.removed) expect(e.event[e.event.type]).toBeNull();
        else if (e.event.type === "pool") expect(recordText(e, "pool")).toBe(after.pools.get(t.a));
        else expect(recordText(e, "token")).toBe(after.tokens.get(t.a)!.split("|")[0]);
      }

      // SSE: the same changes event, then the same record events in the same order, `id` = the position after each.
      const { found: sseChanges, skipped } = await bothSse.until((e) => e.type === "changes");
      expect(skipped).toEqual([]);
      expect(sseChanges.text).toBe(changes.text);
      expect(sseChanges.sseId).toBe(position);
      const sseRecords = await bothSse.rest(300);
      expect(sseRecords.map((e) => e.text)).toEqual(recordEvents.map((e) => e.text));
      for (const e of sseRecords) {
        expect(e.sseType).toBe(e.event.type);
        expect(e.sseId).toBe(e.event.position);
      }

      // A key restricted to chain 1 subscribed to `changes` hears nothing of chain 8453.
      expect(await chain1Key.rest(0)).toEqual([]);
    }
  });

  it("the changes event's SSE form carries the same JSON and its position as `id`", async () => {
    const ws = open.track(await openWs(base, "topics=changes:8453"));
    const sse = open.track(await openSse(base, "topics=changes:8453"));
    await ws.next();
    await sse.next();
    await pushNext();
    const fromWs = await ws.next();
    const fromSse = await sse.next();
    expect(fromSse.text).toBe(fromWs.text);
    expect(fromSse.sseType).toBe("changes");
    expect(fromSse.sseId).toBe(fromWs.event.position);
  });
});

describe("subscribe and unsubscribe messages (WebSocket)", () => {
  it("each answers `subscribed` with the whole list; an unsubscribed topic gets nothing more", async () => {
    const ws = open.track(await openWs(base, `topics=pool:8453:${LP.a}`));
    await ws.next();
    ws.send({ op: "subscribe", topics: [`TOKEN:8453:${LT.x.toUpperCase().replace("0X", "0x")}`, "changes:8453", `pool:8453:${LP.a}`] });
    expect((await ws.next()).event).toMatchObject({
      type: "subscribed",
      topics: [`pool:8453:${LP.a}`, `token:8453:${LT.x}`, "changes:8453"],
    });
    ws.send({ op: "unsubscribe", topics: [`pool:8453:${LP.a}`, "changes:1"] });
    expect((await ws.next()).event.topics).toEqual([`token:8453:${LT.x}`, "changes:8453"]);

    await pushNext();
    const events = [await ws.next(), ...(await ws.rest(500))];
    expect(events.map((e) => e.event.type)).toEqual(["changes", "token"]);
    expect(events[1]!.event.address).toBe(LT.x);
  });

  it("a bad message gets an `error` event and the connection stays", async () => {
    const ws = open.track(await openWs(base));
    await ws.next();
    ws.send("not json");
    const notJson = (await ws.next()).event;
    expect(notJson.type).toBe("error");
    expect(notJson.error).toMatchObject({ code: "MALFORMED_JSON", title: "Invalid Parameters" });
    expect(Object.keys(notJson.error)).toEqual(["code", "title", "message", "details", "metadata"]);

    ws.send({ op: "subscribe", topics: ["pool:8453:0x12"] });
    expect((await ws.next()).event.error).toMatchObject({
      code: "VALIDATION_ERROR",
      metadata: { property: "topics", value: "pool:8453:0x12" },
    });
    ws.send({ op: "subscribe", topics: ["changes:5"] });
    expect((await ws.next()).event.error).toMatchObject({ code: "UNSUPPORTED_CHAIN_ID", metadata: { chainId: 5 } });
    ws.send({ op: "subscribe", topics: [], extra: 1 });
    expect((await ws.next()).event.error).toMatchObject({
      code: "VALIDATION_ERROR",
      metadata: { property: "extra", constraints: { whitelist: expect.any(Array) } },
    });
    ws.send({ op: "listen", topics: [] });
    expect((await ws.next()).event.error).toMatchObject({ code: "VALIDATION_ERROR", metadata: { property: "op" } });
    ws.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await ws.next()).event.error.code).toBe("MALFORMED_JSON");

    ws.send({ op: "subscribe", topics: ["changes:1"] });
    expect((await ws.next()).event).toMatchObject({ type: "subscribed", topics: ["changes:1"] });
  });

  it("a key's chain restrictions apply to subscribe messages", async () => {
    const ws = open.track(await openWs(base, "topics=changes", { key: KEYS.chain1Only }));
    expect((await ws.next()).event.topics).toEqual(["changes"]);
    ws.send({ op: "subscribe", topics: [`pool:8453:${LP.a}`] });
    expect((await ws.next()).event.error).toMatchObject({ code: "API_KEY_FORBIDDEN", metadata: { chainId: 8453, allowedChainIds: [1] } });
  });

  it(`more than STREAM_MAX_BAD_MESSAGES (${MAX_BAD}) messages in a row that are not JSON close the connection (1008); JSON in between resets the count`, async () => {
    const ws = open.track(await openWs(base));
    await ws.next();
    for (let i = 0; i < MAX_BAD; i++) ws.send("{");
    ws.send({ op: "subscribe", topics: [] });
    for (let i = 0; i < MAX_BAD; i++) expect((await ws.next()).event.error.code).toBe("MALFORMED_JSON");
    expect((await ws.next()).event.type).toBe("subscribed");
    // Valid JSON of the wrong shape is JSON too: it resets the count as well (and is answered VALIDATION_ERROR).
    for (const json of ["{}", "null", '"x"']) {
      for (let i = 0; i < MAX_BAD; i++) ws.send("]");
      ws.send(json);
      for (let i = 0; i < MAX_BAD; i++) expect((await ws.next()).event.error.code).toBe("MALFORMED_JSON");
      expect((await ws.next()).event.error.code).toBe("VALIDATION_ERROR");
    }
    expect(ws.ws.readyState).toBe(ws.ws.OPEN);
    for (let i = 0; i <= MAX_BAD; i++) ws.send("nope");
    for (let i = 0; i <= MAX_BAD; i++) expect((await ws.next()).event.error.code).toBe("MALFORMED_JSON");
    expect(await ws.closed).toMatchObject({ code: 1008 });
  });

  it("a frame over 64 KiB closes the connection; other connections are untouched", async () => {
    const other = open.track(await openWs(base, "topics=changes:8453"));
    await other.next();
    const ws = open.track(await openWs(base));
    await ws.next();
    ws.send("x".repeat(64 * 1024 + 1));
    const closed = await ws.closed;
    expect(closed.code).toBe(1006); // uWS closes the socket without a close frame
    other.send({ op: "subscribe", topics: [] });
    expect((await other.next()).event.type).toBe("subscribed");
  });

  it(`a subscription past STREAM_MAX_TOPICS (${MAX_TOPICS}) is refused whole with an error event`, async () => {
    const ws = open.track(await openWs(base, `topics=${poolTopics(MAX_TOPICS - 1).join(",")}`));
    expect((await ws.next()).event.topics).toHaveLength(MAX_TOPICS - 1);
    ws.send({ op: "subscribe", topics: ["changes:8453", `token:8453:${LT.x}`] });
    expect((await ws.next()).event.error).toMatchObject({
      code: "VALIDATION_ERROR",
      metadata: { property: "topics", constraints: { max: expect.any(Array) } },
    });
    ws.send({ op: "subscribe", topics: ["changes:8453", poolTopics(1)[0]] });
    expect((await ws.next()).event.topics).toHaveLength(MAX_TOPICS);
  });
});

describe("replay", () => {
  it("`since`: the missed changes events, then the current state of each subscribed record that changed", async () => {
    const since = await statusPosition(base);
    await pushNext();
    await pushNext();
    const after = await restState(base, 8453, LIVE_POOLS, LIVE_TOKENS);
    const now = await statusPosition(base);
    const topics = ["changes:8453", ...LIVE_POOLS.map((a) => `pool:8453:${a}`), `token:8453:${LT.y}`].join(",");

    const ws = open.track(await openWs(base, `topics=${topics}&since=${since}`));
    const events = [await ws.next(), ...(await ws.rest(500))].map((e) => e.event);
    expect(events[0]).toMatchObject({ type: "subscribed", position: now });
    expect(events.slice(1, 3).map((e) => [e.type, e.generatedAt])).toEqual([
      ["changes", liveChain(8453, version - 1).generatedAt],
      ["changes", liveChain(8453, version).generatedAt],
    ]);
    expect(events[2].position).toBe(now);
    // The records replayed: every subscribed pool either missed set touched, each with its state now.
    const touched = new Set<string>();
    for (const e of events.slice(1, 3)) for (const a of [...e.pools.upserted, ...e.pools.removed]) touched.add(a);
    expect(touched.has(LP.a)).toBe(true);
    expect(touched.has(LP.c)).toBe(false);
    const replayed = events.slice(3);
    expect(replayed.map((e) => e.address)).toEqual(LIVE_POOLS.filter((a) => touched.has(a)));
    for (const e of replayed) {
      expect(e.position).toBe(now);
      expect(e.removed).toBe(after.pools.get(e.address) === null);
      if (!e.removed) expect(JSON.stringify(e.pool)).toBe(JSON.stringify(JSON.parse(after.pools.get(e.address)!)));
    }

    // SSE: Last-Event-ID wins over `since`.
    const sse = open.track(await openSse(base, `topics=changes:8453&since=${now}`, { headers: { "last-event-id": since } }));
    const sseEvents = [await sse.next(), ...(await sse.rest(500))];
    expect(sseEvents.map((e) => e.sseType)).toEqual(["subscribed", "changes", "changes"]);
    expect(sseEvents.map((e) => e.sseId)).toEqual([now, events[1].position, now]);
    const current = open.track(await openSse(base, `topics=changes:8453&since=${now}`));
    expect((await current.rest(500)).map((e) => e.sseType)).toEqual(["subscribed"]);
  });

  it("a position the history cannot answer gets `resync` (and the current state of the chain's subscribed records)", async () => {
    const now = await statusPosition(base);
    const stale = encodePosition(new Map([[8453, "1000.0123456789ab"]]));
    const ws = open.track(await openWs(base, `topics=changes:8453,pool:8453:${LP.c}&since=${stale}`));
    const events = [await ws.next(), ...(await ws.rest(500))].map((e) => e.event);
    expect(events.map((e) => e.type)).toEqual(["subscribed", "resync", "pool"]);
    expect(events[1]).toEqual({
      type: "resync",
      chainId: 8453,
      position: encodePosition(
        new Map([[8453, (await request(base, "/v1/status")).body.data.chains.find((c: any) => c.chainId === 8453).id]]),
      ),
    });
    expect(events[2]).toMatchObject({ address: LP.c, removed: false });
    expect(now).toBeTruthy();
  });
});

describe("refusals are plain HTTP answers with the error envelope, never an upgrade", () => {
  const cases: Array<[string, string, { key?: string | null; headers?: Record<string, string> }, number, string]> = [
    ["no key", "topics=changes", { key: null }, 401, "API_KEY_MISSING"],
    ["an unknown key", "topics=changes", { key: "lgw_nobody_0123456789abcdef0123" }, 401, "API_KEY_NOT_FOUND"],
    ["a disabled key", "topics=changes", { key: KEYS.disabled }, 403, "API_KEY_DISABLED"],
    ["a key without the stream group", "topics=changes", { key: KEYS.poolsOnly }, 403, "API_KEY_FORBIDDEN"],
    ["a topic on a chain the key may not read", "topics=changes:8453", { key: KEYS.chain1Only }, 403, "API_KEY_FORBIDDEN"],
    ["a malformed topic", "topics=pools:8453", {}, 400, "VALIDATION_ERROR"],
    ["an unsupported chain", "topics=changes:5", {}, 400, "UNSUPPORTED_CHAIN_ID"],
    ["a malformed position", "topics=changes&since=AQ%3D", {}, 400, "INVALID_POSITION"],
    ["an unknown parameter", "topics=changes&limit=3", {}, 400, "VALIDATION_ERROR"],
    ["too many topics", `topics=${poolTopics(MAX_TOPICS + 1).join(",")}`, {}, 400, "VALIDATION_ERROR"],
  ];
  for (const [what, query, options, status, code] of cases) {
    it(`${what}: ${status} ${code} (WebSocket and SSE)`, async () => {
      const ws = await refusedWs(base, query, options);
      expectError(refusalResponse(ws), status, code);
      const sse = await refusedSse(base, query, options);
      expectError(refusalResponse(sse), status, code);
      expect(sse.body.error).toEqual(ws.body.error);
    });
  }

  it("a topic refusal names the property and value; too many topics is `max`; `changes` counts as one topic", async () => {
    expectValidation(refusalResponse(await refusedWs(base, "topics=pools:8453")), "topics", "matches", "pools:8453");
    expectValidation(refusalResponse(await refusedWs(base, `topics=${poolTopics(MAX_TOPICS + 1).join(",")}`)), "topics", "max");
    const full = [...poolTopics(MAX_TOPICS - 1), "changes"];
    const ws = open.track(await openWs(base, `topics=${full.join(",")}`));
    expect((await ws.next()).event.topics).toHaveLength(MAX_TOPICS);
  });

  it("a key over its quota: 429 with Retry-After", async () => {
    for (let i = 0; i < 3; i++) await request(base, "/v1/status", { key: KEYS.rateLimited });
    const refused = await refusedWs(base, "topics=changes", { key: KEYS.rateLimited });
    expectError(refusalResponse(refused), 429, "RATE_LIMIT_EXCEEDED");
    expect(refused.headers["retry-after"]).toBeTruthy();
  });

  it("a plain GET (no Upgrade, no Accept: text/event-stream) is 406 NOT_ACCEPTABLE; the stream group is enough", async () => {
    const plain = await request(base, "/v1/stream?topics=changes", { key: STREAM_KEY });
    expect(expectError(plain, 406, "NOT_ACCEPTABLE").metadata).toEqual({ accept: "*/*" });
    const json = await request(base, "/v1/stream", { key: STREAM_KEY, headers: { accept: "application/json, text/event-stream;q=0" } });
    expectError(json, 406, "NOT_ACCEPTABLE");
    const ok = open.track(await openWs(base, "topics=changes", { key: STREAM_KEY }));
    expect((await ok.next()).event.type).toBe("subscribed");
  });
});

describe("behind nginx (config/nginx.conf.example)", () => {
  let nginx: Nginx;
  let proxied: string;
  beforeAll(async () => {
    nginx = await startNginx(gw.port);
    proxied = `http://127.0.0.1:${nginx.port}`;
  });
  afterAll(async () => {
    await nginx?.stop();
  });

  it("WebSocket and SSE pass through, events unbuffered; refusals stay plain HTTP", async () => {
    const since = await statusPosition(base);
    const ws = open.track(await openWs(proxied, "topics=changes:8453"));
    const sse = open.track(await openSse(proxied, "topics=changes:8453"));
    expect((await ws.next()).event).toMatchObject({ type: "subscribed", position: since });
    expect((await sse.next()).event).toMatchObject({ type: "subscribed", position: since });
    await pushNext();
    const fromWs = await ws.next();
    expect(fromWs.event.type).toBe("changes");
    expect((await sse.next()).text).toBe(fromWs.text);
    const resumed = open.track(await openSse(proxied, "topics=changes:8453", { headers: { "last-event-id": since } }));
    expect((await resumed.rest(500)).map((e) => e.text)).toEqual([expect.stringContaining('"type":"subscribed"'), fromWs.text]);
    expectError(refusalResponse(await refusedWs(proxied, "topics=changes", { key: null })), 401, "API_KEY_MISSING");
    expectError(await request(proxied, "/v1/stream"), 406, "NOT_ACCEPTABLE");
  });
});

describe("metrics", () => {
  it("count open streams by transport and events by type", async () => {
    const text = (await request(base, "/metrics", { key: null })).text;
    expect(metricValue(text, "gateway_streams_open", { transport: "websocket" })).toBeGreaterThan(0);
    expect(metricValue(text, "gateway_streams_open", { transport: "sse" })).toBeGreaterThan(0);
    expect(metricValue(text, "gateway_stream_events_sent_total", { type: "changes" })).toBeGreaterThan(0);
    expect(metricValue(text, "gateway_stream_events_sent_total", { type: "pool" })).toBeGreaterThan(0);
    expect(metricValue(text, "gateway_stream_events_sent_total", { type: "error" })).toBeGreaterThan(0);
    expect(metricValue(text, "gateway_stream_publish_delay_seconds_count")).toBeGreaterThan(0);
  });
});
