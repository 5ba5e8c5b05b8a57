/**
 * Issue 19 item 1 over raw sockets, straight at the real gateway (plain HTTP
 * and HTTPS): after a request whose body length is ambiguous (several
 * Content-Length fields, an empty one, a Transfer-Encoding other than exactly
 * `chunked`) the gateway answers 400 INVALID_REQUEST_FRAMING and closes the
 * connection at once. A request hidden behind it is never answered, whether
 * it arrives in the same TCP read, in a later one, or split across both, and
 * whatever was pipelined before it; the hidden request goes to a route nothing
 * else in this suite asks for, so the gateway's request counter shows it was
 * never even dispatched.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicFixture, KEYS, tempDir } from "../support/fixtures.js";
import { metricValue, startWithFixtures, waitFor, type Gateway } from "../support/gateway-process.js";
import { exchangeInPieces, type PiecesExchange } from "../support/raw-pieces.js";
import { makeCa, makeServerCertificate, type TestCa } from "../support/tls-certificates.js";

const HOST = "Host: gateway.test\r\n";
const AUTH = `Authorization: Bearer ${KEYS.active}\r\n`;
const JSON_TYPE = "Content-Type: application/json\r\n";
/** The request a front end reading the other length would take for part of the body. */
const HIDDEN = `GET /v1/openapi.json HTTP/1.1\r\n${HOST}X-Trace-Id: smuggled-request\r\n\r\n`;
const CHUNKED = "2\r\n{}\r\n0\r\n\r\n";

interface SmugglingCase {
  readonly name: string;
  readonly method?: string;
  readonly path?: string;
  /** The framing fields, each line ending in CRLF. */
  readonly framing: string;
  /** The body as uWS frames it (by the first Content-Length, or as chunked); the hidden request follows it. */
  readonly body: string;
}

const H = HIDDEN.length;

const CASES: readonly SmugglingCase[] = [
  {
    name: "Content-Length 2 then Content-Length covering the hidden request",
    framing: `Content-Length: 2\r\nContent-Length: ${2 + H}\r\n`,
    body: "{}",
  },
  {
    name: "Content-Length 0 then Content-Length covering the hidden request",
    framing: `Content-Length: 0\r\nContent-Length: ${H}\r\n`,
    body: "",
  },
  { name: "the same Content-Length twice", framing: "Content-Length: 2\r\nContent-Length: 2\r\n", body: "{}" },
  { name: "an empty Content-Length", framing: "Content-Length:\r\n", body: "" },
  { name: "a Content-Length of blanks", framing: "Content-Length:   \t\r\n", body: "" },
  {
    name: "an empty Content-Length, then one covering the hidden request",
    framing: `Content-Length:\r\nContent-Length: ${H}\r\n`,
    body: "",
  },
  {
    name: "an empty Content-Length with Transfer-Encoding: chunked",
    framing: "Content-Length:\r\nTransfer-Encoding: chunked\r\n",
    body: CHUNKED,
  },
  { name: "an empty Transfer-Encoding with Content-Length", framing: "Transfer-Encoding:\r\nContent-Length: 2\r\n", body: "{}" },
  { name: "an empty Transfer-Encoding alone", framing: "Transfer-Encoding:\r\n", body: "" },
  { name: "Transfer-Encoding: identity, chunked", framing: "Transfer-Encoding: identity, chunked\r\n", body: CHUNKED },
  { name: "Transfer-Encoding: gzip, chunked", framing: "Transfer-Encoding: gzip, chunked\r\n", body: CHUNKED },
  { name: "Transfer-Encoding: xchunked", framing: "Transfer-Encoding: xchunked\r\n", body: CHUNKED },
  { name: "Transfer-Encoding: chunked, identity", framing: "Transfer-Encoding: chunked, identity\r\n", body: CHUNKED },
  { name: "Transfer-Encoding: identity", framing: "Transfer-Encoding: identity\r\n", body: CHUNKED },
  { name: "Transfer-Encoding: chunked, chunked", framing: "Transfer-Encoding: chunked, chunked\r\n", body: CHUNKED },
  {
    name: "Transfer-Encoding: chunked in two fields",
    framing: "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
    body: CHUNKED,
  },
  {
    name: "GET with two Content-Length fields",
    method: "GET",
    path: "/health",
    framing: `Content-Length: 0\r\nContent-Length: ${H}\r\n`,
    body: "",
  },
  {
    name: "HEAD with Transfer-Encoding: xchunked",
    method: "HEAD",
    path: "/health",
    framing: "Transfer-Encoding: xchunked\r\n",
    body: CHUNKED,
  },
  {
    name: "GET with an empty Content-Length, then a second one",
    method: "GET",
    path: "/health",
    framing: `Content-Length:\r\nContent-Length: ${H}\r\n`,
    body: "",
  },
  { name: "GET with an empty Content-Length", method: "GET", path: "/health", framing: "Content-Length:\r\n", body: "" },
  { name: "HEAD with an empty Transfer-Encoding", method: "HEAD", path: "/health", framing: "Transfer-Encoding:\r\n", body: "" },
  { name: "DELETE with an empty Content-Length", method: "DELETE", path: "/health", framing: "Content-Length:\r\n", body: "" },
  { name: "an unknown method with an empty Content-Length", method: "FROB", path: "/v1/tokens", framing: "Content-Length:\r\n", body: "" },
];

