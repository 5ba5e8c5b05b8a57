/**
 * The one writer of responses, for every route and every error: the status
 * line, the common headers (content type, trace id, snapshot version, the key's
 * RateLimit-*, caching, CORS), then the body.
 *
 * - Conditional GET: answers of GET routes carry an ETag (transport/conditional.ts);
 *   an If-None-Match that matches gets 304 with no body.
 * - Compression (transport/content-coding.ts): bodies above COMPRESSION_MIN_BYTES
 *   are sent as gzip or br when the client accepts them. gzip is stitched from the
 *   envelope's pieces around `data` compressed once per snapshot and body
 *   (transport/gzip-member.ts, transport/compression-cache.ts); br is compressed
 *   per response (bounded in size).
 * - HEAD gets the headers and the Content-Length of the identity GET body, never a body.
 * - A request whose framing cannot be trusted (request-framing.ts) gets its 400
 *   and the connection closed before uWS parses another byte of it
 *   (`refuseAndClose`).
 * - A body the socket does not take at once is held and finished on
 *   `onWritable`; while it is held uWS reads no further request from that
 *   connection, so a client that never reads pins at most one response. The
 *   bytes held per thread are capped: past the cap the connection is closed.
 *   (uWS closes a connection whose writes do not drain within its idle timeout.)
 * - The head (status line and headers) is written as one block, and identity
 *   success bodies are assembled in one reusable buffer (byte-writer.ts); uWS
 *   copies what it sends, and a held remainder is copied out first.
 */
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import type { Logger } from "../log/logger.js";
import { ByteWriter } from "./byte-writer.js";
import { errorBody, IsoClock, STATIC_500_BODY, successPrefix } from "./envelope.js";
import type { ApiError } from "../api/errors.js";
import type { Exchange } from "./exchange.js";
import type { HttpResponse } from "./uws.js";
import {
  EVENT_STREAM_CONTENT_TYPE,
  JSON_CONTENT_TYPE,
  type Chunk,
  type DataReply,
  type EventStreamReply,
  type RawReply,
  type Reply,
} from "./reply.js";
import { CompressionCache } from "./transport/compression-cache.js";
import { chooseContentCoding, type ContentCoding } from "./transport/content-coding.js";
import { bodyEtag, dataEtag, ifNoneMatchHits } from "./transport/conditional.js";
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS, type CorsPolicy } from "./transport/cors.js";
import { crc32Continue } from "../util/crc32.js";
import { deflatePiece, gzipMember, type DeflatedPiece } from "./transport/gzip-member.js";

/**
 * Header names and constant values as bytes: uWS takes them as they are, where
 * a string would be measured and converted to UTF-8 on every call.
 */
const bytes = (text: string): Buffer => Buffer.from(text, "latin1");

const STATUS_TEXT: Record<number, string> = {
  200: "200 OK",
  204: "204 No Content",
  304: "304 Not Modified",
  400: "400 Bad Request",
  401: "401 Unauthorized",
  403: "403 Forbidden",
  404: "404 Not Found",
  405: "405 Method Not Allowed",
  406: "406 Not Acceptable",
  413: "413 Payload Too Large",
  415: "415 Unsupported Media Type",
  426: "426 Upgrade Required",
  429: "429 Too Many Requests",
  500: "500 Internal Server Error",
  503: "503 Service Unavailable",
};
const STATUS_LINE: Record<number, Buffer> = Object.fromEntries(Object.entries(STATUS_TEXT).map(([status, line]) => [status, bytes(line)]));

