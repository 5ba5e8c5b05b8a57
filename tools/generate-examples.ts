/**
 * Writes src/openapi/examples.ts, the examples of the OpenAPI document, from a
 * running gateway (the built one: `npm run examples:generate`) serving the
 * bundled sample: snapshots/ (with snapshots/baskets.json) and the sample keys
 * (config/keys.sample.json) plus a few example keys in the states the error
 * examples need (disabled, expired, restricted, a quota of one request).
 *
 * Every request is sent with a trace id derived from the example's name, and
 * every timestamp of the answers (the envelope's, and the server time an
 * expired key's details quote) is replaced by a fixed one, so the same code
 * and the same sample give the same file byte for byte: test/server/
 * openapi-examples.test.ts runs this generator into memory and fails when the
 * committed file differs.
 *
 *   node dist/tools/generate-examples.js [--check]
 *
 * `--check` writes nothing and exits 1 when the committed file is stale.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import * as prettier from "prettier";
import { KeyStore } from "../src/access/key-store.js";
import { ERROR_CATALOGUE, type ErrorCode } from "../src/api/errors.js";
import { loadConfig, PROJECT_ROOT, SAMPLE_KEYS_FILE } from "../src/config/config.js";
import { startGateway } from "../src/gateway.js";

/** Where the examples live. */
export const EXAMPLES_FILE = resolve(PROJECT_ROOT, "src/openapi/examples.ts");

/** The sandbox key of config/keys.sample.json (README.md). */
const SANDBOX_KEY = "lgw_sandbox_0123456789abcdef";

/** Keys in the states the error examples need, beside the sample's. */
const EXAMPLE_KEYS = {
  disabled: {
    text: "lgw_example_disabled_0123456789",
    record: { id: "partner-disabled", name: "Example: a disabled key", status: "disabled" },
  },
  expired: {
    text: "lgw_example_expired_0123456789",
    record: { id: "partner-expired", name: "Example: an expired key", status: "active", expiresAt: "2025-01-01T00:00:00Z" },
  },
  poolsOnly: {
    text: "lgw_example_pools_only_0123456789",
    record: { id: "partner-pools-only", name: "Example: pools only", status: "active", routes: ["pools"] },
  },
  fleet: {
    text: "lgw_example_fleet_0123456789",
    record: { id: "operator-fleet", name: "Example: an operator's key for the fleet view", status: "active", routes: ["fleet"] },
  },
  quota: {
    text: "lgw_example_quota_0123456789",
    record: { id: "partner-quota", name: "Example: one request a second", status: "active", rateLimit: { requests: 1, windowSeconds: 1 } },
  },
} as const;

/** Every answer's timestamp, in example order from here (1 ms apart). */
const FIRST_TIMESTAMP = Date.parse("2026-11-21T07:00:00.000Z");
const ISO_TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;

const USDC_BASE = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
const ZERO = "0x0000000000000000000000000000000000000000";

/** What to send: a method and path, a JSON body (or raw bytes), headers; the key is the sandbox key unless named. */
const HISTORY_PRICES_REQUEST = {
  at: 1_800_000_000,
  tokens: [
    { chainId: 8453, address: USDC_BASE },
    { chainId: 1, address: "0x0000000000000000000000000000000000000001" },
  ],
};

interface Call {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body?: unknown;
  readonly rawBody?: string;
  readonly contentType?: string;
  /** The Authorization header: the sandbox key unless given; null sends none. */
  readonly authorization?: string | null;
}

interface RequestExample {
  readonly kind: "request";
  readonly name: string;
  readonly comment: string;
  readonly type: string;
  readonly value: unknown;
}

interface ResponseExample {
  readonly kind: "response";
  readonly name: string;
  readonly comment: string;
  readonly type: string;
  readonly call: Call;
  /** The answer is not enveloped (health, readiness). */
  readonly raw?: true;
  /** Makes a value that depends on the clock fixed (applied to the answer before its timestamps are). */
  readonly fix?: (body: unknown) => unknown;
}