function requestOf(c: SmugglingCase): string {
  return `${c.method ?? "POST"} ${c.path ?? "/v1/tokens"} HTTP/1.1\r\n${HOST}${AUTH}${JSON_TYPE}${c.framing}\r\n${c.body}`;
}

const GET_HEALTH = `GET /health HTTP/1.1\r\n${HOST}\r\n`;

/** How the bytes go out: each part is its own TCP write. */
const MODES: ReadonlyArray<{ name: string; parts: (request: string) => string[]; before: number }> = [
  { name: "one write", parts: (r) => [r + HIDDEN], before: 0 },
  { name: "the hidden request in a later write", parts: (r) => [r, HIDDEN], before: 0 },
  { name: "the hidden request split across two writes", parts: (r) => [r + HIDDEN.slice(0, 12), HIDDEN.slice(12)], before: 0 },
  { name: "behind three pipelined GETs, one write", parts: (r) => [GET_HEALTH.repeat(3) + r + HIDDEN], before: 3 },
];

/** The refusal: the GETs before it answered, then exactly one 400 envelope with Connection: close, then the close; nothing of the hidden request. */
function expectRefused(result: PiecesExchange, before: number, label: string): void {
  const seen = `${label}: got ${JSON.stringify(
    result.raw
      .toString("latin1")
      .replace(/ {64,}/g, "<padding>")
      .slice(0, 900),
  )}`;
  expect(result.raw.includes("smuggled-request"), seen).toBe(false);
  expect(
    result.responses.map((r) => r.status),
    seen,
  ).toEqual([...Array<number>(before).fill(200), 400]);
  expect(result.closed, `${seen}: closed`).toBe(true);
  const refusal = result.responses[before];
  expect(refusal.header("x-error-code"), seen).toBe("INVALID_REQUEST_FRAMING");
  expect(refusal.header("connection"), seen).toBe("close");
  expect(refusal.header("cache-control"), seen).toBe("no-store");
  expect(refusal.header("content-type"), seen).toBe("application/json; charset=utf-8");
  expect(refusal.header("date"), seen).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  const envelope = JSON.parse(refusal.body.toString("utf8"));
  expect(envelope).toMatchObject({ statusCode: 400, error: { code: "INVALID_REQUEST_FRAMING", title: "Bad Request" } });
  expect(["content-length", "transfer-encoding"]).toContain(envelope.error.metadata.header);
  // Nothing after the answer: the body is exactly Content-Length bytes and the connection ends there.
  expect(result.raw.length, seen).toBe(result.raw.indexOf(refusal.body) + refusal.body.length);
}

async function openapiAnswered(gw: Gateway): Promise<number> {
  const text = await fetch(`${gw.baseUrl}/metrics`).then((r) => r.text());
  let total = 0;
  for (const status of ["200", "304", "400", "404", "429", "500"])
    total += metricValue(text, "gateway_http_requests_total", { route: "openapi", status });
  return total;
}

