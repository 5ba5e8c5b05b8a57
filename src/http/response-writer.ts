/**
 * The one writer of responses, for every route and every error: the status
 * line, the common headers (content type, trace id, snapshot version, the key's
 * RateLimit-*), then the body.
 *
 * - HEAD gets the headers and the Content-Length of the GET body, never the body.
 * - A body the socket does not take at once is held and finished on
 *   `onWritable`; while it is held uWS reads no further request from that
 *   connection, so a client that never reads pins at most one response. The
 *   bytes held per thread are capped: past the cap the connection is closed.
 *   (uWS closes a connection whose writes do not drain within its idle timeout.)
 * - Success bodies are assembled in one reusable scratch buffer; uWS copies
 *   what it sends, and a held remainder is copied out first.
 */
import type { Logger } from "../log/logger.js";
import { errorBody, IsoClock, STATIC_500_BODY, successPrefix } from "./envelope.js";
import type { ApiError } from "./errors.js";
import type { Exchange } from "./exchange.js";
import { JSON_CONTENT_TYPE, type Chunk, type Reply } from "./reply.js";

const STATUS_LINE: Record<number, string> = {
  200: "200 OK",
  204: "204 No Content",
  304: "304 Not Modified",
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

/** What the serving thread learns of each response. */
export interface ResponseLifecycle {
  /** The response's status line was written. */
  finished(exchange: Exchange, status: number): void;
  /** The response is complete, or the client went away: once per request. */
  settled(exchange: Exchange): void;
  /** Ask clients to close their connection (while the thread drains). */
  readonly closeConnections: boolean;
  /** A connection was closed because the bytes held for slow readers reached the cap. */
  overloaded(exchange: Exchange): void;
}

export interface WriterLimits {
  /** Most response bytes this thread holds for connections that do not read. */
  readonly maxHeldBytes: number;
}

export class ResponseWriter {
  private scratch = Buffer.allocUnsafe(1 << 16);
  private heldBytes = 0;
  readonly clock = new IsoClock();

  constructor(
    private readonly lifecycle: ResponseLifecycle,
    private readonly limits: WriterLimits,
    private readonly log: Logger,
  ) {}

  /** Bytes held for connections whose socket has not taken them yet. */
  get held(): number {
    return this.heldBytes;
  }

  reply(x: Exchange, reply: Reply): void {
    if (reply.kind === "data") {
      const body = this.assemble(successPrefix(x, this.clock.now()), reply.data, "}");
      this.write(x, 200, JSON_CONTENT_TYPE, body, null, reply.snapshotVersion ?? x.snapshotVersion);
    } else {
      const body = typeof reply.body === "string" ? Buffer.from(reply.body) : reply.body;
      this.write(x, reply.status, reply.contentType, body, null, x.snapshotVersion);
    }
  }

  error(x: Exchange, error: ApiError): void {
    const text = errorBody(x, error, this.clock.now());
    const status = text === STATIC_500_BODY ? 500 : error.status;
    this.write(x, status, JSON_CONTENT_TYPE, Buffer.from(text), { ...error.headers, "x-error-code": status === 500 ? "UNKNOWN_ERROR" : error.code }, x.snapshotVersion);
  }

  /** The client went away (the exchange's abort handler). */
  aborted(x: Exchange): void {
    this.release(x);
    this.settle(x);
  }

  private write(x: Exchange, status: number, contentType: string, body: Uint8Array, headers: Record<string, string> | null, version: string | undefined): void {
    if (x.aborted || x.responded) return;
    x.responded = true;
    const res = x.res;
    let done = true;
    res.cork(() => {
      res.writeStatus(STATUS_LINE[status] ?? String(status));
      res.writeHeader("content-type", contentType);
      res.writeHeader("x-trace-id", x.traceId);
      if (version !== undefined) res.writeHeader("x-snapshot-version", version);
      const quota = x.quota;
      if (quota !== null) {
        res.writeHeader("ratelimit-limit", String(quota.limit));
        res.writeHeader("ratelimit-remaining", String(quota.remaining));
        res.writeHeader("ratelimit-reset", String(quota.resetSeconds));
      }
      if (headers !== null) for (const name in headers) res.writeHeader(name, headers[name]);
      if (x.head) {
        // endWithoutBody() writes no Content-Length of its own (with an argument, this uWS build hangs the connection).
        res.writeHeader("content-length", String(body.length));
        if (this.lifecycle.closeConnections) res.writeHeader("connection", "close");
        res.endWithoutBody();
      } else if (this.lifecycle.closeConnections) {
        res.end(body, true);
      } else {
        done = res.tryEnd(body, body.length)[1];
      }
    });
    this.lifecycle.finished(x, status);
    if (done) this.settle(x);
    else this.hold(x, body);
  }

  /** Keeps the unsent body until the socket drains, within the thread's cap. */
  private hold(x: Exchange, body: Uint8Array): void {
    x.watchAbort();
    if (this.heldBytes + body.length > this.limits.maxHeldBytes) {
      this.log.warn({ event: "connection-closed-backpressure", traceId: x.traceId, heldBytes: this.heldBytes }, "closing a connection that does not read its responses: the thread's held-bytes cap is reached");
      this.lifecycle.overloaded(x);
      x.res.close(); // runs the abort handler
      return;
    }
    const copy = Buffer.from(body); // the scratch buffer is reused by the next response
    x.held = copy;
    this.heldBytes += copy.length;
    x.res.onWritable((offset) => {
      const [ok, done] = x.res.tryEnd(copy.subarray(offset), copy.length);
      if (done) {
        this.release(x);
        this.settle(x);
      }
      return ok;
    });
  }

  private release(x: Exchange): void {
    if (x.held === null) return;
    this.heldBytes -= x.held.length;
    x.held = null;
  }

  private settle(x: Exchange): void {
    if (x.settled) return;
    x.settled = true;
    this.lifecycle.settled(x);
  }

  /** prefix + chunks + suffix in the scratch buffer (valid until the next call). */
  private assemble(prefix: string, chunks: readonly Chunk[], suffix: string): Buffer {
    let size = Buffer.byteLength(prefix) + Buffer.byteLength(suffix);
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i];
      size += typeof c === "string" ? Buffer.byteLength(c) : c.length;
    }
    if (size > this.scratch.length) this.scratch = Buffer.allocUnsafe(Math.max(size, this.scratch.length * 2));
    const out = this.scratch;
    let at = out.write(prefix, 0);
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i];
      if (typeof c === "string") at += out.write(c, at);
      else {
        out.set(c, at);
        at += c.length;
      }
    }
    at += out.write(suffix, at);
    return out.subarray(0, at);
  }
}
