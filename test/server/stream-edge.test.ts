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
import { startNginx } from "../support/nginx-process.js";
import { answerOf, decodeChunked, RawConnection, rawRequest, splitHead } from "../support/raw-http.js";
import {
  acceptOf,
  clientFrame,
  closeOf,
  handshakeRequest,
  jsonFrame,
  OP_CLOSE,
  OP_TEXT,
  serverFrames,
} from "../../bench/shared/ws-frames.js";

const REVOKED = "lgw_edge_revoked_0123456789abcdef";
/** A key of its own (the message-rate tests); revoked with the other at the end. */
const REVOKED_LATER = "lgw_edge_other_0123456789abcdefg";

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
  keys = [
    ...standardKeys(),
    { id: "edge-revoked", key: REVOKED, status: "active", rateLimit: BIG_RATE_LIMIT },
    { id: "edge-other", key: REVOKED_LATER, status: "active", rateLimit: BIG_RATE_LIMIT },
  ];
  // One serving thread: a key's connections share its message bucket per thread.
  gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile(keys, keysDir), env: { GATEWAY_THREADS: "1" } });
}, 60_000);

afterAll(async () => {
  for (const connection of raw) connection.destroy();
  await gw?.stop();
});

/** The answer to a request on a fresh connection (the connection is kept for the file's end). */
async function answer(bytes: Buffer) {
  const connection = await RawConnection.open(gw.port, bytes);
  raw.push(connection);
  const data = await connection.until("an answer", (d) => answerOf(d) !== null);
  return { ...answerOf(data)!, connection };
}

/** A handshake to GET /v1/stream?topics=changes with the active key, `changes` applied to its fields. */
const handshake = (changes: Record<string, string | null> = {}) =>
  handshakeRequest("/v1/stream?topics=changes", { Authorization: `Bearer ${KEYS.active}`, ...changes });

