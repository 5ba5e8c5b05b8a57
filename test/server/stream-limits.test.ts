/**
 * GET /v1/stream's limits against the real server: open streams per key
 * (STREAM_MAX_CONNECTIONS_PER_KEY, across both serving threads and both
 * transports: the next opening is 429, a closed stream frees its place), and
 * a client that stops reading (STREAM_MAX_BUFFER_BYTES): it is closed with
 * 4008 `slow-consumer` while a client reading the same topics receives every
 * event of every push.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import {
  addr,
  chainFile,
  KEYS,
  nativeToken,
  poolToken,
  protocol,
  standardKeys,
  tempDir,
  token,
  v3Pool,
  writeChainFile,
  writeKeysFile,
} from "../support/fixtures.js";
import { expectError, metricValue, request, startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { push } from "../support/live-fixture.js";
import {
  openSse,
  openWs,
  refusedSse,
  refusedWs,
  type SseClient,
  type WsClient,
  OpenClients,
  refusalResponse,
} from "../support/stream-clients.js";

const PER_KEY = 3;
/** Larger than one push's events for a connection (a reader keeps up), smaller than a few pushes' (a client that stops reading does not). */
const BUFFER = 2 * 1024 * 1024;
const POOLS = 200;
/** Fewer than the pools a push changes: its changes events are truncated. */
const MAX_ADDRESSES = 150;
const TOKENS_PER_POOL = 24;
const T0 = 1_770_000_000;

/** A chain whose every pool changes with every version (amounts follow k); each pool's JSON is several KiB. */
function heavyChain(k: number): SnapshotFile {
  const tokens = [nativeToken(8453), ...Array.from({ length: 40 }, (_, i) => token(8453, { address: addr(`c${i}`), symbol: `HV${i}` }))];
  const pools = Array.from({ length: POOLS }, (_, p) =>
    v3Pool({
      address: addr(`d${p.toString(16)}`),
      protocolId: "heavy",
      tokens: Array.from({ length: TOKENS_PER_POOL }, (_, t) =>
        poolToken(tokens[1 + ((p + t) % 40)]!.address, 1000 + k + t, 2000 + k * 3 + t),
      ),
    }),
  );
  return chainFile(8453, { generatedAt: T0 + 100 * k, protocols: [protocol("heavy")], tokens, pools });
}

const poolTopics = Array.from({ length: POOLS }, (_, p) => `pool:8453:${addr(`d${p.toString(16)}`)}`);

let gw: Gateway;
let base: string;
let dir: string;
let version = 0;
const open = new OpenClients();

async function pushNext(): Promise<number> {
  version++;
  const file = heavyChain(version);
  push(dir, file);
  await waitFor("the pushed file to be served", async () => {
    const res = await request(base, "/v1/status");
    return res.body?.data?.chains?.[0]?.generatedAt === file.generatedAt ? true : undefined;
  });
  return file.generatedAt;
}

beforeAll(async () => {
  dir = tempDir("lgw-stream-limits-");
  writeChainFile(dir, heavyChain(0));
  gw = await startGateway({
    snapshotDir: dir,
    keysFile: writeKeysFile(standardKeys()),
    env: {
      GATEWAY_THREADS: "2",
      STREAM_MAX_CONNECTIONS_PER_KEY: String(PER_KEY),
      STREAM_MAX_BUFFER_BYTES: String(BUFFER),
      STREAM_MAX_ADDRESSES: String(MAX_ADDRESSES),
    },
  });
  base = gw.baseUrl;
}, 60_000);

afterAll(async () => {
  open.closeAll();
  await gw?.stop();
});

describe("STREAM_MAX_CONNECTIONS_PER_KEY", () => {
  it(`a key holds at most ${PER_KEY} open streams (WebSocket and SSE, every thread); the next is 429; closing one frees a place`, async () => {
    const held: Array<WsClient | SseClient> = [];
    held.push(await openWs(base, "topics=changes", { key: KEYS.activeFuture }));
    held.push(await openSse(base, "topics=changes", { key: KEYS.activeFuture }));
    held.push(await openWs(base, "", { key: KEYS.activeFuture }));
    for (const client of held) expect((await client.next()).event.type).toBe("subscribed");

    const ws = await refusedWs(base, "topics=changes", { key: KEYS.activeFuture });
    expect(expectError(refusalResponse(ws), 429, "RATE_LIMIT_EXCEEDED").metadata.retryAfterSeconds).toBeGreaterThan(0);
    expect(ws.headers["retry-after"]).toBeTruthy();
    expectError(refusalResponse(await refusedSse(base, "topics=changes", { key: KEYS.activeFuture })), 429, "RATE_LIMIT_EXCEEDED");
    // Another key is not affected.
    const other = await openWs(base, "topics=changes", { key: KEYS.active });
    expect((await other.next()).event.type).toBe("subscribed");
    other.ws.close();

    const first = held.shift() as WsClient;
    first.ws.close();
    await first.closed;
    const sse = held.shift() as SseClient;
    sse.close();
    const again = await waitFor("a place to free", async () => {
      const { connectWs } = await import("../support/stream-clients.js");
      const client = await connectWs(base, "topics=changes", { key: KEYS.activeFuture });
      return "ws" in client ? client : undefined;
    });
    expect((await again.next()).event.type).toBe("subscribed");
    for (const client of [again, ...held]) {
      if ("ws" in client) {
        client.ws.close();
        await client.closed;
      } else client.close();
    }
  });
});