const H_CONTENT_TYPE = bytes("content-type");
const H_TRACE_ID = bytes("x-trace-id");
const H_SNAPSHOT_VERSION = bytes("x-snapshot-version");
const H_RATELIMIT_LIMIT = bytes("ratelimit-limit");
const H_RATELIMIT_REMAINING = bytes("ratelimit-remaining");
const H_RATELIMIT_RESET = bytes("ratelimit-reset");
const H_CACHE_CONTROL = bytes("cache-control");
const H_ALLOW_ORIGIN = bytes("access-control-allow-origin");
const H_EXPOSE_HEADERS = bytes("access-control-expose-headers");
const V_EVENT_STREAM = bytes(EVENT_STREAM_CONTENT_TYPE);
const H_ACCEL_BUFFERING = bytes("x-accel-buffering");
const V_NO = bytes("no");
const STATUS_101 = bytes("101 Switching Protocols");
const V_EXPOSE_HEADERS = bytes(CORS_EXPOSE_HEADERS);

/** Answers that must never be stored (errors). */
const NO_STORE = bytes("no-store");

/**
 * A response's head is written as one block (`writeStatus` with the status text, then every header as
 * "\r\nname: value": uWS appends the status line's own "\r\n", then its Date header, Content-Length and the
 * body): one native call instead of one per header. These are its fixed runs.
 */
const R_TRACE_ID = bytes("\r\nx-trace-id: ");
const R_SNAPSHOT_VERSION = bytes("\r\nx-snapshot-version: ");
const R_DATA_GENERATED_AT = bytes("\r\nx-data-generated-at: ");
const R_RATELIMIT_RESET = bytes("\r\nratelimit-reset: ");
const R_ETAG = bytes("\r\netag: ");
const R_CONTENT_ENCODING = bytes("\r\ncontent-encoding: ");
const R_ALLOW_ORIGIN = bytes("\r\naccess-control-allow-origin: ");
const R_EXPOSE_HEADERS = bytes(`\r\naccess-control-expose-headers: ${CORS_EXPOSE_HEADERS}`);
const R_CONTENT_LENGTH = bytes("\r\ncontent-length: ");
const R_CONNECTION_CLOSE = bytes("\r\nconnection: close");

/**
 * The `Keep-Alive: timeout=N` hint on every answer that leaves the connection open (Node's http.Agent and
 * undici retire an idle socket before it): uWS closes a keep-alive connection 8-12 s after its last answer
 * (its 10 s idle timeout, counted in 4 s ticks), so a client that reuses a socket idle for less than N
 * seconds never sends a request on one the gateway is closing. docs/reverse-proxy.md sets nginx's upstream
 * `keepalive_timeout` to the same N.
 */
export const KEEP_ALIVE_TIMEOUT_SECONDS = 5;
const R_KEEP_ALIVE = bytes(`\r\nkeep-alive: timeout=${KEEP_ALIVE_TIMEOUT_SECONDS}`);
const H_KEEP_ALIVE = bytes("keep-alive");
const V_KEEP_ALIVE = bytes(`timeout=${KEEP_ALIVE_TIMEOUT_SECONDS}`);
const R_CRLF = bytes("\r\n");
const R_COLON = bytes(": ");

/** How an answer may be cached: its cache-control header, and vary on answers that are not errors. */
export type CachePolicy = "no-store" | "revalidate" | "private-revalidate" | "immutable" | "short";

/** max-age of answers that change within seconds (open history buckets). */
export const SHORT_MAX_AGE_SECONDS = 10;

/** uWS's cork buffer (LoopData::CORK_BUFFER_SIZE): a write at least this large is sent at once. */
const UWS_CORK_BUFFER_BYTES = 16 * 1024;

/** Brotli is compressed per response: bounded in size and effort. */
const BROTLI_MAX_BYTES = 1024 * 1024;
const BROTLI_QUALITY_PER_RESPONSE = 4;
/** Bodies compressed once and kept (the OpenAPI document) get more effort. */
const BROTLI_QUALITY_KEPT = 9;

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

export interface TransportOptions {
  /** Bodies of at least this many bytes are compressed when the client accepts it (Infinity: never). */
  readonly compressionMinBytes: number;
  /** Bytes of compressed bodies a thread keeps for reuse. */
  readonly compressionCacheBytes: number;
  /** Cross-origin policy; null: CORS off. */
  readonly cors: CorsPolicy | null;
}