describe("plain HTTP", () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startWithFixtures(basicFixture(), undefined, { GATEWAY_THREADS: "1" });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  describe.concurrent("a request behind an ambiguous body length is never read", () => {
    for (const c of CASES) {
      for (const mode of MODES) {
        it(`${c.name}; ${mode.name}`, async () => {
          const result = await exchangeInPieces(gw.port, mode.parts(requestOf(c)), { gapMs: 30, timeoutMs: 3000 });
          expectRefused(result, mode.before, `${c.name}; ${mode.name}`);
        });
      }
    }
  });

  it("a connection with a backlog of unread answers is closed at once too (the answer is dropped when the socket cannot take it)", async () => {
    // HEAD answers are written whatever the socket takes: sent while the client reads nothing, they pile up past
    // the kernel's buffers (three times the largest send buffer) into uWS's user-space backlog, which no close can
    // deliver first. The client starts reading once the gateway has answered every HEAD and refused the request.
    const wmemMax = Number(readFileSync("/proc/sys/net/ipv4/tcp_wmem", "utf8").trim().split(/\s+/)[2]);
    const head = `HEAD /health HTTP/1.1\r\n${HOST}\r\n`;
    const count = Math.ceil((3 * wmemMax) / 250);
    const counts = async () => {
      const text = await fetch(`${gw.baseUrl}/metrics`).then((r) => r.text());
      return {
        heads: metricValue(text, "gateway_http_requests_total", { route: "health", status: "200" }),
        refused: metricValue(text, "gateway_http_requests_total", { route: "unmatched", status: "400" }),
      };
    };
    const before = await counts();
    const processed = waitFor(
      "the gateway to answer every HEAD and refuse the request",
      async () => {
        const now = await counts();
        return now.heads >= before.heads + count && now.refused > before.refused ? true : undefined;
      },
      60_000,
    );
    const result = await exchangeInPieces(gw.port, [head.repeat(count) + requestOf(CASES[0]) + HIDDEN], {
      readAfter: processed,
      timeoutMs: 90_000,
      methods: Array<string>(count).fill("HEAD"),
    });
    await processed;
    const statuses = result.responses.map((r) => r.status);
    expect(result.raw.includes("smuggled-request")).toBe(false);
    expect(result.closed).toBe(true);
    // Part of the HEAD answers, and never the refusal: the backlog was dropped with it.
    expect(statuses.length).toBeLessThan(count);
    expect(statuses.every((s) => s === 200)).toBe(true);
  }, 120_000);

  it("an ordinary request with a body is still answered, and pipelined requests after it too", async () => {
    const body = '{"config":{"limit":1}}';
    const post = `POST /v1/tokens HTTP/1.1\r\n${HOST}${AUTH}${JSON_TYPE}Content-Length: ${body.length}\r\n\r\n${body}`;
    const chunked = `POST /v1/tokens HTTP/1.1\r\n${HOST}${AUTH}${JSON_TYPE}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const result = await exchangeInPieces(gw.port, [post + chunked + GET_HEALTH], { expectResponses: 3 });
    expect(result.responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(result.closed).toBe(false);
  });

  it("no hidden request was ever dispatched, and no serving thread died", async () => {
    expect(await openapiAnswered(gw)).toBe(0);
    const metrics = await fetch(`${gw.baseUrl}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^gateway_serving_thread_restarts_total 0$/m);
    // The request counter sees the refusals (so it would see a dispatched hidden request).
    expect(metricValue(metrics, "gateway_http_requests_total", { route: "unmatched", status: "400" })).toBeGreaterThanOrEqual(
      CASES.length * MODES.length,
    );
  });
});

describe("HTTPS", () => {
  let gw: Gateway;
  let ca: TestCa;

  beforeAll(async () => {
    const dir = tempDir("lgw-smuggle-tls-");
    ca = makeCa(dir);
    const cert = makeServerCertificate(ca, dir, "server");
    gw = await startWithFixtures(basicFixture(), undefined, {
      GATEWAY_THREADS: "1",
      TLS_CERT_FILE: cert.certFile,
      TLS_KEY_FILE: cert.keyFile,
    });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  describe.concurrent("a request behind an ambiguous body length is never read", () => {
    for (const c of CASES) {
      for (const mode of MODES.slice(0, 2)) {
        it(`${c.name}; ${mode.name}`, async () => {
          const result = await exchangeInPieces(gw.port, mode.parts(requestOf(c)), { gapMs: 30, timeoutMs: 3000, tlsCa: ca.pem });
          expectRefused(result, mode.before, `${c.name}; ${mode.name}`);
        });
      }
    }
  });

  it("no hidden request was ever dispatched", async () => {
    const metrics = await exchangeInPieces(gw.port, [`GET /metrics HTTP/1.1\r\n${HOST}\r\n`], { tlsCa: ca.pem, expectResponses: 1 });
    const body = metrics.responses[0].body.toString("utf8");
    for (const status of ["200", "304", "400", "404", "429", "500"])
      expect(metricValue(body, "gateway_http_requests_total", { route: "openapi", status })).toBe(0);
  });
});
