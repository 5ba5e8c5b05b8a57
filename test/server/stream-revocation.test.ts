/**
 * An open stream does not outlive its key's right to it (docs/stream.md, "Access while open"): after a
 * real keys-file rewrite (the gateway reloads it and every serving thread re-checks its streams), and
 * when a key's `expiresAt` passes while its streams are open, a stream its key may no longer hold gets an
 * `error` event with the error a request with that key would get now, then is closed (WebSocket 4401 or
 * 4403, reason the error code; SSE: the response ends). Other streams carry on, and the per-key stream
 * counts (STREAM_MAX_CONNECTIONS_PER_KEY) stay exact.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIG_RATE_LIMIT, tempDir, writeChainFile, writeKeysFile, type TestKey } from "../support/fixtures.js";
import { expectError, startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { liveChain, LP, push } from "../support/live-fixture.js";
import {
  connectSse,
  connectWs,
  openSse,
  openWs,
  refusedWs,
  type Refusal,
  type SseClient,
  type WsClient,
  OpenClients,
  refusalResponse,
} from "../support/stream-clients.js";

const KEEP = "lgw_revoke_keep_0123456789abcdef";
const REMOVED = "lgw_revoke_removed_0123456789abcd";
const GROUP = "lgw_revoke_group_0123456789abcdef";
const CHAINS = "lgw_revoke_chains_0123456789abcde";
const EXPIRING = "lgw_revoke_expiring_0123456789abc";
const SWAP_A = "lgw_revoke_swap_a_0123456789abcdef";
const SWAP_B = "lgw_revoke_swap_b_0123456789abcdef";
const RAW_KEYS = [KEEP, REMOVED, GROUP, CHAINS, EXPIRING, SWAP_A, SWAP_B];
const MAX_PER_KEY = 2;

const key = (id: string, secret: string, extra: Partial<TestKey> = {}): TestKey => ({
  id,
  key: secret,
  status: "active",
  rateLimit: BIG_RATE_LIMIT,
  ...extra,
});

/** The keys file as the tests change it. */
const keys = {
  keep: key("rv-keep", KEEP),
  removed: key("rv-removed", REMOVED) as TestKey | null,
  group: key("rv-group", GROUP),
  chains: key("rv-chains", CHAINS, { chainIds: [1, 8453] }),
  expiring: null as TestKey | null,
  swapA: key("rv-swap-a", SWAP_A),
  swapB: key("rv-swap-b", SWAP_B),
};

let gw: Gateway;
let base: string;
let dir: string;
let keysDir: string;
const open = new OpenClients();
/** The unaffected key's WebSocket, and the narrowed key's one that stays (chain 8453 only). */
let keepWs: WsClient;
let narrowedWs: WsClient;

/** Rewrites the keys file and waits until the gateway has reloaded it. */
async function rewriteKeys(): Promise<void> {
  const reloaded = gw.logs().filter((l) => l.event === "keys-reloaded").length;
  const list = [keys.keep, keys.removed, keys.group, keys.chains, keys.expiring, keys.swapA, keys.swapB].filter(
    (k): k is TestKey => k !== null,
  );
  writeKeysFile(list, keysDir);
  await waitFor("the keys file to be reloaded", () =>
    gw.logs().filter((l) => l.event === "keys-reloaded").length > reloaded ? true : undefined,
  );
}

/** A stream of a key just added: retried until the serving thread it lands on has the reloaded keys. */
async function openAddedWs(query: string, secret: string): Promise<WsClient> {
  return open.track(
    await waitFor("the added key to open a WebSocket", async () => {
      const client = await connectWs(base, query, { key: secret });
      return "ws" in client ? client : undefined;
    }),
  );
}

async function openAddedSse(query: string, secret: string): Promise<SseClient> {
  return open.track(
    await waitFor("the added key to open an event stream", async () => {
      const client = await connectSse(base, query, { key: secret });
      return "ended" in client ? client : undefined;
    }),
  );
}

