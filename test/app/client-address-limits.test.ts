/**
 * TRUSTED_PROXIES over real sockets (the app in-process, raw TCP from chosen
 * loopback source addresses): which address the per-address limits count.
 * Every budget is one request per (very long) window, so a request proves
 * which address it was counted for: its own first request is 200, and a
 * second request that certainly resolves to the expected address is then
 * 429 (while the address a spoofer named is still unused: 200).
 * Linux routes all of 127/8 to the loopback, so a socket can be bound to
 * 127.0.0.x as its source.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicFixture, KEYS } from "../support/fixtures.js";
import { startInProcess, type InProcessApp } from "../support/in-process-app.js";
import { rawExchange } from "../support/raw-http.js";

/** Trusted: the peer 127.0.0.1 and the "proxy network" 127.0.1.0/24. Every other 127.0.0.x is an untrusted client. */
/** A request without a key that counts against the per-address budget (the health probes never do). */
const BUDGETED = "/v1/asyncapi.json";
const TRUSTED = "127.0.0.1/32, 127.0.1.0/24";
const ONE_PER_WINDOW = { requests: 1, windowSeconds: 9_999_999 };

/** A GET with these header lines, optionally behind a PROXY v2 frame. */
function request(path: string, lines: readonly string[], frame?: Buffer): Buffer {
  const text = `GET ${path} HTTP/1.1\r\nHost: gateway\r\n${lines.map((l) => `${l}\r\n`).join("")}\r\n`;
  return frame === undefined ? Buffer.from(text, "latin1") : Buffer.concat([frame, Buffer.from(text, "latin1")]);
}

const PROXY_V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

/** A PROXY protocol v2 frame (PROXY command, TCP) whose source is `source` (4 or 16 bytes). */
function proxyV2(source: readonly number[]): Buffer {
  const ipv4 = source.length === 4;
  const body = Buffer.alloc(ipv4 ? 12 : 36);
  Buffer.from(source).copy(body, 0);
  Buffer.from(ipv4 ? [127, 0, 0, 1] : [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]).copy(body, ipv4 ? 4 : 16);
  body.writeUInt16BE(40_000, ipv4 ? 8 : 32);
  body.writeUInt16BE(8080, ipv4 ? 10 : 34);
  const head = Buffer.from([0x21, ipv4 ? 0x11 : 0x21, 0, 0]);
  head.writeUInt16BE(body.length, 2);
  return Buffer.concat([PROXY_V2_SIGNATURE, head, body]);
}

async function status(app: InProcessApp, from: string, payload: Buffer): Promise<number> {
  const { responses } = await rawExchange(app.port, payload, { responses: 1, methods: ["GET"], localAddress: from });
  expect(responses.length, `no answer from ${from}`).toBe(1);
  return responses[0].status;
}

/** A public request counted for `address`, as sent by the trusted proxy 127.0.0.1. */
const viaProxy = (app: InProcessApp, address: string) => status(app, "127.0.0.1", request(BUDGETED, [`X-Forwarded-For: ${address}`]));