describe("heartbeats", () => {
  it("an idle SSE stream gets a comment line every 15 s", async () => {
    const sse = await openSse(base, "topics=changes:1", { key: KEYS.active });
    open.add(sse);
    expect((await sse.next()).event.type).toBe("subscribed");
    const comments = sse.comments.length;
    await waitFor("a heartbeat comment", () => (sse.comments.length > comments ? true : undefined), 20_000);
    expect(sse.comments.at(-1)).toBe(": ping");
    sse.close();
  }, 30_000);
});

describe("a slow consumer", () => {
  it("a client that stops reading is closed with 4008 slow-consumer; a client reading the same topics receives every event", async () => {
    const topics = ["changes:8453", ...poolTopics];
    const subscribe = async (client: WsClient) => {
      expect((await client.next()).event.type).toBe("subscribed");
      client.send({ op: "subscribe", topics });
      expect((await client.next()).event.topics).toHaveLength(topics.length);
    };
    const slow = await openWs(base, "", { key: KEYS.active });
    const reader = await openWs(base, "", { key: KEYS.activeFuture });
    open.add(slow, reader);
    await subscribe(slow);
    await subscribe(reader);
    const readerSse = await openSse(base, `topics=changes:8453`, { key: KEYS.activeFuture });
    open.add(readerSse);
    expect((await readerSse.next()).event.type).toBe("subscribed");

    slow.ws.pause(); // reads nothing more from its socket
    const slowClosed = () => gw.logs().some((l) => l.event === "stream-slow-consumer");
    let rounds = 0;
    while (!slowClosed() || rounds < 2) {
      expect(rounds, "pushes before the client that stopped reading was closed").toBeLessThan(40);
      rounds++;
      const before = (await request(base, "/v1/status")).body.data.position as string;
      const generatedAt = await pushNext();
      const changes = await reader.until((e) => e.type === "changes", 30_000);
      expect(changes.skipped).toEqual([]);
      // Longer than STREAM_MAX_ADDRESSES: counts instead of lists; GET /v1/changes has the addresses.
      expect(changes.found.event).toMatchObject({
        generatedAt,
        pools: { upserted: [], removed: [] },
        tokens: { upserted: [], removed: [] },
        poolsUpserted: POOLS,
        poolsRemoved: 0,
        tokensUpserted: 0,
        tokensRemoved: 0,
        truncated: true,
      });
      if (rounds === 1) {
        const page = (await request(base, `/v1/changes?since=${before}&limit=10000`)).body.data;
        expect(page.changes.filter((e: any) => e.kind === "pool" && e.change === "upserted")).toHaveLength(POOLS);
        expect(page.position).toBe(changes.found.event.position);
      }
      const pools = new Set<string>();
      for (let i = 0; i < POOLS; i++) {
        const e = (await reader.next(30_000)).event;
        expect(e.type).toBe("pool");
        expect(e.position).toBe(changes.found.event.position);
        pools.add(e.address);
      }
      expect(pools.size).toBe(POOLS);
      expect((await readerSse.next(30_000)).event.generatedAt).toBe(generatedAt);
    }

    // The slow client reads again: what it was sent, then the close frame.
    slow.ws.resume();
    const closed = await slow.closed;
    expect(closed).toEqual({ code: 4008, reason: "slow-consumer" });
    const received = slow.events.slice(2).map((e) => e.event);
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(rounds * (POOLS + 1));
    // A prefix of what the reader got: whole events, in order.
    expect(received[0]).toMatchObject({ type: "changes", generatedAt: T0 + 100 });

    const text = (await request(base, "/metrics", { key: null })).text;
    expect(metricValue(text, "gateway_stream_slow_consumer_closes_total")).toBeGreaterThanOrEqual(1);
    // The reader keeps its stream.
    reader.send({ op: "subscribe", topics: [] });
    expect((await reader.until((e) => e.type === "subscribed")).found.event.topics).toHaveLength(topics.length);
  }, 120_000);
});