/** The `error` event a revoked stream gets, then its close. */
async function expectRevokedWs(ws: WsClient, code: string, closeCode: number) {
  const { found } = await ws.until((event) => event.type === "error", 15_000);
  expect(found.event.error.code).toBe(code);
  expect(await ws.closed).toEqual({ code: closeCode, reason: code });
  return found.event.error;
}

async function expectRevokedSse(sse: SseClient, code: string) {
  const { found } = await sse.until((event) => event.type === "error", 15_000);
  expect(found.sseType).toBe("error");
  expect(found.event.error.code).toBe(code);
  await sse.ended;
  return found.event.error;
}

/** Nothing more arrives on a stream that must stay quiet (and open). */
async function expectQuietAndOpen(ws: WsClient): Promise<void> {
  expect(await ws.rest(500)).toEqual([]);
  expect(ws.ws.readyState).toBe(ws.ws.OPEN);
}

beforeAll(async () => {
  dir = tempDir("lgw-stream-revoke-");
  writeChainFile(dir, liveChain(8453, 0));
  writeChainFile(dir, liveChain(1, 0));
  keysDir = tempDir("lgw-stream-revoke-keys-");
  const file = writeKeysFile([keys.keep, keys.removed!, keys.group, keys.chains, keys.swapA, keys.swapB], keysDir);
  expect(path.dirname(file)).toBe(keysDir);
  gw = await startGateway({
    snapshotDir: dir,
    keysFile: file,
    env: { GATEWAY_THREADS: "2", STREAM_MAX_CONNECTIONS_PER_KEY: String(MAX_PER_KEY) },
  });
  base = gw.baseUrl;
  // Ready follows the initial load, but its stream events go out once every thread serves it (decision 006): a
  // stream opened before that gets them. Every test here expects quiet streams, so wait for those publications.
  await waitFor("the initial load's publications", () => {
    const swapped = gw.logs().filter((l) => l.event === "snapshot-swapped");
    const published = new Set(
      gw
        .logs()
        .filter((l) => l.event === "snapshot-published")
        .map((l) => l.publication),
    );
    return swapped.length > 0 && swapped.every((l) => published.has(l.publication)) ? true : undefined;
  });
}, 60_000);

afterAll(async () => {
  open.closeAll();
  await gw?.stop();
});