export const DEFAULT_TRANSPORT: TransportOptions = { compressionMinBytes: 1024, compressionCacheBytes: 32 * 1024 * 1024, cors: null };

type Kept = { readonly bytes: number; readonly piece?: DeflatedPiece; readonly body?: Buffer };

export class ResponseWriter {
  /** Identity bodies (and pieces to compress) are assembled here; uWS copies what it sends. */
  private readonly body = new ByteWriter(1 << 16);
  /** The head of the response being written. */
  private readonly head = new ByteWriter(4096);
  private heldBytes = 0;
  readonly clock = new IsoClock();
  private readonly kept: CompressionCache<Kept>;
  /** The cache-control (and vary) run of each policy. */
  private readonly cacheRuns: Readonly<Record<CachePolicy, Buffer>>;
  /** The first run of a head by content type and status: status text, content-type, the trace id's name. */
  private readonly statusRuns = new Map<string | null, Buffer[]>();
  /** The last snapshot version written, and its bytes (a version serves many responses). */
  private versionText = "";
  private versionBytes = bytes("");
  /** Version runs by data-generated-at ("" for none), of the snapshot version `versionText`. */
  private versionRuns = new Map<string, Buffer>();
  /** "\r\nratelimit-limit: L\r\nratelimit-remaining: " by limit (keys share a few limits). */
  private readonly limitRuns = new Map<number, Buffer>();

  constructor(
    private readonly lifecycle: ResponseLifecycle,
    private readonly limits: WriterLimits,
    private readonly transport: TransportOptions,
    private readonly log: Logger,
  ) {
    this.kept = new CompressionCache(transport.compressionCacheBytes);
    const vary = transport.cors !== null && !transport.cors.any ? "Accept-Encoding, Origin" : "Accept-Encoding";
    // Answers (not errors) may be compressed or, with a CORS list, vary by origin.
    this.cacheRuns = {
      "no-store": bytes("\r\ncache-control: no-store"),
      revalidate: bytes(`\r\ncache-control: no-cache\r\nvary: ${vary}`),
      "private-revalidate": bytes(`\r\ncache-control: private, no-cache\r\nvary: ${vary}`),
      immutable: bytes(`\r\ncache-control: public, max-age=31536000, immutable\r\nvary: ${vary}`),
      short: bytes(`\r\ncache-control: public, max-age=${SHORT_MAX_AGE_SECONDS}\r\nvary: ${vary}`),
    };
  }

  /** Bytes held for connections whose socket has not taken them yet. */
  get held(): number {
    return this.heldBytes;
  }

  reply(x: Exchange, reply: Reply): void {
    if (reply.kind === "data") this.data(x, reply);
    else if (reply.kind === "raw") this.raw(x, reply);
    else this.events(x, reply);
  }

  /**
   * An event stream (SSE): 200 with the common headers, no Content-Length
   * (uWS writes chunks), never stored; then the response belongs to the
   * stream until it ends (`settled` then) or the client goes away. HEAD gets
   * the headers only.
   */
  private events(x: Exchange, reply: EventStreamReply): void {
    if (x.aborted || x.responded) {
      reply.cancel();
      return;
    }
    x.responded = true;
    const res = x.res;
    const opened: { stream: { aborted(): void } | null } = { stream: null };
    const start = () => {
      res.writeStatus(STATUS_LINE[200]);
      res.writeHeader(H_CONTENT_TYPE, V_EVENT_STREAM);
      res.writeHeader(H_TRACE_ID, x.traceId);
      if (x.snapshotVersion !== undefined) res.writeHeader(H_SNAPSHOT_VERSION, this.versionOf(x.snapshotVersion));
      const quota = x.quota;
      if (quota !== null) {
        res.writeHeader(H_RATELIMIT_LIMIT, String(quota.limit));
        res.writeHeader(H_RATELIMIT_REMAINING, String(quota.remaining));
        res.writeHeader(H_RATELIMIT_RESET, String(quota.resetSeconds));
      }
      res.writeHeader(H_CACHE_CONTROL, NO_STORE);
      // Reverse proxies that buffer responses (nginx) pass this one through as it comes.
      res.writeHeader(H_ACCEL_BUFFERING, V_NO);
      // The connection stays open once the stream ends (SseChannel.end): the idle hint holds from then.
      res.writeHeader(H_KEEP_ALIVE, V_KEEP_ALIVE);
      if (x.corsOrigin !== null) {
        res.writeHeader(H_ALLOW_ORIGIN, x.corsOrigin);
        res.writeHeader(H_EXPOSE_HEADERS, V_EXPOSE_HEADERS);
      }
      if (x.head) {
        res.endWithoutBody();
        return;
      }
      opened.stream = reply.start(res, () => this.settle(x));
    };
    // The stream's abort handler replaces the exchange's (uWS keeps one): the request settles when the stream ends.
    res.onAborted(() => {
      x.aborted = true;
      opened.stream?.aborted();
      this.settle(x);
    });
    if (x.corked) start();
    else res.cork(start);
    this.lifecycle.finished(x, 200);
    if (opened.stream === null) {
      reply.cancel();
      this.settle(x);
    }
  }

