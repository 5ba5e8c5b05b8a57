/**
 * TRUSTED_PROXIES end to end: the real gateway (two serving threads) behind
 * Debian's nginx running config/nginx.conf.example, clients on distinct
 * loopback source addresses (Linux routes all of 127/8 to the loopback).
 * nginx reaches the gateway from 127.0.0.1, the only trusted address. Before
 * TRUSTED_PROXIES every client behind nginx shared 127.0.0.1's budgets.
 * nginx must be installed (npm test installs it when missing); without it this suite fails.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicFixture, KEYS, standardKeys } from "../support/fixtures.js";
import { startWithFixtures, type Gateway } from "../support/gateway-process.js";
import { startNginx, type Nginx } from "../support/nginx-process.js";
import { rawExchange } from "../support/raw-http.js";

/** A request without a key that counts against the per-address budget (the health probes never do). */
const BUDGETED = "/v1/asyncapi.json";

const FAILED_AUTH = 3;
const PUBLIC = 5;
/** Windows far longer than the suite: no budget resets under it. */
const WINDOW = 9_999_999;

let gw: Gateway;
let nginx: Nginx;

beforeAll(async () => {
  gw = await startWithFixtures(basicFixture(), standardKeys(), {
    GATEWAY_THREADS: "2",
    TRUSTED_PROXIES: "127.0.0.1/32",
    FAILED_AUTH_LIMIT: `${FAILED_AUTH}/${WINDOW}`,
    PUBLIC_RATE_LIMIT: `${PUBLIC}/${WINDOW}`,
  });
  nginx = await startNginx(gw.port);
});

afterAll(async () => {
  await nginx?.stop();
  await gw?.stop();
});

let badKeys = 0;