describe("a keys-file reload", () => {
  it("closes the streams of a removed key with API_KEY_NOT_FOUND (WebSocket 4401, SSE end); other keys' streams stay", async () => {
    const keep = (keepWs = open.track(await openWs(base, "topics=changes:8453", { key: KEEP })));
    const ws = open.track(await openWs(base, "topics=changes", { key: REMOVED }));
    const sse = open.track(await openSse(base, "topics=changes:8453", { key: REMOVED }));
    for (const client of [keep, ws, sse]) expect((await client.next()).event.type).toBe("subscribed");

    keys.removed = null;
    await rewriteKeys();

    const wsError = await expectRevokedWs(ws, "API_KEY_NOT_FOUND", 4401);
    const sseError = await expectRevokedSse(sse, "API_KEY_NOT_FOUND");
    // The usual error object: what a request with that key gets now, masked key included.
    const refused = await refusedWs(base, "topics=changes", { key: REMOVED });
    expectError(refusalResponse(refused), 401, "API_KEY_NOT_FOUND");
    expect(wsError).toEqual(refused.body.error);
    expect(sseError).toEqual(refused.body.error);
    expect(wsError.metadata.receivedKey).toBe(`${REMOVED.slice(0, 4)}...${REMOVED.slice(-3)}`);
    await expectQuietAndOpen(keep);

    const logged = gw.logs().filter((l) => l.event === "stream-revoked" && l.key === "rv-removed");
    expect(logged.map((l) => [l.transport, l.code, l.maskedKey]).sort()).toEqual([
      ["sse", "API_KEY_NOT_FOUND", wsError.metadata.receivedKey],
      ["websocket", "API_KEY_NOT_FOUND", wsError.metadata.receivedKey],
    ]);
  });

  it("closes the streams of a key that lost the `stream` route group with API_KEY_FORBIDDEN (4403)", async () => {
    const ws = open.track(await openWs(base, `topics=pool:8453:${LP.a}`, { key: GROUP }));
    const sse = open.track(await openSse(base, "topics=changes", { key: GROUP }));
    for (const client of [ws, sse]) expect((await client.next()).event.type).toBe("subscribed");

    keys.group = { ...keys.group, routes: ["pools", "tokens"] };
    await rewriteKeys();

    const error = await expectRevokedWs(ws, "API_KEY_FORBIDDEN", 4403);
    expect(error.metadata).toMatchObject({ route: "stream", allowedRoutes: ["tokens", "pools"] });
    expect(await expectRevokedSse(sse, "API_KEY_FORBIDDEN")).toEqual(error);
    await expectQuietAndOpen(keepWs);
  });

  it("narrowed chainIds close only the streams holding a topic of a chain no longer allowed; the counts stay exact", async () => {
    const chain1 = open.track(await openWs(base, "topics=changes:1", { key: CHAINS }));
    const base8453 = (narrowedWs = open.track(await openWs(base, `topics=changes:8453,pool:8453:${LP.a}`, { key: CHAINS })));
    for (const client of [chain1, base8453]) expect((await client.next()).event.type).toBe("subscribed");
    // Both places of the key are taken.
    expectError(refusalResponse(await refusedWs(base, "topics=changes:8453", { key: CHAINS })), 429, "RATE_LIMIT_EXCEEDED");

    keys.chains = { ...keys.chains, chainIds: [8453] };
    await rewriteKeys();

    const error = await expectRevokedWs(chain1, "API_KEY_FORBIDDEN", 4403);
    expect(error.metadata).toEqual({ chainId: 1, allowedChainIds: [8453] });
    await expectQuietAndOpen(base8453);
    await expectQuietAndOpen(keepWs);

    // The revoked stream gave its place back, exactly once: one more opens, the next is refused.
    const again = open.track(await openWs(base, "topics=changes", { key: CHAINS }));
    expect((await again.next()).event).toMatchObject({ type: "subscribed", topics: ["changes"] });
    expectError(refusalResponse(await refusedWs(base, "topics=changes:8453", { key: CHAINS })), 429, "RATE_LIMIT_EXCEEDED");
    // A subscription to the chain now forbidden is refused on the open stream (its key's new entry applies).
    again.send({ op: "subscribe", topics: ["changes:1"] });
    const refusal = await again.next();
    expect(refusal.event).toMatchObject({ type: "error", error: { code: "API_KEY_FORBIDDEN", metadata: { chainId: 1 } } });
    expect(again.ws.readyState).toBe(again.ws.OPEN);

    // A removed key that comes back starts with no stream counted: its two places are free.
    keys.removed = key("rv-removed", REMOVED);
    await rewriteKeys();
    const first = await openAddedWs("topics=changes:8453", REMOVED);
    const second = await openAddedSse("topics=changes:8453", REMOVED);
    for (const client of [first, second]) expect((await client.next()).event.type).toBe("subscribed");
    const third = await connectWs(base, "topics=changes:8453", { key: REMOVED });
    expect("ws" in third).toBe(false);
    expectError(refusalResponse(third as Refusal), 429, "RATE_LIMIT_EXCEEDED");
  });
});

