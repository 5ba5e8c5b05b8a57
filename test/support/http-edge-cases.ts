/**
 * The HTTP/1.1 edge cases of issue 10 (items 6-9) as raw bytes, with the
 * outcome each must have straight at the gateway and through the reverse
 * proxy of config/nginx.conf.example. A `limitation` names the section of
 * docs/reverse-proxy.md that documents a parser behaviour the gateway cannot
 * change; its `direct` outcome pins what the bundled uWS build does (a test
 * fails when a uWS upgrade changes it, so the document gets updated), and its
 * `proxied` outcome is the correct one.
 */
import { expect } from "vitest";
import { KEYS } from "./fixtures.js";
import { exchangeInPieces, type PiecesExchange } from "./raw-pieces.js";

export interface Outcome {
  /** Status codes of the responses, in order; [] when no status line comes back. */
  readonly statuses: readonly number[];
  /** The server closes the connection after them. */
  readonly closed: boolean;
  /** `x-error-code` of the first response, when the gateway's own handler answers it. */
  readonly code?: string;
  /** The section of docs/reverse-proxy.md that documents this behaviour of the parser. */
  readonly limitation?: string;
}

export interface EdgeCase {
  readonly name: string;
  /** Bytes to send; each part is its own TCP write. */
  readonly parts: readonly string[];
  /** Methods of the requests in order, where a HEAD is among them (its answer has no body). */
  readonly methods?: readonly string[];
  /** Send FOLLOW_UP once the first answer is in: the connection must still serve it unless the outcome is `closed`. */
  readonly followUp?: boolean;
  /** Longest the outcome may take, ms (default 2000). */
  readonly timeoutMs?: number;
  readonly direct: Outcome;
  readonly proxied: Outcome;
}

/** The gateway's header-section limit in these suites (MAX_HEADER_BYTES). */
export const HEADER_LIMIT = 8192;

const HOST = "Host: gateway.test\r\n";
/** A pipelined follow-up: answered 200 whenever the connection is still usable. */
export const FOLLOW_UP = `GET /health HTTP/1.1\r\n${HOST}\r\n`;
const AUTH = `Authorization: Bearer ${KEYS.active}\r\n`;
const JSON_TYPE = "Content-Type: application/json\r\n";

/** A GET /health whose header section is exactly `total` bytes, padded by two fields (each under nginx's 8k line buffer). */
export function headerSectionOf(total: number): string {
  const head = `GET /health HTTP/1.1\r\n${HOST}`;
  const fixed = head.length + "X-Pad-1: \r\nX-Pad-2: \r\n\r\n".length;
  const pad = total - fixed;
  const first = Math.floor(pad / 2);
  return `${head}X-Pad-1: ${"a".repeat(first)}\r\nX-Pad-2: ${"b".repeat(pad - first)}\r\n\r\n`;
}

/** `text` cut into pieces of `size` bytes (several TCP writes). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A GET /health with `count` header fields in all (Host included). */
function withFields(count: number): string {
  let fields = HOST;
  for (let i = 1; i < count; i++) fields += `X-F${i}: v\r\n`;
  return `GET /health HTTP/1.1\r\n${fields}\r\n`;
}

const post = (framing: string, body: string) => `POST /v1/tokens HTTP/1.1\r\n${HOST}${AUTH}${JSON_TYPE}${framing}\r\n${body}`;

const ok2: Outcome = { statuses: [200, 200], closed: false };