  /**
   * A WebSocket upgrade (GET /v1/stream): 101 with the trace id and the key's
   * RateLimit-* headers, then uWS's own handshake headers (`upgrade` calls
   * res.upgrade). False, without upgrading, when the client went away first.
   *
   * Inside the uWS upgrade handler (`x.corked`) all of it runs in uWS's cork.
   * Later (admission decided by Redis) only our headers are written in
   * `res.cork`; res.upgrade runs outside it: uWS's HttpResponse::cork, after
   * its callback, tells an upgraded socket from the HTTP one by its address
   * alone, and the adoption into the WebSocket context reallocates the socket
   * in place whenever the allocator can. It then reads the WebSocket's memory
   * as the HTTP response's state and, depending on those bytes, shuts the new
   * WebSocket down (the `open` event has run, the client saw 101 and
   * `subscribed`, then the connection ends without a close frame) or re-arms it
   * with the HTTP timeout. uWS prints one "writes must be made from within a
   * corked callback" warning to stderr for that res.upgrade (docs/stream.md).
   */
  upgrade(x: Exchange, upgrade: () => void): boolean {
    if (x.aborted || x.responded) return false;
    x.responded = true;
    const res = x.res;
    const writeHeaders = () => {
      res.writeStatus(STATUS_101);
      res.writeHeader(H_TRACE_ID, x.traceId);
      const quota = x.quota;
      if (quota !== null) {
        res.writeHeader(H_RATELIMIT_LIMIT, String(quota.limit));
        res.writeHeader(H_RATELIMIT_REMAINING, String(quota.remaining));
        res.writeHeader(H_RATELIMIT_RESET, String(quota.resetSeconds));
      }
    };
    if (x.corked) writeHeaders();
    else res.cork(writeHeaders);
    upgrade();
    this.lifecycle.finished(x, 101);
    this.settle(x);
    return true;
  }

  error(x: Exchange, error: ApiError): void {
    const text = errorBody(x, error, this.clock.now());
    const status = text === STATIC_500_BODY ? 500 : error.status;
    const headers = { ...error.headers, "x-error-code": status === 500 ? "UNKNOWN_ERROR" : error.code };
    if (x.closeConnection) this.refuseAndClose(x, status, text, headers);
    else this.write(x, status, JSON_CONTENT_TYPE, Buffer.from(text), "identity", headers, x.snapshotVersion, null, "no-store");
  }