describe("open streams per key across reloads", () => {
  /** Waits until every serving thread has surely applied the reload the supervisor logged. */
  const threadsApplied = () => new Promise((resolve) => setTimeout(resolve, 300));
  const refusedFor = async (secret: string) =>
    expectError(refusalResponse(await refusedWs(base, "topics=changes:8453", { key: secret })), 429, "RATE_LIMIT_EXCEEDED");

  it("two keys whose ids are swapped in one reload keep their own counts (the count follows the key, not its id)", async () => {
    const held = [
      open.track(await openWs(base, "topics=changes:8453", { key: SWAP_A })),
      open.track(await openSse(base, "", { key: SWAP_A })),
    ];
    for (const client of held) expect((await client.next()).event.type).toBe("subscribed");
    await refusedFor(SWAP_A);

    // Renamed both ways (and reordered): A's secret now has B's id and B's secret A's.
    keys.swapA = { ...keys.swapA, id: "rv-swap-b" };
    keys.swapB = { ...keys.swapB, id: "rv-swap-a" };
    await rewriteKeys();
    await threadsApplied();
    await expectQuietAndOpen(held[0] as WsClient);
    await refusedFor(SWAP_A); // A still holds its two streams
    const b = [
      open.track(await openWs(base, "topics=changes:8453", { key: SWAP_B })),
      open.track(await openSse(base, "", { key: SWAP_B })),
    ];
    for (const client of b) expect((await client.next()).event.type).toBe("subscribed");
    await refusedFor(SWAP_B); // B's two places, and no more

    // Renamed again, to an id never seen: still the same key with the same streams.
    keys.swapA = { ...keys.swapA, id: "rv-swap-a-renamed" };
    await rewriteKeys();
    await threadsApplied();
    await refusedFor(SWAP_A);
    // A stream closing gives its place back to the key under its current id.
    (held[0] as WsClient).ws.close();
    await (held[0] as WsClient).closed;
    const again = await waitFor("a place of A to free", async () => {
      const client = await connectWs(base, "topics=changes:8453", { key: SWAP_A });
      return "ws" in client ? open.track(client) : undefined;
    });
    expect((await again.next()).event.type).toBe("subscribed");
    await refusedFor(SWAP_A);
  });
});

describe("a key that expires while its streams are open", () => {
  it("has them closed with API_KEY_EXPIRED (WebSocket 4403, SSE end) when its expiresAt passes, without a reload", async () => {
    const expiresAtMs = Math.ceil((Date.now() + 5000) / 1000) * 1000;
    const expiresAt = new Date(expiresAtMs).toISOString().replace(/\.\d{3}Z$/, "Z");
    keys.expiring = key("rv-expiring", EXPIRING, { expiresAt });
    await rewriteKeys();
    const ws = await openAddedWs("topics=changes:8453", EXPIRING);
    const sse = await openAddedSse("topics=changes", EXPIRING);
    for (const client of [ws, sse]) expect((await client.next()).event.type).toBe("subscribed");
    const reloads = gw.logs().filter((l) => l.event === "keys-reloaded").length;

    const error = await expectRevokedWs(ws, "API_KEY_EXPIRED", 4403);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAtMs);
    expect(error.metadata).toEqual({ expiredAt: expiresAt });
    // The server time in `details` is each thread's at its check (the two streams may be on different threads).
    const serverTime = (e: { details: string }) => Date.parse(/server time (\S+)\.$/.exec(e.details)![1]);
    expect(serverTime(error)).toBeGreaterThanOrEqual(expiresAtMs);
    const sseError = await expectRevokedSse(sse, "API_KEY_EXPIRED");
    expect(serverTime(sseError)).toBeGreaterThanOrEqual(expiresAtMs);
    expect({ ...sseError, details: undefined }).toEqual({ ...error, details: undefined });
    expect(gw.logs().filter((l) => l.event === "keys-reloaded").length).toBe(reloads);
    await expectQuietAndOpen(keepWs);
  });
});

describe("after the revocations", () => {
  it("the streams of unaffected keys (and of the narrowed key, within its chains) still receive a push", async () => {
    const file = liveChain(8453, 1);
    push(dir, file);
    const { found } = await keepWs.until((event) => event.type === "changes", 20_000);
    expect(found.event).toMatchObject({ type: "changes", chainId: 8453, generatedAt: file.generatedAt });
    expect((await narrowedWs.until((event) => event.type === "changes", 20_000)).found.event).toMatchObject({
      type: "changes",
      chainId: 8453,
      generatedAt: file.generatedAt,
    });
    expect((await narrowedWs.next(20_000)).event).toMatchObject({ type: "pool", chainId: 8453, address: LP.a });
  });

  it("no log line carries a raw key", () => {
    const stdout = gw.stdout();
    for (const raw of RAW_KEYS) expect(stdout.includes(raw)).toBe(false);
  });
});