export const EDGE_CASES: readonly EdgeCase[] = [
  // ---- item 6: HTTP/1.0
  {
    name: "HTTP/1.0 without Host",
    parts: ["GET /health HTTP/1.0\r\n\r\n"],
    direct: { statuses: [505], closed: true, limitation: "http-1-0" },
    proxied: { statuses: [200], closed: true },
  },
  {
    name: "HTTP/1.0 with Host",
    parts: [`GET /health HTTP/1.0\r\n${HOST}\r\n`],
    direct: { statuses: [505], closed: true, limitation: "http-1-0" },
    proxied: { statuses: [200], closed: true },
  },
  {
    name: "HTTP/1.0 keep-alive, then a second HTTP/1.0 request (which closes)",
    parts: [`GET /health HTTP/1.0\r\n${HOST}Connection: keep-alive\r\n\r\n`, `GET /health HTTP/1.0\r\n${HOST}\r\n`],
    direct: { statuses: [505], closed: true, limitation: "http-1-0" },
    proxied: { statuses: [200, 200], closed: true },
  },

  // ---- item 7: Content-Length and Transfer-Encoding
  {
    name: "two different Content-Length fields",
    parts: [post("Content-Length: 2\r\nContent-Length: 3\r\n", "{} ")],
    followUp: true,
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "the same Content-Length twice",
    parts: [post("Content-Length: 2\r\nContent-Length: 2\r\n", "{}")],
    followUp: true,
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "two Content-Length fields with a request hidden in the 'body', in the same TCP write",
    parts: [post(`Content-Length: 0\r\nContent-Length: ${FOLLOW_UP.length}\r\n`, FOLLOW_UP)],
    followUp: true,
    // the connection is closed before uWS parses the rest of the read (test/server/request-smuggling.test.ts has every variant)
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "an empty Content-Length with a request hidden in the 'body', in the same TCP write",
    parts: [post("Content-Length:\r\n", FOLLOW_UP)],
    followUp: true,
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "an empty Transfer-Encoding with a request hidden behind it, in the same TCP write",
    parts: [post("Transfer-Encoding:\r\n", FOLLOW_UP)],
    followUp: true,
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [501], closed: true },
  },
  {
    name: "GET with an empty Content-Length, then a pipelined request",
    parts: [`GET /health HTTP/1.1\r\n${HOST}Content-Length:\r\n\r\n${FOLLOW_UP}`],
    followUp: true,
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "Content-Length that is not a decimal number",
    parts: [post("Content-Length: 0x2\r\n", "{}")],
    followUp: true,
    direct: { statuses: [400], closed: true },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "Transfer-Encoding: xchunked",
    parts: [post("Transfer-Encoding: xchunked\r\n", "2\r\n{}\r\n0\r\n\r\n")],
    followUp: true,
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [501], closed: true },
  },
  {
    name: "Transfer-Encoding: chunked, identity (chunked not last)",
    parts: [post("Transfer-Encoding: chunked, identity\r\n", "2\r\n{}\r\n0\r\n\r\n")],
    followUp: true,
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [501], closed: true },
  },
  {
    name: "Transfer-Encoding: identity",
    parts: [post("Transfer-Encoding: identity\r\n", "")],
    followUp: true,
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [501], closed: true },
  },
  {
    name: "Transfer-Encoding: gzip, chunked (a coding the gateway does not decode)",
    parts: [post("Transfer-Encoding: gzip, chunked\r\n", "2\r\n{}\r\n0\r\n\r\n")],
    followUp: true,
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [501], closed: true },
  },
  {
    name: "Transfer-Encoding: chunked in two fields (chunked applied twice)",
    parts: [post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\n\r\n")],
    followUp: true,
    direct: { statuses: [400], closed: true, code: "INVALID_REQUEST_FRAMING" },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "Content-Length and Transfer-Encoding together",
    parts: [post("Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\n\r\n")],
    followUp: true,
    direct: { statuses: [400], closed: true },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "a valid chunked body, then a pipelined request",
    parts: [post("Transfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\n\r\n") + FOLLOW_UP],
    direct: ok2,
    proxied: ok2,
  },
  {
    name: "a valid chunk extension (2;foo=bar)",
    parts: [post("Transfer-Encoding: chunked\r\n", "2;foo=bar\r\n{}\r\n0\r\n\r\n")],
    followUp: true,
    direct: { statuses: [400], closed: true, limitation: "chunked-extensions-trailers" },
    proxied: ok2,
  },
  {
    name: "a valid chunked trailer field",
    parts: [post("Transfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\nX-Checksum: abc\r\n\r\n")],
    followUp: true,
    direct: { statuses: [505], closed: true, limitation: "chunked-extensions-trailers" },
    proxied: ok2,
  },

  // ---- item 8: header section size
  {
    name: "header section of 6 KiB (over uWS's default 4 KiB) in 7 TCP writes",
    parts: [...pieces(headerSectionOf(6144), 1000)],
    followUp: true,
    direct: ok2,
    proxied: ok2,
  },
  {
    name: "header section of exactly MAX_HEADER_BYTES in 9 TCP writes",
    parts: [...pieces(headerSectionOf(HEADER_LIMIT), 1000)],
    followUp: true,
    direct: ok2,
    proxied: ok2,
  },
  {
    name: "header section of MAX_HEADER_BYTES + 1 in 9 TCP writes",
    parts: [...pieces(headerSectionOf(HEADER_LIMIT + 1), 1000)],
    followUp: true,
    direct: { statuses: [431], closed: true },
    // nginx takes it (each line fits its 8k buffers) and forwards only the fields the gateway reads
    proxied: ok2,
  },
  {
    name: "header section of 12 KiB in one TCP write",
    parts: [headerSectionOf(12_288)],
    followUp: true,
    direct: { statuses: [431], closed: true },
    proxied: ok2,
  },
  {
    name: "one header line over nginx's 8k buffer, in 20 TCP writes",
    parts: [...pieces(`GET /health HTTP/1.1\r\n${HOST}Cookie: ${"c".repeat(10_000)}\r\n\r\n`, 512)],
    followUp: true,
    direct: { statuses: [431], closed: true },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "request line with a 9000-byte URL",
    parts: [`GET /${"u".repeat(9000)} HTTP/1.1\r\n${HOST}\r\n`],
    followUp: true,
    direct: { statuses: [431], closed: true, limitation: "long-request-line" },
    proxied: { statuses: [414], closed: true },
  },

  // ---- item 9: request lines, Host, field count, methods
  {
    name: "request line with two spaces",
    parts: [`GET  /health HTTP/1.1\r\n${HOST}\r\n`],
    followUp: true,
    direct: { statuses: [505], closed: true, limitation: "request-line-errors" },
    // RFC 9112 §3 lets a recipient split on whitespace; nginx does
    proxied: ok2,
  },
  {
    name: "request line with control characters for a method",
    parts: [`\x01\x02 /health HTTP/1.1\r\n${HOST}\r\n`],
    followUp: true,
    direct: { statuses: [505], closed: true, limitation: "request-line-errors" },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "HTTP/2.0 in the request line",
    parts: [`GET /health HTTP/2.0\r\n${HOST}\r\n`],
    followUp: true,
    direct: { statuses: [505], closed: true },
    proxied: { statuses: [505], closed: true },
  },
  {
    name: "HTTP/1.2 in the request line (a later 1.x minor version)",
    parts: [`GET /health HTTP/1.2\r\n${HOST}\r\n`],
    followUp: true,
    direct: { statuses: [505], closed: true, limitation: "request-line-errors" },
    proxied: ok2,
  },
  {
    name: "request line without a version (HTTP/0.9 form)",
    parts: [`GET /health\r\n${HOST}\r\n`],
    timeoutMs: 14_000,
    // no status line exists in HTTP/0.9; uWS waits for more and closes at its 10 s idle timeout
    direct: { statuses: [], closed: true, limitation: "request-line-errors" },
    // nginx answers HTTP/0.9 (the body alone) and closes
    proxied: { statuses: [], closed: true },
  },
  {
    name: "bare LF line endings",
    parts: [`GET /health HTTP/1.1\n${HOST.replace("\r\n", "\n")}\n`],
    followUp: true,
    direct: { statuses: [505], closed: true, limitation: "request-line-errors" },
    proxied: ok2,
  },
  {
    name: "HTTP/1.1 without Host",
    parts: ["GET /health HTTP/1.1\r\n\r\n"],
    followUp: true,
    direct: { statuses: [400], closed: true },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "two Host fields",
    parts: [`GET /health HTTP/1.1\r\n${HOST}Host: other.test\r\n\r\n`],
    followUp: true,
    direct: { statuses: [400], closed: true },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "whitespace between a field name and its colon",
    parts: [`GET /health HTTP/1.1\r\n${HOST}X-Foo : bar\r\n\r\n`],
    followUp: true,
    direct: { statuses: [400], closed: true },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "an obsolete folded field value",
    parts: [`GET /health HTTP/1.1\r\n${HOST}X-Foo: bar\r\n baz\r\n\r\n`],
    followUp: true,
    direct: { statuses: [400], closed: true },
    proxied: { statuses: [400], closed: true },
  },
  { name: "49 header fields", parts: [withFields(49) + FOLLOW_UP], direct: ok2, proxied: ok2 },
  { name: "98 header fields (the most uWS takes)", parts: [withFields(98) + FOLLOW_UP], direct: ok2, proxied: ok2 },
  {
    name: "99 header fields (one over uWS's limit)",
    parts: [withFields(99)],
    followUp: true,
    direct: { statuses: [431], closed: true },
    proxied: ok2,
  },
  {
    name: "an unknown method on a known path",
    parts: [`FROB /health HTTP/1.1\r\n${HOST}\r\n${FOLLOW_UP}`],
    direct: { statuses: [405, 200], closed: false, code: "METHOD_NOT_ALLOWED" },
    proxied: { statuses: [405, 200], closed: false, code: "METHOD_NOT_ALLOWED" },
  },
  {
    name: "an unknown method on an unknown path",
    parts: [`FROB /nowhere HTTP/1.1\r\n${HOST}\r\n${FOLLOW_UP}`],
    direct: { statuses: [404, 200], closed: false, code: "ROUTE_NOT_FOUND" },
    proxied: { statuses: [404, 200], closed: false, code: "ROUTE_NOT_FOUND" },
  },
  {
    name: "OPTIONS * (asterisk-form)",
    parts: [`OPTIONS * HTTP/1.1\r\n${HOST}\r\n`],
    followUp: true,
    direct: { statuses: [505], closed: true, limitation: "request-line-errors" },
    proxied: { statuses: [400], closed: true },
  },
  {
    name: "HEAD answers the headers without the body, then a pipelined request",
    parts: [`HEAD /health HTTP/1.1\r\n${HOST}\r\n${FOLLOW_UP}`],
    methods: ["HEAD", "GET"],
    direct: ok2,
    proxied: ok2,
  },
];

/** Sends a case and checks its outcome; returns the exchange for further checks. */
export async function expectOutcome(port: number, c: EdgeCase, outcome: Outcome): Promise<PiecesExchange> {
  const result = await exchangeInPieces(port, c.parts, {
    timeoutMs: c.timeoutMs ?? 2000,
    methods: c.methods,
    followUp: c.followUp ? FOLLOW_UP : undefined,
    expectResponses: outcome.closed ? undefined : outcome.statuses.length,
  });
  const seen = `${c.name}: got ${JSON.stringify(result.raw.toString("latin1").slice(0, 600))}`;
  expect(
    result.responses.map((r) => r.status),
    seen,
  ).toEqual(outcome.statuses);
  expect(result.closed, `${seen}: closed`).toBe(outcome.closed);
  if (outcome.code !== undefined) expect(result.responses[0].header("x-error-code"), seen).toBe(outcome.code);
  return result;
}