describe("what is switched to a WebSocket (RFC 9110 §7.8, RFC 6455 §4.2)", () => {
  it("a request whose Upgrade does not list websocket is an ordinary GET, whatever its Sec-WebSocket-Key: SSE or 406, never 101", async () => {
    const cases: Array<[string, Record<string, string | null>, number]> = [
      ["no Upgrade, Accept: text/event-stream", { Upgrade: null, Connection: null, Accept: "text/event-stream" }, 200],
      ["no Upgrade, no Accept", { Upgrade: null, Connection: null }, 406],
      ["no Upgrade but Connection: Upgrade", { Upgrade: null }, 406],
      ["Upgrade: h2c", { Upgrade: "h2c", Connection: "Upgrade, HTTP2-Settings", "HTTP2-Settings": "AAMAAABkAAQCAAAAAAIAAAAA" }, 406],
      [
        "Upgrade: h2c, Accept: text/event-stream",
        { Upgrade: "h2c", Connection: "Upgrade, HTTP2-Settings", Accept: "text/event-stream" },
        200,
      ],
      ["Upgrade: websockets", { Upgrade: "websockets" }, 406],
    ];
    for (const [what, changes, status] of cases) {
      const got = await answer(handshake(changes).bytes);
      expect(got.status, what).toBe(status);
      if (status === 200) expect(got.header("content-type"), what).toBe("text/event-stream");
      else expect(got.body.error.code, what).toBe("NOT_ACCEPTABLE");
      expect(got.header("sec-websocket-accept"), what).toBeUndefined();
      got.connection.destroy();
    }
  });

  it("a malformed handshake is 400 INVALID_WEBSOCKET_HANDSHAKE naming the field, before the key (no quota counted)", async () => {
    const cases: Array<[string, Record<string, string | null>, string, string | null]> = [
      ["no Connection", { Connection: null }, "Connection", null],
      ["Connection: keep-alive", { Connection: "keep-alive" }, "Connection", "keep-alive"],
      [
        "a 24-character key that is not base64",
        { "Sec-WebSocket-Key": "!!!!!!!!!!!!!!!!!!!!!!==" },
        "Sec-WebSocket-Key",
        "!!!!!!!!!!!!!!!!!!!!!!==",
      ],
      ["a key of 17 bytes", { "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZSE=" }, "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZSE="],
      ["a key of 20 characters", { "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25j" }, "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25j"],
      ["no key", { "Sec-WebSocket-Key": null }, "Sec-WebSocket-Key", null],
      ["no Sec-WebSocket-Version", { "Sec-WebSocket-Version": null }, "Sec-WebSocket-Version", null],
      ["no key and no Authorization", { "Sec-WebSocket-Key": null, Authorization: null }, "Sec-WebSocket-Key", null],
    ];
    for (const [what, changes, header, value] of cases) {
      const got = await answer(handshake(changes).bytes);
      expect(got.status, what).toBe(400);
      expect(got.header("x-error-code"), what).toBe("INVALID_WEBSOCKET_HANDSHAKE");
      expect(got.body.error, what).toMatchObject({
        code: "INVALID_WEBSOCKET_HANDSHAKE",
        title: "Bad Request",
        metadata: { header, value },
      });
      expect(got.header("ratelimit-remaining"), what).toBeUndefined();
      got.connection.destroy();
    }
  });

  it("another version is 426 UNSUPPORTED_WEBSOCKET_VERSION with Sec-WebSocket-Version: 13 and Upgrade: websocket", async () => {
    for (const [version, key] of [
      ["8", KEYS.active],
      ["99", KEYS.active],
      ["7", null],
    ] as const) {
      const authorization = key === null ? null : `Bearer ${key}`;
      const got = await answer(handshake({ "Sec-WebSocket-Version": version, Authorization: authorization }).bytes);
      expect(got.status, version).toBe(426);
      expect(got.header("sec-websocket-version")).toBe("13");
      expect(got.header("upgrade")).toBe("websocket");
      expect(got.header("connection")).toBe("upgrade");
      expect(got.body.error).toMatchObject({
        code: "UNSUPPORTED_WEBSOCKET_VERSION",
        title: "Upgrade Required",
        metadata: { version, supportedVersions: ["13"] },
      });
      // The connection stays usable: a retry with version 13 on it is switched.
      const retry = handshake({ Authorization: authorization });
      const before = got.connection.data.length;
      got.connection.write(retry.bytes);
      const switched = await got.connection.until("the retry's answer", (d) => answerOf(d.subarray(before)) !== null);
      const second = answerOf(switched.subarray(before))!;
      expect(second.status).toBe(key === null ? 401 : 101);
      if (key !== null) expect(second.header("sec-websocket-accept")).toBe(acceptOf(retry.key));
      got.connection.destroy();
    }
  });

  it("a well-formed handshake is switched: Upgrade and Connection may list other options, in any letter case", async () => {
    for (const changes of [{}, { Upgrade: "foo/1, WebSocket", Connection: "keep-alive, UPGRADE" }]) {
      const request = handshake(changes);
      const got = await answer(request.bytes);
      expect(got.status, JSON.stringify(changes)).toBe(101);
      expect(got.header("sec-websocket-accept")).toBe(acceptOf(request.key));
      got.connection.destroy();
    }
  });
});

/** A WebSocket opened over a raw socket, its `subscribed` event read; `events()` parses what came after. */
async function rawWs(key: string = KEYS.active, port = gw.port) {
  const connection = await RawConnection.open(port, handshake({ Authorization: `Bearer ${key}` }).bytes);
  raw.push(connection);
  await connection.until("the 101", (d) => answerOf(d) !== null);
  const start = connection.data.length - answerOf(connection.data)!.rest.length;
  await connection.until("subscribed", (d) => serverFrames(d.subarray(start)).frames.length > 0);
  const frames = () => serverFrames(connection.data.subarray(start)).frames.slice(1);
  return {
    connection,
    frames,
    /** The text messages after `subscribed`, parsed; and the close frame, if one came. */
    events: () =>
      frames()
        .filter((f) => f.opcode !== OP_CLOSE)
        .map((f) => JSON.parse(f.payload.toString("utf8"))),
    close: () => {
      const close = frames().find((f) => f.opcode === OP_CLOSE);
      return close === undefined ? null : closeOf(close);
    },
  };
}

/** `n` subscribe and unsubscribe messages, alternately, as masked frames in one buffer. */
function flood(n: number): Buffer {
  const topics = ["changes:8453"];
  return Buffer.concat(Array.from({ length: n }, (_, i) => jsonFrame({ op: i % 2 === 0 ? "subscribe" : "unsubscribe", topics })));
}

