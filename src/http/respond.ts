/**
 * Writes responses: status line, the common headers (content type, trace id,
 * snapshot version) and a body assembled into one reusable scratch buffer.
 * uWS copies the body during `end`, so the scratch is free again right after.
 */
import { errorBody } from "./envelope.js";
import { ApiError } from "./errors.js";
import type { RequestInfo } from "./request-info.js";
import type { HttpResponse } from "./uws.js";

const STATUS_LINE: Record<number, string> = {
  200: "200 OK",
  400: "400 Bad Request",
  401: "401 Unauthorized",
  403: "403 Forbidden",
  404: "404 Not Found",
  405: "405 Method Not Allowed",
  413: "413 Payload Too Large",
  415: "415 Unsupported Media Type",
  429: "429 Too Many Requests",
  500: "500 Internal Server Error",
  503: "503 Service Unavailable",
};

const JSON_TYPE = "application/json; charset=utf-8";

let scratch = Buffer.allocUnsafe(1 << 20);

/** prefix + parts (joined by `separator`) + suffix, in the scratch buffer. */
export function assemble(prefix: string, parts: readonly Uint8Array[], separator: string, suffix: string): Buffer {
  let size = Buffer.byteLength(prefix) + Buffer.byteLength(suffix) + parts.length * separator.length;
  for (const p of parts) size += p.length;
  if (size > scratch.length) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
  let at = scratch.write(prefix, 0);
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) at += scratch.write(separator, at, "latin1");
    scratch.set(parts[i], at);
    at += parts[i].length;
  }
  at += scratch.write(suffix, at);
  return scratch.subarray(0, at);
}

/** What the serving thread wants to know of every response (metrics, draining). */
export interface ResponseHooks {
  /** A response was sent. */
  ended(info: RequestInfo, status: number): void;
  /** The client went away before the response. */
  aborted(info: RequestInfo): void;
  /** Ask clients to close their connection (while the thread drains). */
  readonly closeConnections: boolean;
}

let hooks: ResponseHooks = { ended() {}, aborted() {}, closeConnections: false };

export function setResponseHooks(next: ResponseHooks): void {
  hooks = next;
}

export interface ResponseState {
  aborted: boolean;
}

/** Registers the abort handler a response needs before any asynchronous step. */
export function trackAbort(res: HttpResponse, info: RequestInfo): ResponseState {
  const state = { aborted: false };
  res.onAborted(() => {
    state.aborted = true;
    hooks.aborted(info);
  });
  return state;
}

export function sendJson(
  res: HttpResponse,
  info: RequestInfo,
  status: number,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  snapshotVersion?: string,
): void {
  sendBody(res, info, status, JSON_TYPE, body, headers, snapshotVersion);
}

export function sendBody(
  res: HttpResponse,
  info: RequestInfo,
  status: number,
  contentType: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  snapshotVersion?: string,
): void {
  res.cork(() => {
    res.writeStatus(STATUS_LINE[status] ?? `${status}`);
    res.writeHeader("content-type", contentType);
    res.writeHeader("x-trace-id", info.traceId);
    const version = snapshotVersion ?? info.snapshotVersion;
    if (version !== undefined) res.writeHeader("x-snapshot-version", version);
    const common = info.responseHeaders;
    if (common !== null) for (const name in common) res.writeHeader(name, common[name]);
    for (const name in headers) res.writeHeader(name, headers[name]);
    const close = hooks.closeConnections || info.closeConnection;
    if (info.method === "HEAD") endHead(res, body, close);
    else res.end(body, close);
  });
  hooks.ended(info, status);
}

/**
 * Ends a HEAD response: the GET's headers and Content-Length, no body. uWS's
 * end() would send the body (the client would read the next response from
 * inside it), and endWithoutBody with any argument leaves the response pending
 * so that uWS aborts the process; so the length is written here and
 * endWithoutBody gets none, which also means it cannot close: a HEAD that must
 * close asks the client to.
 */
function endHead(res: HttpResponse, body: string | Uint8Array, close: boolean): void {
  res.writeHeader("content-length", String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength));
  if (close) res.writeHeader("connection", "close");
  res.endWithoutBody();
}

export function sendError(res: HttpResponse, info: RequestInfo, error: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, info, error.status, errorBody(info, error), { ...headers, ...error.headers, "x-error-code": error.code });
}

/** Any thrown value as a response: ApiErrors as themselves, anything else as a 500 that leaks nothing. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError("UNKNOWN_ERROR", "The gateway failed to answer this request; retry, and contact the operator if it persists.", "An unexpected server fault occurred; its trace id is in the logs.");
}
