/**
 * The edge of GET /v1/stream as a hostile or careless client meets it (issue 27), against the real server
 * over raw sockets where a client library would hide the bytes: the exact bytes that end an SSE response
 * the gateway ends (a revoked key, shutdown); the handshakes that must not be switched to a WebSocket (RFC
 * 9110 §7.8, RFC 6455 §4.2); what an unmasked client frame does; and the message rate.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIG_RATE_LIMIT, KEYS, standardKeys, tempDir, writeChainFile, writeKeysFile, type TestKey } from "../support/fixtures.js";
import { startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { liveChain } from "../support/live-fixture.js";
import { decodeChunked, RawConnection, rawRequest, splitHead } from "../support/raw-http.js";

const REVOKED = "lgw_edge_revoked_0123456789abcdef";

let gw: Gateway;
let keysDir: string;
let keys: TestKey[];
const raw: RawConnection[] = [];

/** Rewrites the keys file and waits until the gateway has reloaded it. */
async function rewriteKeys(next: TestKey[]): Promise<void> {
  const reloaded = gw.logs().filter((l) => l.event === "keys-reloaded").length;
  keys = next;
  writeKeysFile(keys, keysDir);
  await waitFor("the keys file to be reloaded", () =>
    gw.logs().filter((l) => l.event === "keys-reloaded").length > reloaded ? true : undefined,
  );
}

/** An SSE stream opened over a raw socket; resolves once its `subscribed` event arrived. */
async function rawSse(key: string, query = "topics=changes"): Promise<RawConnection> {
  const connection = await RawConnection.open(
    gw.port,
    rawRequest("GET", `/v1/stream?${query}`, { Authorization: `Bearer ${key}`, Accept: "text/event-stream" }),
  );
  raw.push(connection);
  await connection.until("the subscribed event", (data) => data.includes("event: subscribed"));
  return connection;
}

/**
 * The ending of an SSE response, checked byte for byte: a 200 with `Transfer-Encoding: chunked` whose body is
 * well-formed chunks, the last of them `lastEvent`'s, then the terminating zero-length chunk and nothing else.
 */
function expectWellEnded(data: Buffer, lastEvent: RegExp): void {
  const head = splitHead(data)!;
  expect(head.status).toBe(200);
  expect(head.headers).toContainEqual(["transfer-encoding", "chunked"]);
  const body = decodeChunked(head.rest); // throws on a byte out of place (what curl calls "Malformed encoding")
  expect(body.ended).toBe(true);
  expect(body.rest.length).toBe(0);
  const text = body.data.toString("utf8");
  const events = text.split("\n\n").filter((e) => e !== "");
  expect(events.at(-1)).toMatch(lastEvent);
  expect(text.endsWith("\n\n")).toBe(true);
  // On the wire: the last event's bytes, the CRLF that ends its chunk, the last chunk. Nothing between.
  expect(data.subarray(-9).toString("latin1")).toBe("\n\n\r\n0\r\n\r\n");
}

beforeAll(async () => {
  const dir = tempDir("lgw-stream-edge-");
  writeChainFile(dir, liveChain(8453, 0));
  keysDir = tempDir("lgw-stream-edge-keys-");
  keys = [...standardKeys(), { id: "edge-revoked", key: REVOKED, status: "active", rateLimit: BIG_RATE_LIMIT }];
  gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile(keys, keysDir), env: { GATEWAY_THREADS: "2" } });
}, 60_000);

afterAll(async () => {
  for (const connection of raw) connection.destroy();
  await gw?.stop();
});

describe("an SSE response the gateway ends", () => {
  it("a revoked key's stream: its error event's chunk, then the terminating chunk; the connection serves the next request", async () => {
    const sse = await rawSse(REVOKED);
    await rewriteKeys(keys.filter((k) => k.key !== REVOKED));
    const data = await sse.until("the end of the response", (d) => {
      const head = splitHead(d);
      return head !== null && decodeChunked(head.rest).ended;
    });
    expectWellEnded(data, /^event: error\ndata: \{"type":"error","error":\{"code":"API_KEY_NOT_FOUND"/);
    // The response is complete and the connection is a plain keep-alive one again.
    const ended = data.length;
    sse.write(rawRequest("GET", "/health"));
    const next = await sse.until("the next answer", (d) => /\r\n\r\n\{"status":"ok"\}$/.test(d.toString("latin1", ended)));
    expect(splitHead(next.subarray(ended))!.status).toBe(200);
  });

  it("shutdown: every open stream ends with its last event's chunk and the terminating chunk", async () => {
    const streams = await Promise.all([rawSse(KEYS.active), rawSse(KEYS.active, "topics=changes:8453")]);
    expect(await gw.stop()).toBe(0);
    for (const sse of streams) {
      await sse.closedWithin(5000);
      expectWellEnded(sse.data, /^event: subscribed\nid: \S+\ndata: \{"type":"subscribed"/);
    }
  });
});