const TOKEN_LIST_REQUEST = { config: { limit: 2 }, filters: { chainIds: [1, 8453] } };
const POOL_SEARCH_REQUEST = {
  tokensA: [{ chainId: 8453, address: USDC_BASE }],
  tokensB: [{ chainId: 8453, address: ZERO }],
  config: { limit: 1, orderBy: { field: "tvl", direction: "desc" } },
};
const TOKEN_SEARCH_REQUEST = { search: "usd", config: { limit: 2, orderBy: { field: "relevance" } }, filters: { chainIds: [1, 8453] } };
const SINGLE_CHAIN_LIST_REQUEST = { config: { limit: 2 } };
const SINGLE_CHAIN_SEARCH_REQUEST = { search: "usd", config: { limit: 2 } };
const TOKEN_PRICES_REQUEST = {
  tokens: [
    { chainId: 8453, address: USDC_BASE },
    { chainId: 1, address: ZERO },
  ],
};

/** The examples, in the file's order (the error examples come after READINESS_RESPONSE_EXAMPLE). */
const EXAMPLES: readonly (RequestExample | ResponseExample)[] = [
  {
    kind: "request",
    name: "TOKEN_LIST_REQUEST_EXAMPLE",
    comment: "The first two entries of chains 1 and 8453.",
    type: "TokenListRequest",
    value: TOKEN_LIST_REQUEST,
  },
  {
    kind: "response",
    name: "TOKEN_LIST_RESPONSE_EXAMPLE",
    comment: "The answer to TOKEN_LIST_REQUEST_EXAMPLE.",
    type: "TokenListResponse",
    call: { method: "POST", path: "/v1/tokens", body: TOKEN_LIST_REQUEST },
  },
  {
    kind: "response",
    name: "POOL_RESPONSE_EXAMPLE",
    comment: "GET /v1/pools/8453/0x5cd316158089410cb926b5bc3295e1b06b2a0657.",
    type: "PoolResponse",
    call: { method: "GET", path: "/v1/pools/8453/0x5cd316158089410cb926b5bc3295e1b06b2a0657" },
  },
  {
    kind: "request",
    name: "POOL_SEARCH_REQUEST_EXAMPLE",
    comment: "USDC against the native asset on Base; `AUTO` shows WETH as ETH since side B names the all-zero address.",
    type: "PoolSearchRequest",
    value: POOL_SEARCH_REQUEST,
  },
  {
    kind: "response",
    name: "POOL_SEARCH_RESPONSE_EXAMPLE",
    comment: "The answer to POOL_SEARCH_REQUEST_EXAMPLE.",
    type: "PoolSearchResponse",
    call: { method: "POST", path: "/v1/pools/search", body: POOL_SEARCH_REQUEST },
  },
  {
    kind: "response",
    name: "PROTOCOLS_RESPONSE_EXAMPLE",
    comment: "GET /v1/protocols.",
    type: "ProtocolsResponse",
    call: { method: "GET", path: "/v1/protocols" },
  },
  {
    kind: "response",
    name: "HEALTH_RESPONSE_EXAMPLE",
    comment: "GET /health.",
    type: "HealthResponse",
    call: { method: "GET", path: "/health", authorization: null },
    raw: true,
  },
  {
    kind: "response",
    name: "READINESS_RESPONSE_EXAMPLE",
    comment: "GET /ready.",
    type: "ReadinessResponse",
    call: { method: "GET", path: "/ready", authorization: null },
    raw: true,
  },
  {
    kind: "request",
    name: "TOKEN_SEARCH_REQUEST_EXAMPLE",
    comment: "A multi-chain search ordered by relevance.",
    type: "TokenSearchRequest",
    value: TOKEN_SEARCH_REQUEST,
  },
  {
    kind: "response",
    name: "TOKEN_SEARCH_RESPONSE_EXAMPLE",
    comment: "The answer to TOKEN_SEARCH_REQUEST_EXAMPLE.",
    type: "TokenSearchResponse",
    call: { method: "POST", path: "/v1/tokens/search", body: TOKEN_SEARCH_REQUEST },
  },
  {
    kind: "request",
    name: "SINGLE_CHAIN_LIST_REQUEST_EXAMPLE",
    comment: "The first two tokens of a chain.",
    type: "SingleChainTokenListRequest",
    value: SINGLE_CHAIN_LIST_REQUEST,
  },
  {
    kind: "response",
    name: "SINGLE_CHAIN_LIST_RESPONSE_EXAMPLE",
    comment: "The answer to SINGLE_CHAIN_LIST_REQUEST_EXAMPLE on chain 8453.",
    type: "SingleChainTokenListResponse",
    call: { method: "POST", path: "/v1/tokens/8453", body: SINGLE_CHAIN_LIST_REQUEST },
  },
  {
    kind: "request",
    name: "SINGLE_CHAIN_SEARCH_REQUEST_EXAMPLE",
    comment: "A single-chain search.",
    type: "SingleChainTokenSearchRequest",
    value: SINGLE_CHAIN_SEARCH_REQUEST,
  },
  {
    kind: "response",
    name: "SINGLE_CHAIN_SEARCH_RESPONSE_EXAMPLE",
    comment: "The answer to SINGLE_CHAIN_SEARCH_REQUEST_EXAMPLE on chain 8453.",
    type: "SingleChainTokenSearchResponse",
    call: { method: "POST", path: "/v1/tokens/8453/search", body: SINGLE_CHAIN_SEARCH_REQUEST },
  },
  {
    kind: "response",
    name: "TOKENS_BY_ADDRESS_RESPONSE_EXAMPLE",
    comment: `GET /v1/tokens/${USDC_BASE}.`,
    type: "TokensByAddressResponse",
    call: { method: "GET", path: `/v1/tokens/${USDC_BASE}` },
  },
  {
    kind: "response",
    name: "SINGLE_CHAIN_TOKEN_RESPONSE_EXAMPLE",
    comment: `GET /v1/tokens/8453/${USDC_BASE}.`,
    type: "SingleChainTokenResponse",
    call: { method: "GET", path: `/v1/tokens/8453/${USDC_BASE}` },
  },
  {
    kind: "response",
    name: "TOKEN_PRICE_RESPONSE_EXAMPLE",
    comment: `GET /v1/tokens/prices/8453/${USDC_BASE}/usd.`,
    type: "TokenPriceResponse",
    call: { method: "GET", path: `/v1/tokens/prices/8453/${USDC_BASE}/usd` },
  },
  {
    kind: "request",
    name: "TOKEN_PRICES_REQUEST_EXAMPLE",
    comment: "Two tokens, the native asset among them.",
    type: "TokenPricesRequest",
    value: TOKEN_PRICES_REQUEST,
  },
  {
    kind: "response",
    name: "TOKEN_PRICES_RESPONSE_EXAMPLE",
    comment: "The answer to TOKEN_PRICES_REQUEST_EXAMPLE.",
    type: "TokenPricesResponse",
    call: { method: "POST", path: "/v1/tokens/prices", body: TOKEN_PRICES_REQUEST },
  },
  {
    kind: "response",
    name: "TOKEN_BASKETS_RESPONSE_EXAMPLE",
    comment: "GET /v1/tokens/baskets?chainIds=1,8453&basketIds=btc-pegged-tokens.",
    type: "TokenBasketsResponse",
    call: { method: "GET", path: "/v1/tokens/baskets?chainIds=1,8453&basketIds=btc-pegged-tokens" },
  },
  {
    kind: "response",
    name: "TOKEN_BASKET_RESPONSE_EXAMPLE",
    comment: "GET /v1/tokens/baskets/usd-stablecoins?chainIds=8453.",
    type: "TokenBasketResponse",
    call: { method: "GET", path: "/v1/tokens/baskets/usd-stablecoins?chainIds=8453" },
  },
  {
    kind: "response",
    name: "CHAIN_TOKEN_BASKET_RESPONSE_EXAMPLE",
    comment: "GET /v1/tokens/baskets/9745/xau-stablecoins.",
    type: "TokenBasketResponse",
    call: { method: "GET", path: "/v1/tokens/baskets/9745/xau-stablecoins" },
  },
  {
    kind: "response",
    name: "CHANGES_RESPONSE_EXAMPLE",
    comment: "GET /v1/changes from a position naming no chain (so from each chain's first load), chain 143, two entries a page.",
    type: "ChangesResponse",
    call: { method: "GET", path: "/v1/changes?since=AQ&chainIds=143&limit=2" },
  },
  {
    kind: "response",
    name: "HISTORY_TOKEN_OHLCV_RESPONSE_EXAMPLE",
    comment: `GET /v1/history/tokens/8453/${USDC_BASE}/ohlcv/hour?limit=24&fill=previous (history of the sample: one observation).`,
    type: "TokenOhlcvResponse",
    call: { method: "GET", path: `/v1/history/tokens/8453/${USDC_BASE}/ohlcv/hour?limit=24&fill=previous` },
  },
  {
    kind: "response",
    name: "HISTORY_POOL_RESPONSE_EXAMPLE",
    comment: "GET /v1/history/pools/8453/0x5cd316158089410cb926b5bc3295e1b06b2a0657/hour?limit=24.",
    type: "PoolHistoryResponse",
    call: { method: "GET", path: "/v1/history/pools/8453/0x5cd316158089410cb926b5bc3295e1b06b2a0657/hour?limit=24" },
  },
  {
    kind: "request",
    name: "HISTORY_PRICES_REQUEST_EXAMPLE",
    comment: "Two tokens at a time after the sample's files.",
    type: "HistoricalPricesRequest",
    value: HISTORY_PRICES_REQUEST,
  },
  {
    kind: "response",
    name: "HISTORY_PRICES_RESPONSE_EXAMPLE",
    comment: "The answer to HISTORY_PRICES_REQUEST_EXAMPLE.",
    type: "HistoricalPricesResponse",
    call: { method: "POST", path: "/v1/history/tokens/prices", body: HISTORY_PRICES_REQUEST },
  },
  {
    kind: "response",
    name: "STATUS_RESPONSE_EXAMPLE",
    comment: "GET /v1/status (`ageSeconds` as of the examples' timestamps).",
    type: "StatusResponse",
    call: { method: "GET", path: "/v1/status" },
    fix: fixedAges,
  },
];