  /**
   * The error answer to a request whose framing cannot be trusted, then the
   * connection closed, all before the uWS handler returns: uWS parses the rest
   * of a TCP read (pipelined requests, or a request hidden in an ambiguous
   * body) right after the handler unless the socket is closed by then.
   *
   * uWS offers no way to send corked bytes and close from inside the handler:
   * `end(body, true)` closes only when the socket is not corked and has no
   * backpressure (and the response object is unusable after it), and `close()`
   * drops what is corked. So the whole response (status line, headers, body) is
   * written as raw bytes through `writeStatus`, in one write at least as large
   * as uWS's 16 KiB cork buffer (the JSON body is padded with spaces, which JSON
   * allows): uWS sends such a write at once with the corked bytes before it, so
   * by the time `close()` runs the answer is in the kernel's send buffer, which
   * a close delivers. A connection that was already not taking its responses
   * (user-space backpressure) is closed without the answer: it could not take
   * it. HEAD gets the body as well (the connection ends right after it).
   * uWS appends "\r\n" to the status text: the body's last two bytes.
   */
  private refuseAndClose(x: Exchange, status: number, json: string, extra: Record<string, string>): void {
    if (x.aborted || x.responded) return;
    x.responded = true;
    let head = `${STATUS_TEXT[status] ?? String(status)}\r\ncontent-type: ${JSON_CONTENT_TYPE}\r\nx-trace-id: ${x.traceId}\r\n`;
    if (x.snapshotVersion !== undefined) head += `x-snapshot-version: ${x.snapshotVersion}\r\n`;
    head += "cache-control: no-store\r\n";
    for (const name in extra) head += `${name}: ${extra[name]}\r\n`;
    if (x.corsOrigin !== null)
      head += `access-control-allow-origin: ${x.corsOrigin}\r\naccess-control-expose-headers: ${CORS_EXPOSE_HEADERS}\r\n`;
    head += `date: ${new Date().toUTCString()}\r\nconnection: close\r\n`;
    const compose = (padding: number) =>
      `${head}content-length: ${Buffer.byteLength(json) + padding + 2}\r\n\r\n${json}${" ".repeat(padding)}`;
    let text = compose(0);
    // Padding by the shortfall lengthens the text by at least as much (the Content-Length may gain a digit).
    const short = UWS_CORK_BUFFER_BYTES - Buffer.byteLength(text);
    if (short > 0) text = compose(short);
    const send = () => void x.res.writeStatus(text);
    if (x.corked) send();
    else x.res.cork(send);
    this.lifecycle.finished(x, status);
    x.res.close(); // runs the abort handler, when one is registered
    this.settle(x);
  }

  /** The fixed 500 of a request that could not even be read (no exchange: nothing else is known of it). */
  static fallback500(res: HttpResponse): void {
    res
      .writeStatus(STATUS_LINE[500])
      .writeHeader(H_CONTENT_TYPE, JSON_CONTENT_TYPE)
      .writeHeader(H_KEEP_ALIVE, V_KEEP_ALIVE)
      .end(STATIC_500_BODY);
  }

  /** 204 to a CORS preflight (no key needed): the path's methods and the headers a request may send. */
  preflight(x: Exchange, methods: readonly string[]): void {
    this.write(
      x,
      204,
      null,
      null,
      "identity",
      {
        "access-control-allow-methods": methods.join(", "),
        "access-control-allow-headers": CORS_ALLOW_HEADERS,
        "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
      },
      x.snapshotVersion,
      null,
      null,
    );
  }

  /** The client went away (the exchange's abort handler). */
  aborted(x: Exchange): void {
    this.release(x);
    this.settle(x);
  }

  /** Success answers: a cache may keep them but must revalidate; keyed answers never go to a shared cache. */
  private cacheControl(x: Exchange, reply?: DataReply): CachePolicy {
    if (reply?.cache !== undefined) return reply.cache;
    return x.key === null ? "revalidate" : "private-revalidate";
  }