/** One GET on a new connection from `from` to `port`, with these extra header lines (before them, an optional PROXY v2 frame). */
async function get(
  port: number,
  from: string,
  path: string,
  lines: string[] = [],
  frame?: Buffer,
): Promise<{ status: number; code: string | undefined }> {
  const head = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: gateway\r\n${lines.map((l) => `${l}\r\n`).join("")}\r\n`, "latin1");
  const { responses } = await rawExchange(port, frame === undefined ? head : Buffer.concat([frame, head]), {
    responses: 1,
    methods: ["GET"],
    localAddress: from,
  });
  expect(responses.length, `no answer to ${from} ${path}`).toBe(1);
  const body = responses[0].body.toString("utf8");
  return { status: responses[0].status, code: body.startsWith("{") ? JSON.parse(body).error?.code : undefined };
}

/** A wrong key (a different one each time, so nothing is cached) from `from`. */
const wrongKey = (port: number, from: string, extra: string[] = []) =>
  get(port, from, "/v1/protocols", [`Authorization: Bearer lgw_wrong_key_${++badKeys}_0123456789abcdef`, ...extra]).then((r) => r.status);

describe("behind nginx (config/nginx.conf.example) with TRUSTED_PROXIES=127.0.0.1/32", () => {
  it("two clients have separate failed-authentication budgets: one client's failures do not lock the other out", async () => {
    const a = "127.0.0.2";
    const b = "127.0.0.3";
    for (let i = 0; i < FAILED_AUTH; i++) expect(await wrongKey(nginx.port, a)).toBe(401);
    expect(await get(nginx.port, a, "/v1/protocols", [`Authorization: Bearer lgw_wrong_key_${++badKeys}_0123456789abcdef`])).toEqual({
      status: 429,
      code: "RATE_LIMIT_EXCEEDED",
    });
    expect(await wrongKey(nginx.port, b)).toBe(401);
    expect((await get(nginx.port, b, "/v1/protocols", [`Authorization: Bearer ${KEYS.active}`])).status).toBe(200);
  });

  it("a client that sends its own X-Forwarded-For or Forwarded through nginx cannot pick another address", async () => {
    const locked = "127.0.0.12";
    const victim = "127.0.0.4";
    const spoofer = "127.0.0.5";
    for (let i = 0; i < FAILED_AUTH; i++) expect(await wrongKey(nginx.port, locked)).toBe(401);
    // The locked-out client, naming a fresh address: still itself.
    expect(await wrongKey(nginx.port, locked, [`X-Forwarded-For: ${victim}`, `Forwarded: for=${victim}`])).toBe(429);
    // Another client naming the victim with every failure: counted for itself, so the victim keeps its whole budget.
    for (let i = 0; i < FAILED_AUTH; i++)
      expect(await wrongKey(nginx.port, spoofer, [`X-Forwarded-For: ${victim}`, `Forwarded: for=${victim}`])).toBe(401);
    expect(await wrongKey(nginx.port, spoofer, [`X-Forwarded-For: ${victim}`])).toBe(429);
    for (let i = 0; i < FAILED_AUTH; i++) expect(await wrongKey(nginx.port, victim)).toBe(401);
    expect(await wrongKey(nginx.port, victim)).toBe(429);
  });

  it("the public-route limit is per client behind nginx too", async () => {
    const a = "127.0.0.6";
    const b = "127.0.0.7";
    for (let i = 0; i < PUBLIC; i++) expect((await get(nginx.port, a, BUDGETED, [`X-Forwarded-For: ${b}`])).status).toBe(200);
    expect(await get(nginx.port, a, BUDGETED)).toEqual({ status: 429, code: "RATE_LIMIT_EXCEEDED" });
    expect((await get(nginx.port, b, BUDGETED)).status).toBe(200);
  });
});

describe("straight to the gateway from untrusted peers", () => {
  it("a spoofed X-Forwarded-For, Forwarded or PROXY v2 frame changes nothing: the peer is counted", async () => {
    const spoofer = "127.0.0.8";
    const named = "127.0.0.9";
    const frame = proxyV2([127, 0, 0, 9]);
    expect(await wrongKey(gw.port, spoofer, [`X-Forwarded-For: ${named}`])).toBe(401);
    expect(await wrongKey(gw.port, spoofer, [`Forwarded: for=${named}`])).toBe(401);
    expect(
      (await get(gw.port, spoofer, "/v1/protocols", [`Authorization: Bearer lgw_wrong_key_${++badKeys}_0123456789abcdef`], frame)).status,
    ).toBe(401);
    expect(await wrongKey(gw.port, spoofer, [`X-Forwarded-For: 127.0.0.1, ${named}`])).toBe(429);
    expect(await wrongKey(gw.port, named)).toBe(401);
  });

  it("the public-route limit counts the peer, whatever it claims", async () => {
    const spoofer = "127.0.0.10";
    for (let i = 0; i < PUBLIC; i++)
      expect((await get(gw.port, spoofer, BUDGETED, [`X-Forwarded-For: 127.0.0.${100 + i}`])).status).toBe(200);
    expect((await get(gw.port, spoofer, BUDGETED, ["X-Forwarded-For: 127.0.0.11"])).status).toBe(429);
    expect((await get(gw.port, "127.0.0.11", BUDGETED)).status).toBe(200);
  });
});

describe("a request that starts with an empty line (docs/reverse-proxy.md#leading-empty-line)", () => {
  const payload = "\r\nGET /health HTTP/1.1\r\nHost: gateway\r\n\r\n";

  it("straight to the gateway: uWS takes the CR for the start of a PROXY v2 frame and does not answer", async () => {
    const { responses, closed } = await rawExchange(gw.port, payload, {
      responses: 1,
      methods: ["GET"],
      localAddress: "127.0.0.13",
      timeoutMs: 1500,
    });
    expect(responses).toEqual([]);
    expect(closed).toBe(false);
  });

  it("through nginx: answered", async () => {
    const { responses } = await rawExchange(nginx.port, payload, { responses: 1, methods: ["GET"], localAddress: "127.0.0.13" });
    expect(responses.map((r) => r.status)).toEqual([200]);
  });
});

describe("the run", () => {
  it("the gateway logged the trusted ranges at start; no serving thread died", async () => {
    expect(gw.logs().find((l) => l.event === "trusted-proxies")?.ranges).toEqual(["127.0.0.1/32"]);
    const metrics = await fetch(`${gw.baseUrl}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^gateway_serving_thread_restarts_total 0$/m);
    expect(gw.logs().filter((l) => l.event === "serving-thread-fatal" || l.event === "serving-thread-exited")).toEqual([]);
  });
});

/** A PROXY protocol v2 frame (PROXY command, TCP over IPv4) whose source is `source`. */
function proxyV2(source: readonly number[]): Buffer {
  const frame = Buffer.alloc(28);
  Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, 0x21, 0x11, 0, 12]).copy(frame, 0);
  Buffer.from([...source, 127, 0, 0, 1]).copy(frame, 16);
  frame.writeUInt16BE(40_000, 24);
  frame.writeUInt16BE(8080, 26);
  return frame;
}