const bearer = (key: string) => `Bearer ${key}`;

/** One request per error code that a request can provoke on the sample (ERROR_EXAMPLES); the framing error goes over a raw socket. */
/** GET /v1/status's `ageSeconds` as of the examples' first timestamp (the real one depends on the clock). */
function fixedAges(body: unknown): unknown {
  const status = body as { data: { chains: { generatedAt: number; ageSeconds: number }[]; history: { bytes: number } } };
  for (const chain of status.data.chains) chain.ageSeconds = Math.max(0, Math.floor(FIRST_TIMESTAMP / 1000 - chain.generatedAt));
  // The store's size on disk depends on the file system: a round figure.
  status.data.history.bytes = 1_048_576;
  return status;
}

/** Waits until history has observed every served file (its examples answer from it). */
async function historyObserved(base: string): Promise<void> {
  const headers = { authorization: `Bearer ${SANDBOX_KEY}` };
  for (let tries = 0; tries < 200; tries++) {
    const status = (await (await fetch(`${base}/v1/status`, { headers })).json()) as {
      data: { chains: { generatedAt: number }[]; history: { state: string; lastObservedAt: number | null } };
    };
    const newest = Math.max(...status.data.chains.map((c) => c.generatedAt));
    // `ok` once no file waits: every file of the initial batch observed.
    if (status.data.history.state === "ok" && status.data.history.lastObservedAt === newest) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("history did not observe the sample's files within 10 s");
}

/** A WebSocket handshake on GET /v1/stream (fetch may not send Upgrade or Connection): its key and version. */
interface HandshakeCall {
  readonly handshake: { readonly key: string; readonly version: string };
}

const ERROR_CALLS: Partial<Record<ErrorCode, Call | HandshakeCall | "framing">> = {
  VALIDATION_ERROR: { method: "POST", path: "/v1/tokens", body: { config: { limit: 501 } } },
  MALFORMED_JSON: { method: "POST", path: "/v1/tokens", rawBody: '{"config": {"limit": 2} "filters": {}}' },
  UNSUPPORTED_CHAIN_ID: { method: "POST", path: "/v1/tokens", body: { filters: { chainIds: [10] } } },
  INVALID_POOL_ADDRESS: { method: "GET", path: "/v1/pools/8453/0x5cd3161580" },
  INVALID_PAGINATION_CURSOR: { method: "POST", path: "/v1/tokens", body: { config: { cursor: "bm90LWEtY3Vyc29y" } } },
  INVALID_BLOCKCHAIN_ADDRESS: {
    method: "POST",
    path: "/v1/pools/search",
    body: {
      tokensA: [
        { chainId: 8453, address: USDC_BASE },
        { chainId: 8453, address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda0291" },
        { chainId: 8453, address: "weth" },
      ],
    },
  },
  INVALID_BASKET_ID: { method: "POST", path: "/v1/pools/search", body: { basketsA: [{ basketId: "usd-stablecoin" }] } },
  INVALID_PROTOCOL_ID: {
    method: "POST",
    path: "/v1/pools/search",
    body: { tokensA: [{ chainId: 8453, address: USDC_BASE }], filters: { protocols: ["uniswap-v3", "Uniswap V4"] } },
  },
  INVALID_REQUEST_FRAMING: "framing",
  INVALID_POSITION: { method: "GET", path: "/v1/changes?since=AQAAAAEAAGlYHToZ60ebRT" },
  INVALID_WEBSOCKET_HANDSHAKE: { handshake: { key: "not-16-bytes-in-base64", version: "13" } },
  UNSUPPORTED_WEBSOCKET_VERSION: { handshake: { key: "dGhlIHNhbXBsZSBub25jZQ==", version: "8" } },
  API_KEY_MISSING: { method: "GET", path: "/v1/protocols", authorization: null },
  API_KEY_INVALID: { method: "GET", path: "/v1/protocols", authorization: `bearer ${SANDBOX_KEY}` },
  API_KEY_NOT_FOUND: { method: "GET", path: "/v1/protocols", authorization: bearer("lgw_unknown_0123456789abcdef") },
  API_KEY_DISABLED: { method: "GET", path: "/v1/protocols", authorization: bearer(EXAMPLE_KEYS.disabled.text) },
  API_KEY_EXPIRED: { method: "GET", path: "/v1/protocols", authorization: bearer(EXAMPLE_KEYS.expired.text) },
  API_KEY_FORBIDDEN: { method: "GET", path: "/v1/protocols", authorization: bearer(EXAMPLE_KEYS.poolsOnly.text) },
  LIQUIDITY_POOL_NOT_FOUND: { method: "GET", path: "/v1/pools/8453/0x0000000000000000000000000000000000000001" },
  TOKEN_NOT_FOUND: { method: "GET", path: "/v1/tokens/8453/0x0000000000000000000000000000000000000001" },
  TOKEN_BASKET_NOT_FOUND: { method: "GET", path: "/v1/tokens/baskets/xau-stablecoins?chainIds=130" },
  ROUTE_NOT_FOUND: { method: "GET", path: "/v1/pool", authorization: null },
  METHOD_NOT_ALLOWED: { method: "GET", path: "/v1/tokens" },
  PAYLOAD_TOO_LARGE: { method: "POST", path: "/v1/tokens", rawBody: `{"padding":"${"x".repeat(70_000)}"}` },
  UNSUPPORTED_MEDIA_TYPE: { method: "POST", path: "/v1/tokens", rawBody: "{}", contentType: "text/plain" },
  RATE_LIMIT_EXCEEDED: { method: "GET", path: "/v1/protocols", authorization: bearer(EXAMPLE_KEYS.quota.text) },
  // The sample gateway pulls from no origin.
  FLEET_VIEW_UNAVAILABLE: { method: "GET", path: "/v1/status/fleet", authorization: bearer(EXAMPLE_KEYS.fleet.text) },
};

/** A trace id (UUID-shaped) that depends on the example's name only. */
function traceIdOf(name: string): string {
  const h = createHash("sha256").update(name).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

async function send(base: string, call: Call, traceId: string): Promise<Answer> {
  const headers: Record<string, string> = { "x-trace-id": traceId };
  const authorization = call.authorization === undefined ? bearer(SANDBOX_KEY) : call.authorization;
  if (authorization !== null) headers.authorization = authorization;
  let body: string | undefined;
  if (call.rawBody !== undefined || call.body !== undefined) {
    body = call.rawBody ?? JSON.stringify(call.body);
    headers["content-type"] = call.contentType ?? "application/json";
  }
  const res = await fetch(`${base}${call.path}`, { method: call.method, headers, body });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

/** A POST whose body length is ambiguous (two Content-Length headers), on a raw socket: the answer, then the connection closes. */
function sendFraming(port: number, traceId: string): Promise<Answer> {
  const request = `POST /v1/tokens HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${bearer(SANDBOX_KEY)}\r\nx-trace-id: ${traceId}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}`;
  return new Promise((resolvePromise, reject) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      resolvePromise({ status, body: JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) });
    });
    socket.write(request);
  });
}