  private data(x: Exchange, reply: DataReply): void {
    const version = reply.snapshotVersion ?? x.snapshotVersion;
    const chunks = reply.data;
    let dataLength = 0;
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i];
      dataLength += typeof c === "string" ? Buffer.byteLength(c) : c.length;
    }
    let etag: string | null = null;
    if (x.conditional) {
      etag = dataEtag(version ?? "", reply.dataCrc ?? crcOf(chunks), dataLength);
      if (ifNoneMatchHits(x.ifNoneMatch, etag)) {
        this.write(x, 304, null, null, "identity", null, version, etag, this.cacheControl(x, reply), reply.dataGeneratedAt);
        return;
      }
    }
    const out = this.body;
    out.at = 0;
    out.utf8(successPrefix(x, this.clock.now()));
    const size = out.at + dataLength + 1;
    const coding =
      x.head || size < this.transport.compressionMinBytes ? "identity" : chooseContentCoding(x.acceptEncoding, size <= BROTLI_MAX_BYTES);
    if (coding === "gzip") {
      const prefix = Buffer.from(out.view()); // the body buffer is reused below
      const piece = this.deflated(version, reply, chunks, dataLength);
      const raw = piece.length <= 16 * 1024 ? this.assemble(chunks) : undefined;
      this.write(
        x,
        200,
        JSON_CONTENT_TYPE,
        gzipMember(prefix, piece, CLOSE_BRACE, raw),
        "gzip",
        null,
        version,
        etag,
        this.cacheControl(x, reply),
        reply.dataGeneratedAt,
      );
      return;
    }
    const body = this.append(chunks, CLOSE_BRACE);
    if (coding === "br") {
      this.write(
        x,
        200,
        JSON_CONTENT_TYPE,
        brotli(body, BROTLI_QUALITY_PER_RESPONSE),
        "br",
        null,
        version,
        etag,
        this.cacheControl(x, reply),
        reply.dataGeneratedAt,
      );
      return;
    }
    this.write(x, 200, JSON_CONTENT_TYPE, body, "identity", null, version, etag, this.cacheControl(x, reply), reply.dataGeneratedAt);
  }

  private raw(x: Exchange, reply: RawReply): void {
    const identity =
      typeof reply.body === "string"
        ? Buffer.from(reply.body)
        : Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength);
    const coding: ContentCoding =
      x.head || reply.status !== 200 || identity.length < this.transport.compressionMinBytes
        ? "identity"
        : chooseContentCoding(x.acceptEncoding, reply.cacheKey !== undefined || identity.length <= BROTLI_MAX_BYTES);
    let etag: string | null = null;
    if (x.conditional && reply.status === 200) {
      etag = bodyEtag(identity, coding, reply.crc);
      if (ifNoneMatchHits(x.ifNoneMatch, etag)) {
        this.write(x, 304, null, null, "identity", null, x.snapshotVersion, etag, this.cacheControl(x));
        return;
      }
    }
    const body = coding === "identity" ? identity : (reply.compressed?.[coding] ?? this.compressedWhole(identity, coding, reply.cacheKey));
    this.write(x, reply.status, reply.contentType, body, coding, reply.headers ?? null, x.snapshotVersion, etag, this.cacheControl(x));
  }

  /** The data compressed for stitching: kept per snapshot and cache key, else made for this response. */
  private deflated(version: string | undefined, reply: DataReply, chunks: readonly Chunk[], dataLength: number): DeflatedPiece {
    const key = reply.cacheKey === undefined ? undefined : `${version}|${reply.cacheKey}`;
    if (key !== undefined) {
      const hit = this.kept.get(key);
      if (hit?.piece !== undefined) return hit.piece;
    }
    const piece = deflatePiece(dataLength === 0 ? Buffer.alloc(0) : Buffer.from(this.assemble(chunks)), key === undefined ? 1 : 6);
    if (key !== undefined) this.kept.set(key, { bytes: piece.deflated.length + 64, piece });
    return piece;
  }

  /** A whole body compressed: kept when it has a cache key (constant bytes). */
  private compressedWhole(identity: Uint8Array, coding: "gzip" | "br", cacheKey: string | undefined): Buffer {
    const key = cacheKey === undefined ? undefined : `${cacheKey}|${coding}`;
    if (key !== undefined) {
      const hit = this.kept.get(key);
      if (hit?.body !== undefined) return hit.body;
    }
    const body =
      coding === "gzip"
        ? gzipSync(identity, { level: key === undefined ? 1 : 9 })
        : brotli(identity, key === undefined ? BROTLI_QUALITY_PER_RESPONSE : BROTLI_QUALITY_KEPT);
    if (key !== undefined) this.kept.set(key, { bytes: body.length + 64, body });
    return body;
  }

  /**
   * @param body null for a response without a body (204, 304)
   * @param contentType null for a response without a body
   * @param extra headers of errors, preflights and the raw answers that carry their own (else null)
   * @param cacheControl null: none (preflights)
   */
  private write(
    x: Exchange,
    status: number,
    contentType: string | null,
    body: Uint8Array | null,
    coding: ContentCoding,
    extra: Record<string, string> | null,
    version: string | undefined,
    etag: string | null,
    cacheControl: CachePolicy | null,
    generatedAt?: string,
  ): void {
    if (x.aborted || x.responded) return;
    x.responded = true;
    let done: boolean;
    // Inside the uWS handler the response is corked already; later (after an await) it is corked here.
    if (x.corked) done = this.send(x, status, contentType, body, coding, extra, version, etag, cacheControl, generatedAt);
    else {
      done = true;
      x.res.cork(() => {
        done = this.send(x, status, contentType, body, coding, extra, version, etag, cacheControl, generatedAt);
      });
    }
    this.lifecycle.finished(x, status);
    if (done) this.settle(x);
    else this.hold(x, body!);
  }

  /**
   * The status line, the headers, the body; true when the socket took all of it. The head is one block
   * (see R_TRACE_ID), headers in this order: content-type, x-trace-id, x-snapshot-version,
   * x-data-generated-at, ratelimit-limit/-remaining/-reset, cache-control, vary, etag, the extra headers,
   * content-encoding, CORS; content-length (HEAD); connection: close (draining) or keep-alive.
   */
  private send(
    x: Exchange,
    status: number,
    contentType: string | null,
    body: Uint8Array | null,
    coding: ContentCoding,
    extra: Record<string, string> | null,
    version: string | undefined,
    etag: string | null,
    cacheControl: CachePolicy | null,
    generatedAt: string | undefined,
  ): boolean {
    const res = x.res;
    const close = this.lifecycle.closeConnections;
    const head = this.head;
    head.at = 0;
    head.bytes(this.statusRun(status, contentType));
    head.ascii(x.traceId);
    if (version !== undefined) head.bytes(this.versionRun(version, generatedAt));
    else if (generatedAt !== undefined) {
      head.bytes(R_DATA_GENERATED_AT);
      head.utf8(generatedAt);
    }
    const quota = x.quota;
    if (quota !== null) {
      head.bytes(this.limitRun(quota.limit));
      head.uint(quota.remaining);
      head.bytes(R_RATELIMIT_RESET);
      head.uint(quota.resetSeconds);
    }
    if (cacheControl !== null) head.bytes(this.cacheRuns[cacheControl]);
    if (etag !== null) {
      head.bytes(R_ETAG);
      head.ascii(etag);
    }
    if (extra !== null)
      for (const name in extra) {
        head.bytes(R_CRLF);
        head.utf8(name);
        head.bytes(R_COLON);
        head.utf8(extra[name]);
      }
    if (coding !== "identity") {
      head.bytes(R_CONTENT_ENCODING);
      head.utf8(coding);
    }
    if (x.corsOrigin !== null) {
      head.bytes(R_ALLOW_ORIGIN);
      head.utf8(x.corsOrigin);
      head.bytes(R_EXPOSE_HEADERS);
    }
    if (body === null || x.head) {
      // 204/304: no body and no Content-Length (endWithoutBody() writes none of its own); HEAD: the GET body's
      // length (given an argument, endWithoutBody() aborts the process).
      if (body !== null) {
        head.bytes(R_CONTENT_LENGTH);
        head.uint(body.length);
      }
      head.bytes(close ? R_CONNECTION_CLOSE : R_KEEP_ALIVE);
      res.writeStatus(head.view());
      res.endWithoutBody();
      return true;
    }
    if (!close) head.bytes(R_KEEP_ALIVE); // closing: uWS's end(…, true) writes its own Connection: close
    res.writeStatus(head.view());
    if (close) {
      res.end(body, true);
      return true;
    }
    return res.tryEnd(body, body.length)[1];
  }

  /** The status text, the content-type header and the trace id header's name. */
  private statusRun(status: number, contentType: string | null): Buffer {
    let runs = this.statusRuns.get(contentType);
    if (runs === undefined) this.statusRuns.set(contentType, (runs = []));
    let run = runs[status];
    if (run === undefined) {
      const type = contentType === null ? "" : `\r\ncontent-type: ${contentType}`;
      run = runs[status] = Buffer.concat([Buffer.from(`${STATUS_TEXT[status] ?? String(status)}${type}`), R_TRACE_ID]);
    }
    return run;
  }

  /** The x-snapshot-version header, and x-data-generated-at when given. */
  private versionRun(version: string, generatedAt: string | undefined): Buffer {
    const versionBytes = this.versionOf(version);
    const key = generatedAt ?? "";
    let run = this.versionRuns.get(key);
    if (run === undefined) {
      const parts = [R_SNAPSHOT_VERSION, versionBytes];
      if (generatedAt !== undefined) parts.push(R_DATA_GENERATED_AT, Buffer.from(generatedAt));
      run = Buffer.concat(parts);
      // A version's runs are one per chain; a bound all the same (a data-generated-at comes from the snapshot).
      if (this.versionRuns.size < 1024) this.versionRuns.set(key, run);
    }
    return run;
  }

  /** The ratelimit-limit header and the ratelimit-remaining header's name. */
  private limitRun(limit: number): Buffer {
    let run = this.limitRuns.get(limit);
    if (run === undefined) {
      run = Buffer.from(`\r\nratelimit-limit: ${limit}\r\nratelimit-remaining: `);
      if (this.limitRuns.size < 1024) this.limitRuns.set(limit, run);
    }
    return run;
  }

  /** The bytes of a snapshot version (remembered: consecutive responses carry the same one). */
  private versionOf(version: string): Buffer {
    if (version !== this.versionText) {
      this.versionText = version;
      this.versionBytes = bytes(version);
      this.versionRuns = new Map();
    }
    return this.versionBytes;
  }

  /** Keeps the unsent body until the socket drains, within the thread's cap. */
  private hold(x: Exchange, body: Uint8Array): void {
    x.watchAbort();
    if (this.heldBytes + body.length > this.limits.maxHeldBytes) {
      this.log.warn(
        { event: "connection-closed-backpressure", traceId: x.traceId, heldBytes: this.heldBytes },
        "closing a connection that does not read its responses: the thread's held-bytes cap is reached",
      );
      this.lifecycle.overloaded(x);
      x.res.close(); // runs the abort handler
      return;
    }
    const copy = Buffer.from(body); // the body buffer is reused by the next response
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

  /** The chunks alone in the body buffer (valid until the next use of it). */
  private assemble(chunks: readonly Chunk[]): Buffer {
    this.body.at = 0;
    return this.append(chunks, null);
  }

  /** The chunks, then `suffix`, after what the body buffer holds; all of it (valid until the next use of it). */
  private append(chunks: readonly Chunk[], suffix: Buffer | null): Buffer {
    const out = this.body;
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i];
      if (typeof c === "string") out.utf8(c);
      else out.bytes(c);
    }
    if (suffix !== null) out.bytes(suffix);
    return out.view();
  }
}

const CLOSE_BRACE = Buffer.from("}");

function crcOf(chunks: readonly Chunk[]): number {
  let crc = 0;
  for (let i = 0; i < chunks.length; i++) crc = crc32Continue(chunks[i], crc);
  return crc;
}

function brotli(body: Uint8Array, quality: number): Buffer {
  return brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: quality, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } });
}