describe("the message rate (STREAM_MAX_MESSAGES_PER_SECOND 20, STREAM_MAX_KEY_MESSAGES_PER_SECOND 100)", () => {
  it("a connection's pipelined flood: 20 answered, the next 20 refused with an error event, then closed 1008; others are served", async () => {
    const other = await rawWs();
    const flooder = await rawWs();
    flooder.connection.write(flood(2000));
    await flooder.connection.closedWithin(10_000);
    const events = flooder.events();
    expect(events.slice(0, 20).map((e) => e.type)).toEqual(Array(20).fill("subscribed"));
    expect(events.slice(20).map((e) => e.type)).toEqual(Array(21).fill("error"));
    expect(events[20].error).toMatchObject({
      code: "RATE_LIMIT_EXCEEDED",
      title: "Rate Limit Exceeded",
      metadata: { retryAfterSeconds: 1 },
    });
    expect(events[20].error.message).toContain("STREAM_MAX_MESSAGES_PER_SECOND");
    expect(flooder.close()).toEqual({ code: 1008, reason: "message rate exceeded" });

    other.connection.write(jsonFrame({ op: "subscribe", topics: ["changes:1"] }));
    await other.connection.until("the other client's answer", () => other.events().length === 1);
    expect(other.events()[0]).toMatchObject({ type: "subscribed", topics: ["changes", "changes:1"] });
  });

  it("a key's connections share 100 a second: past it each message is refused, and no connection is closed for it", async () => {
    const clients = await Promise.all(Array.from({ length: 6 }, () => rawWs(KEYS.activeFuture))); // a key the flood above did not use
    for (const client of clients) client.connection.write(flood(20));
    await waitFor("every message to be answered", () => (clients.every((c) => c.events().length === 20) ? true : undefined));
    const all = clients.flatMap((c) => c.events());
    // 100 at once, and one more per 10 ms the six writes take to arrive (the bucket drains 100 a second).
    const taken = all.filter((e) => e.type === "subscribed").length;
    expect(taken).toBeGreaterThanOrEqual(100);
    expect(taken).toBeLessThanOrEqual(110);
    const refused = all.filter((e) => e.type === "error");
    expect(refused.length).toBe(120 - taken);
    for (const e of refused) expect(e.error.message).toContain("STREAM_MAX_KEY_MESSAGES_PER_SECOND");
    // Another key is not touched, and none of these closes.
    const otherKey = await rawWs(REVOKED_LATER);
    otherKey.connection.write(flood(20));
    await otherKey.connection.until("the other key's answers", () => otherKey.events().length === 20);
    expect(new Set(otherKey.events().map((e) => e.type))).toEqual(new Set(["subscribed"]));
    for (const client of [...clients, otherKey]) expect(client.close()).toBeNull();
  });
});

describe("an unmasked client frame (RFC 6455 §5.1: the server MUST close, 1002), which uWS does not let the gateway see", () => {
  it("straight and through nginx: no answer; the next frame ends the connection without a close frame; no one else notices", async () => {
    const nginx = await startNginx(gw.port);
    try {
      for (const [via, port] of [
        ["straight", gw.port],
        ["through nginx", nginx.port],
      ] as const) {
        const other = await rawWs(KEYS.active, port);
        const client = await rawWs(KEYS.active, port);
        client.connection.write(clientFrame(OP_TEXT, JSON.stringify({ op: "subscribe", topics: ["changes:1"] }), false));
        await new Promise((r) => setTimeout(r, 500));
        expect(client.frames(), via).toEqual([]); // uWS waits for the 4 bytes it reads as a mask key
        expect(client.connection.closed, via).toBe(false);
        client.connection.write(jsonFrame({ op: "subscribe", topics: ["changes:8453"] }));
        await client.connection.closedWithin(5000);
        expect(client.frames(), via).toEqual([]); // neither message answered, no close frame (1006 at a client)
        other.connection.write(jsonFrame({ op: "subscribe", topics: ["changes:1"] }));
        await other.connection.until(`${via}: the other client's answer`, () => other.events().length === 1);
        expect(other.events()[0], via).toMatchObject({ type: "subscribed", topics: ["changes", "changes:1"] });
      }
      expect(nginx.errorLog()).not.toMatch(/\[(alert|emerg|crit)\]/);
    } finally {
      await nginx.stop();
    }
  });
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