/** A WebSocket handshake to GET /v1/stream?topics=changes on a raw socket: the answer (a refusal with a Content-Length body). */
function sendHandshake(port: number, traceId: string, { key, version }: HandshakeCall["handshake"]): Promise<Answer> {
  const request = `GET /v1/stream?topics=changes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${bearer(SANDBOX_KEY)}\r\nx-trace-id: ${traceId}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: ${version}\r\n\r\n`;
  return new Promise((resolvePromise, reject) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    let data = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = data.toString("latin1", 0, end);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      if (!(data.length >= end + 4 + length)) return;
      socket.destroy();
      resolvePromise({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
        body: JSON.parse(data.toString("utf8", end + 4, end + 4 + length)),
      });
    });
    socket.on("error", reject);
    socket.write(request);
  });
}

/** Replaces every timestamp of an answer (an ISO string with milliseconds) by `timestamp`. */
function withTimestamp(value: unknown, timestamp: string): unknown {
  return JSON.parse(JSON.stringify(value).replace(ISO_TIMESTAMP, timestamp));
}

/** A JSON value as a TypeScript literal (identifier keys unquoted); prettier lays it out. */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([key, v]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${literal(v)}`);
    return `{ ${entries.join(", ")} }`;
  }
  return JSON.stringify(value);
}

const HEADER = `/**
 * Examples of the OpenAPI document: real answers of this gateway serving the bundled sample
 * (\`snapshots/\`, \`npm run snapshots:generate -- --seed 1 --scale small\`, and config/keys.sample.json
 * with a few example keys for the key-state errors). GENERATED by tools/generate-examples.ts
 * (\`npm run examples:generate\`): do not edit by hand. Trace ids come from the examples' names and
 * timestamps are fixed, so the file changes only when an answer does; test/server/openapi-examples.test.ts
 * fails when it is stale, and test/server/openapi-document.test.ts checks that every example matches its schema and
 * that the data values appear in the bundled sample. Committed examples keep the document independent of
 * the data a gateway has loaded.
 */`;

/** Runs a gateway on the bundled sample and answers the text of src/openapi/examples.ts. */
export async function generateExamples(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "lgw-examples-"));
  const sample = JSON.parse(readFileSync(SAMPLE_KEYS_FILE, "utf8")) as { keys: unknown[] };
  const keysFile = join(dir, "keys.json");
  const extra = Object.values(EXAMPLE_KEYS).map(({ text, record }) => ({ ...record, sha256: KeyStore.hashKey(text) }));
  writeFileSync(keysFile, JSON.stringify({ keys: [...sample.keys, ...extra] }, null, 2));
  const env = {
    PORT: "0",
    HOST: "127.0.0.1",
    SNAPSHOT_DIR: resolve(PROJECT_ROOT, "snapshots"),
    API_KEYS_FILE: keysFile,
    CURSOR_SECRET: "openapi-examples-cursor-secret",
    GATEWAY_THREADS: "1",
    LOG_LEVEL: "silent",
    QUOTA_STORE: "memory",
    HISTORY: "on",
    HISTORY_DIR: join(dir, "history"),
  };
  const gateway = await startGateway(loadConfig([], env), pino({ level: "silent" }));
  try {
    await gateway.initialLoad;
    const base = `http://127.0.0.1:${gateway.port}`;
    await historyObserved(base);
    let clock = FIRST_TIMESTAMP;
    const nextTimestamp = () => new Date(clock++).toISOString();

    const answer = async (
      name: string,
      call: Call | HandshakeCall | "framing",
      expected: number,
      fix?: (body: unknown) => unknown,
    ): Promise<unknown> => {
      const traceId = traceIdOf(name);
      let got =
        call === "framing"
          ? await sendFraming(gateway.port, traceId)
          : "handshake" in call
            ? await sendHandshake(gateway.port, traceId, call.handshake)
            : await send(base, call, traceId);
      // The quota example needs its key's one request used in the same (one-second) window.
      for (let tries = 0; got.status !== expected && name === "RATE_LIMIT_EXCEEDED" && tries < 10; tries++) {
        got = await send(base, call as Call, traceId);
      }
      if (got.status !== expected)
        throw new Error(`${name}: expected ${expected}, got ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`);
      return withTimestamp(fix === undefined ? got.body : fix(got.body), nextTimestamp());
    };

    const parts: string[] = [];
    for (const example of EXAMPLES) {
      const value = example.kind === "request" ? example.value : await answer(example.name, example.call, 200, example.fix);
      parts.push(`/** ${example.comment} */\nexport const ${example.name} = ${literal(value)} satisfies ${example.type};`);
      if (example.name === "READINESS_RESPONSE_EXAMPLE") {
        const errors: string[] = [];
        for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
          const call = ERROR_CALLS[code];
          if (call === undefined) continue;
          errors.push(`${code}: ${literal(await answer(code, call, ERROR_CATALOGUE[code].status))}`);
        }
        parts.push(
          `/** One answer per error code that a request can provoke on the sample data. */\nexport const ERROR_EXAMPLES: Partial<Record<ErrorCode, ErrorEnvelope>> = { ${errors.join(", ")} };`,
        );
      }
    }
    const types = [...new Set([...EXAMPLES.map((e) => e.type), "ErrorEnvelope"])].sort();
    const imports = [`import type { ErrorCode } from "../api/errors.js";`, `import type { ${types.join(", ")} } from "../api/wire.js";`];
    const source = [HEADER, imports.join("\n"), ...parts].join("\n\n");
    return await prettier.format(source, { ...(await prettier.resolveConfig(EXAMPLES_FILE)), parser: "typescript" });
  } finally {
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const check = parseArgs({ options: { check: { type: "boolean" } } }).values.check === true;
  generateExamples().then(
    (text) => {
      if (check) {
        const stale = readFileSync(EXAMPLES_FILE, "utf8") !== text;
        console.log(stale ? "src/openapi/examples.ts is stale: run npm run examples:generate" : "src/openapi/examples.ts is up to date");
        process.exit(stale ? 1 : 0);
      }
      writeFileSync(EXAMPLES_FILE, text);
      console.log(`wrote ${EXAMPLES_FILE}`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