for (const host of ["127.0.0.1", "::"]) {
  // On "::" the listener is dual-stack: every IPv4 peer is reported IPv4-mapped (::ffff:127.0.0.1) and must match the IPv4 ranges.
  describe(`public-route budget per resolved client address (listening on ${host})`, () => {
    let app: InProcessApp;
    beforeAll(async () => {
      app = await startInProcess(basicFixture(), { trustedProxies: TRUSTED, publicRateLimit: ONE_PER_WINDOW, host });
    });
    afterAll(() => app?.close());

    it("from an untrusted peer, X-Forwarded-For and Forwarded are ignored: the peer is counted", async () => {
      expect(await status(app, "127.0.0.20", request(BUDGETED, ["X-Forwarded-For: 198.51.100.1", "Forwarded: for=198.51.100.1"]))).toBe(
        200,
      );
      expect(await status(app, "127.0.0.20", request(BUDGETED, []))).toBe(429);
      expect(await viaProxy(app, "198.51.100.1")).toBe(200);
    });

    it("from a trusted peer, the X-Forwarded-For entry is counted (and Forwarded names the same address)", async () => {
      expect(await viaProxy(app, "198.51.100.3")).toBe(200);
      expect(await status(app, "127.0.0.1", request(BUDGETED, ["Forwarded: for=198.51.100.3"]))).toBe(429);
    });

    it("trusted entries are skipped: the rightmost untrusted one is the client; entries on its left (the client's own) are never read", async () => {
      expect(await status(app, "127.0.0.1", request(BUDGETED, ["X-Forwarded-For: 198.51.100.5, 198.51.100.6, 127.0.1.9"]))).toBe(200);
      expect(await viaProxy(app, "198.51.100.6")).toBe(429);
      expect(await viaProxy(app, "198.51.100.5")).toBe(200);
    });

    it("two X-Forwarded-For fields are one list: the proxy's field after the client's is read first", async () => {
      expect(await status(app, "127.0.0.1", request(BUDGETED, ["X-Forwarded-For: 198.51.100.7", "X-Forwarded-For: 198.51.100.8"]))).toBe(
        200,
      );
      expect(await viaProxy(app, "198.51.100.8")).toBe(429);
      expect(await viaProxy(app, "198.51.100.7")).toBe(200);
    });

    it('Forwarded with a quoted IPv6 node and port: for="[2001:db8::9]:4711"', async () => {
      expect(await status(app, "127.0.0.1", request(BUDGETED, ['Forwarded: for="[2001:db8::9]:4711";proto=https']))).toBe(200);
      expect(await viaProxy(app, "2001:db8::9")).toBe(429);
    });

    it("a malformed entry from the trusted chain counts the proxy that passed it on, not the address on its left", async () => {
      expect(await status(app, "127.0.1.7", request(BUDGETED, ["X-Forwarded-For: 198.51.100.10, not-an-address"]))).toBe(200);
      expect(await status(app, "127.0.1.7", request(BUDGETED, []))).toBe(429);
      expect(await viaProxy(app, "198.51.100.10")).toBe(200);
    });

    it("Forwarded for=unknown counts the proxy", async () => {
      expect(await status(app, "127.0.1.11", request(BUDGETED, ["Forwarded: for=198.51.100.20, for=unknown"]))).toBe(200);
      expect(await status(app, "127.0.1.11", request(BUDGETED, []))).toBe(429);
      expect(await viaProxy(app, "198.51.100.20")).toBe(200);
    });

    it("X-Forwarded-For and Forwarded that disagree count the proxy", async () => {
      expect(await status(app, "127.0.1.8", request(BUDGETED, ["X-Forwarded-For: 198.51.100.16", "Forwarded: for=198.51.100.17"]))).toBe(
        200,
      );
      expect(await status(app, "127.0.1.8", request(BUDGETED, []))).toBe(429);
      expect(await viaProxy(app, "198.51.100.16")).toBe(200);
      expect(await viaProxy(app, "198.51.100.17")).toBe(200);
    });

    it("a PROXY v2 frame from a trusted peer names the client", async () => {
      expect(await status(app, "127.0.0.1", request(BUDGETED, [], proxyV2([198, 51, 100, 11])))).toBe(200);
      expect(await viaProxy(app, "198.51.100.11")).toBe(429);
    });

    it("a PROXY v2 frame with an IPv6 source", async () => {
      const source = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x14];
      expect(await status(app, "127.0.0.1", request(BUDGETED, [], proxyV2(source)))).toBe(200);
      expect(await viaProxy(app, "2001:db8::14")).toBe(429);
    });

    it("a PROXY v2 source that is itself a trusted proxy: X-Forwarded-For is read next", async () => {
      expect(await status(app, "127.0.0.1", request(BUDGETED, ["X-Forwarded-For: 198.51.100.13"], proxyV2([127, 0, 1, 50])))).toBe(200);
      expect(await viaProxy(app, "198.51.100.13")).toBe(429);
    });

    it("uWS reads a frame in front of every request of a connection (why a TCP pass-through must never be trusted: docs/reverse-proxy.md)", async () => {
      const payload = Buffer.concat([
        request(BUDGETED, [], proxyV2([198, 51, 100, 40])),
        request(BUDGETED, [], proxyV2([198, 51, 100, 41])),
      ]);
      const { responses } = await rawExchange(app.port, payload, { responses: 2, methods: ["GET", "GET"], localAddress: "127.0.0.1" });
      expect(responses.map((r) => r.status)).toEqual([200, 200]);
      expect(await viaProxy(app, "198.51.100.40")).toBe(429);
      expect(await viaProxy(app, "198.51.100.41")).toBe(429);
    });

    it("a PROXY v2 frame from an untrusted peer is ignored, even when it names a trusted proxy and adds X-Forwarded-For", async () => {
      expect(await status(app, "127.0.0.21", request(BUDGETED, [], proxyV2([198, 51, 100, 12])))).toBe(200);
      expect(await status(app, "127.0.0.21", request(BUDGETED, []))).toBe(429);
      expect(await viaProxy(app, "198.51.100.12")).toBe(200);
      expect(await status(app, "127.0.0.22", request(BUDGETED, ["X-Forwarded-For: 198.51.100.15"], proxyV2([127, 0, 0, 1])))).toBe(200);
      expect(await status(app, "127.0.0.22", request(BUDGETED, []))).toBe(429);
      expect(await viaProxy(app, "198.51.100.15")).toBe(200);
    });
  });
}

