/**
 * The error catalogue (api-decisions.md §1, api-extended.md §7): every code
 * with its status, title and the facts the OpenAPI document states about it,
 * and the ApiError that carries one through the request pipeline. A code is
 * declared here once; its `error.metadata` shape is ErrorMetadataByCode in
 * src/api/wire.ts (checked at compile time to name exactly these codes).
 */
import type { Presence } from "./presence.js";
import { MAX_BODY_BYTES } from "./limits.js";

export interface ErrorCodeFacts {
  readonly status: number;
  readonly title: string;
  /** When the code is answered (the OpenAPI response description). */
  readonly when: string;
  /** The key's RateLimit-* headers: only codes answered after the quota is counted carry them. */
  readonly rateLimitHeaders: Presence;
  /** Carries `Retry-After`. */
  readonly retryAfter?: true;
  /** Carries `Allow`. */
  readonly allow?: true;
  /** Carries `Upgrade` and `Sec-WebSocket-Version`: the protocol and version to retry with (426). */
  readonly upgrade?: true;
}

const INVALID = "Invalid Parameters";

export const ERROR_CATALOGUE = {
  VALIDATION_ERROR: {
    status: 400,
    title: INVALID,
    when: "a parameter breaks the schema; metadata names the first failing property in document order",
    rateLimitHeaders: "always",
  },
  MALFORMED_JSON: { status: 400, title: INVALID, when: "the body is empty or not valid JSON", rateLimitHeaders: "always" },
  UNSUPPORTED_CHAIN_ID: {
    status: 400,
    title: INVALID,
    when: "a chain id is an integer but not a supported chain",
    rateLimitHeaders: "always",
  },
  INVALID_POOL_ADDRESS: {
    status: 400,
    title: INVALID,
    when: "`poolAddress` is neither 0x + 40 nor 0x + 64 hex digits",
    rateLimitHeaders: "always",
  },
  INVALID_PAGINATION_CURSOR: {
    status: 400,
    title: INVALID,
    when: "`config.cursor` was not issued by this gateway for this route, was altered, or belongs to a request with other parameters",
    rateLimitHeaders: "always",
  },
  INVALID_BLOCKCHAIN_ADDRESS: {
    status: 400,
    title: INVALID,
    when: "a token address of the body is not 0x + 40 hex digits; every bad item is listed",
    rateLimitHeaders: "always",
  },
  INVALID_BASKET_ID: { status: 400, title: INVALID, when: "a basket id is not in the operator's baskets file", rateLimitHeaders: "always" },
  INVALID_PROTOCOL_ID: {
    status: 400,
    title: INVALID,
    when: "a protocol id is not a lowercase slug (`^[a-z0-9]+(-[a-z0-9]+)*$`)",
    rateLimitHeaders: "always",
  },
  INVALID_REQUEST_FRAMING: {
    status: 400,
    title: "Bad Request",
    when: "the body's length is ambiguous: several Content-Length headers, an empty one, a Transfer-Encoding other than exactly chunked, or both headers; the connection is closed at once",
    rateLimitHeaders: "never",
  },
  INVALID_WEBSOCKET_HANDSHAKE: {
    status: 400,
    title: "Bad Request",
    when: "GET /v1/stream asked for a WebSocket (`Upgrade: websocket`) with a malformed handshake: no `upgrade` in `Connection`, a `Sec-WebSocket-Key` that is not base64 of 16 bytes, or no `Sec-WebSocket-Version` (RFC 6455 §4.2.1); answered before the key is read",
    rateLimitHeaders: "never",
  },
  INVALID_POSITION: {
    status: 400,
    title: INVALID,
    when: "a position (`since`, or an SSE `Last-Event-ID`) is not one this gateway writes: base64url of a format byte and, per chain by ascending chain id, its change-set id",
    rateLimitHeaders: "always",
  },
  API_KEY_MISSING: { status: 401, title: "Authentication Failed", when: "no Authorization header", rateLimitHeaders: "never" },
  API_KEY_INVALID: {
    status: 401,
    title: "Authentication Failed",
    when: "the Authorization header is not `Bearer <api-key>`",
    rateLimitHeaders: "never",
  },
  API_KEY_NOT_FOUND: {
    status: 401,
    title: "Authentication Failed",
    when: "the key is not known to this gateway",
    rateLimitHeaders: "never",
  },
  API_KEY_DISABLED: { status: 403, title: "Authentication Failed", when: "the key is disabled", rateLimitHeaders: "never" },
  API_KEY_EXPIRED: { status: 403, title: "Authentication Failed", when: "the key has expired", rateLimitHeaders: "never" },
  API_KEY_FORBIDDEN: {
    status: 403,
    title: "Forbidden",
    when: "the key may not use this route or one of the requested chains",
    rateLimitHeaders: "always",
  },
  LIQUIDITY_POOL_NOT_FOUND: {
    status: 404,
    title: "Not Found",
    when: "the chain's loaded snapshot has no pool with this address",
    rateLimitHeaders: "always",
  },
  TOKEN_NOT_FOUND: {
    status: 404,
    title: "Not Found",
    when: "the chain's loaded snapshot has no token with this address",
    rateLimitHeaders: "always",
  },
  HISTORY_DISABLED: {
    status: 404,
    title: "Not Found",
    when: "history is off on this gateway (`HISTORY=off`)",
    rateLimitHeaders: "always",
  },
  TOKEN_BASKET_NOT_FOUND: {
    status: 404,
    title: "Not Found",
    when: "the basket has no address on the chains in scope",
    rateLimitHeaders: "always",
  },
  ROUTE_NOT_FOUND: { status: 404, title: "Route Not Found", when: "no route has this path", rateLimitHeaders: "never" },
  METHOD_NOT_ALLOWED: {
    status: 405,
    title: "Method Not Allowed",
    when: "another method was used on this path; `Allow` lists the methods it takes",
    rateLimitHeaders: "never",
    allow: true,
  },
  NOT_ACCEPTABLE: {
    status: 406,
    title: "Not Acceptable",
    when: "GET /v1/stream without `Upgrade: websocket` and without `Accept: text/event-stream`",
    rateLimitHeaders: "always",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    title: "Payload Too Large",
    when: `the body is larger than the ${MAX_BODY_BYTES} bytes allowed`,
    rateLimitHeaders: "always",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    title: "Unsupported Media Type",
    when: "the Content-Type is not application/json (a charset parameter is fine)",
    rateLimitHeaders: "always",
  },
  UNSUPPORTED_WEBSOCKET_VERSION: {
    status: 426,
    title: "Upgrade Required",
    when: "GET /v1/stream asked for a WebSocket of a version other than 13; `Sec-WebSocket-Version: 13` and `Upgrade: websocket` name the one to retry with (RFC 6455 §4.4); answered before the key is read",
    rateLimitHeaders: "never",
    upgrade: true,
  },
  RATE_LIMIT_EXCEEDED: {
    status: 429,
    title: "Rate Limit Exceeded",
    when: "the key has used its quota of the current window, or the client address its budget of failed authentications or public requests; retry after `Retry-After` seconds (also `metadata.retryAfterSeconds`)",
    rateLimitHeaders: "sometimes",
    retryAfter: true,
  },
  UNKNOWN_ERROR: {
    status: 500,
    title: "Unknown Error",
    when: "a server fault; its trace id is in the gateway's logs",
    rateLimitHeaders: "sometimes",
  },
  CHAIN_DATA_UNAVAILABLE: {
    status: 503,
    title: "Service Unavailable",
    when: "a requested chain has no loaded snapshot yet; retry after `Retry-After` seconds",
    rateLimitHeaders: "always",
    retryAfter: true,
  },
  QUOTA_STORE_UNAVAILABLE: {
    status: 503,
    title: "Service Unavailable",
    when: "the shared quota store (Redis) cannot be reached and the gateway is configured to refuse rather than count locally (`QUOTA_FAILURE=closed`); nothing was counted; retry after `Retry-After` seconds",
    rateLimitHeaders: "never",
    retryAfter: true,
  },
  HISTORY_UNAVAILABLE: {
    status: 503,
    title: "Service Unavailable",
    when: "history is on but its store cannot be read now (not created yet by the history thread, or refused: `metadata.reason` says why; `GET /v1/status` shows history `failed`); retry after `Retry-After` seconds",
    rateLimitHeaders: "always",
    retryAfter: true,
  },
  FLEET_VIEW_UNAVAILABLE: {
    status: 503,
    title: "Service Unavailable",
    when: "GET /v1/status/fleet on an instance that pulls from no origin (`SNAPSHOT_ORIGIN`), has no Redis (`QUOTA_STORE=redis`), or cannot reach Redis now; metadata says which",
    rateLimitHeaders: "always",
  },
} as const satisfies Record<string, ErrorCodeFacts>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * An error answered to the client as the error envelope. It is an expected
 * outcome, not a fault: it carries no stack trace (capturing one costs more than
 * answering the request, and a flood of refused requests would pay it each time).
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly details: string;
  readonly metadata: Record<string, unknown>;
  /** Extra response headers, e.g. `Allow` or `Retry-After`. */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details: string,
    metadata: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.title = ERROR_CATALOGUE[code].title;
    this.details = details;
    this.metadata = metadata;
    this.headers = headers;
  }
}

/** Any thrown value as a response: ApiErrors as themselves, anything else as a 500 that leaks nothing. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(
    "UNKNOWN_ERROR",
    "The gateway failed to answer this request; retry, and contact the operator if it persists.",
    "An unexpected server fault occurred; its trace id is in the logs.",
  );
}