describe("failed-authentication budget per resolved client address", () => {
  let app: InProcessApp;
  beforeAll(async () => {
    app = await startInProcess(basicFixture(), { trustedProxies: TRUSTED, failedAuthLimit: ONE_PER_WINDOW });
  });
  afterAll(() => app?.close());

  const badKey = (from: string, xff: string) =>
    status(
      app,
      from,
      request("/v1/protocols", [`Authorization: Bearer lgw_wrong_${xff.replace(/\W/g, "")}_0123456789`, `X-Forwarded-For: ${xff}`]),
    );

  it("each client behind the proxy has its own budget; a locked-out client cannot move by naming another address", async () => {
    expect(await badKey("127.0.0.1", "198.51.100.30")).toBe(401);
    expect(await badKey("127.0.0.1", "198.51.100.30")).toBe(429);
    expect(await badKey("127.0.0.1", "198.51.100.31")).toBe(401);
    // A client that sends its own X-Forwarded-For through the proxy: the proxy appends what it saw.
    expect(await badKey("127.0.0.1", "198.51.100.31, 198.51.100.30")).toBe(429);
    // The valid key of a client whose address is not over its budget is served.
    expect(
      await status(app, "127.0.0.1", request("/v1/protocols", [`Authorization: Bearer ${KEYS.active}`, "X-Forwarded-For: 198.51.100.32"])),
    ).toBe(200);
  });

  it("the same bad keys straight from an untrusted peer count that peer, whatever it claims", async () => {
    expect(await badKey("127.0.0.40", "198.51.100.33")).toBe(401);
    expect(await badKey("127.0.0.40", "198.51.100.34")).toBe(429);
    expect(await badKey("127.0.0.1", "198.51.100.33")).toBe(401);
  });
});

describe("without TRUSTED_PROXIES", () => {
  let app: InProcessApp;
  beforeAll(async () => {
    app = await startInProcess(basicFixture(), { publicRateLimit: ONE_PER_WINDOW });
  });
  afterAll(() => app?.close());

  it("headers and PROXY v2 frames are ignored, from any peer: the peer is counted", async () => {
    expect(
      await status(
        app,
        "127.0.0.1",
        request(BUDGETED, ["X-Forwarded-For: 198.51.100.50", "Forwarded: for=198.51.100.50"], proxyV2([198, 51, 100, 51])),
      ),
    ).toBe(200);
    expect(await status(app, "127.0.0.1", request(BUDGETED, ["X-Forwarded-For: 198.51.100.52"]))).toBe(429);
    expect(await status(app, "127.0.0.50", request(BUDGETED, ["X-Forwarded-For: 198.51.100.50"]))).toBe(200);
  });
});
