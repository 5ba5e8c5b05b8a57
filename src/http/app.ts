/**
 * The uWS application: one catch-all handler runs every request through one
 * pipeline — framing, route (from the route table), admission (access/: a key,
 * its quota and allow-lists; or the per-address limit of public routes), the
 * JSON body, the handler (sync or async) — and one writer answers every
 * outcome. Admission is synchronous with the memory quota store and may
 * continue asynchronously with a shared one (Redis). Every throw and rejection
 * of any step lands in `fail`, once; nothing a request does can reach the
 * thread's last-resort handler.
 */
import { maskedKeyOf } from "../access/authenticate.js";
import { Admission, type PendingAdmission } from "../access/admission.js";
import { ApiError, toApiError } from "../api/errors.js";
import { StreamConnection } from "../stream/stream-hub.js";
import { CLOSE_POLICY_VIOLATION, MESSAGE_RATE_REASON, POLICY_VIOLATION_REASON } from "../stream/close-codes.js";
import { MessageRates, type MessageVerdict } from "../stream/message-rate.js";
import { MAX_CLIENT_MESSAGE_BYTES, WS_IDLE_TIMEOUT_SECONDS } from "../stream/stream-limits.js";
import type { IpRanges } from "../util/ip-address.js";
import { clientAddressReader } from "./client-address.js";
import { errorObject } from "./envelope.js";
import { Exchange, hasKey } from "./exchange.js";
import type { GatewayContext } from "./gateway-context.js";
import { checkContentType, readJsonBody } from "./json-body.js";
import { FramingReader } from "./request-framing.js";
import type { Reply } from "./reply.js";
import { DEFAULT_TRANSPORT, ResponseWriter, type ResponseLifecycle, type TransportOptions, type WriterLimits } from "./response-writer.js";
import type { RouteSpec } from "./route.js";
import { ROUTES } from "./route-table.js";
import { Router } from "./router.js";
import { isNotJson, parseClientMessage, streamOpening, topicsFor, topicsWithout } from "./stream-input.js";
import { asksForWebSocket, handshakeRefusal, type HandshakeHeaders } from "./websocket-handshake.js";
import { uws, type HttpRequest, type HttpResponse, type TemplatedApp } from "./uws.js";
import type { us_socket_context_t, WebSocket } from "uWebSockets.js";

export interface AppOptions {
  /** Called as each request arrives (the serving thread counts requests in flight). */
  readonly started?: () => void;
  readonly lifecycle?: ResponseLifecycle;
  readonly limits?: WriterLimits;
  /** Compression, conditional requests and CORS. */
  readonly transport?: TransportOptions;
  /** Serve HTTPS with these files (uWS SSLApp); plain HTTP when absent. */
  readonly tls?: TlsFiles;
  /** The route table (tests may pass their own). */
  readonly routes?: readonly RouteSpec[];
  /** TRUSTED_PROXIES: peers whose forwarding headers and PROXY v2 frames name the client (client-address.ts); none when absent. */
  readonly trustedProxies?: IpRanges;
}

/** The files of an HTTPS listener (validated beforehand: src/config/tls-files.ts). */
export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly passphrase?: string;
  /** CA bundle uWS loads to request client certificates (mutual TLS). */
  readonly caFile?: string;
}

/** Route index of requests that are CORS preflights (a metrics label of its own). */
export const PREFLIGHT_ROUTE = -2;

const QUIET: ResponseLifecycle = { finished() {}, settled() {}, overloaded() {}, closeConnections: false };
export const DEFAULT_WRITER_LIMITS: WriterLimits = { maxHeldBytes: 64 * 1024 * 1024 };

/** The route of GET /v1/stream: also the WebSocket endpoint (`app.ws`), admitted as this route. */
export const STREAM_ROUTE = "stream.open";

export function createApp(ctx: GatewayContext, options: AppOptions = {}): TemplatedApp {
  const routes = options.routes ?? ROUTES;
  const router = new Router(routes);
  const transport = options.transport ?? DEFAULT_TRANSPORT;
  const writer = new ResponseWriter(options.lifecycle ?? QUIET, options.limits ?? DEFAULT_WRITER_LIMITS, transport, ctx.log);
  const started = options.started ?? (() => {});
  const onAbort = (x: Exchange) => writer.aborted(x);
  const admission = new Admission(ctx, clientAddressReader(options.trustedProxies ?? null));
  const framingReader = new FramingReader();
  const streamIndex = routes.findIndex((route) => route.name === STREAM_ROUTE);

  const fail = (x: Exchange, error: unknown): void => {
    const apiError = toApiError(error);
    if (apiError.code === "UNKNOWN_ERROR")
      ctx.log.error(
        { event: "request-failed", traceId: x.traceId, route: x.routeName, path: x.url.slice(0, 200), err: error },
        "request failed",
      );
    if (x.aborted || x.responded) return;
    try {
      writer.error(x, apiError);
    } catch (writeError) {
      ctx.log.error({ event: "response-failed", traceId: x.traceId, err: writeError }, "writing an error response failed");
    }
  };

  const respond = (x: Exchange, reply: Reply): void => {
    try {
      writer.reply(x, reply);
    } catch (error) {
      fail(x, error);
    }
  };

  const run = (x: Exchange, route: RouteSpec): void => {
    let out: Reply | Promise<Reply>;
    try {
      if (route.access === "public") out = route.handler(x);
      else if (hasKey(x)) out = route.handler(x);
      else throw new Error(`keyed route ${route.name} reached without an admitted key`);
    } catch (error) {
      fail(x, error);
      return;
    }
    if (out instanceof Promise) {
      x.watchAbort();
      out.then(
        (reply) => respond(x, reply),
        (error: unknown) => fail(x, error),
      );
    } else respond(x, out);
  };

  /** The synchronous part: framing, route, admission, then the body (async) or the handler. */
  const admit = (x: Exchange, req: HttpRequest): void => {
    // HTTP edge (request-framing.ts): a body of ambiguous length is refused before anything else, and the
    // connection closed at once (response-writer.ts): nothing after this request is read as another one.
    const framing = framingReader.check(req);
    if (framing !== null) {
      x.closeConnection = true;
      throw framing;
    }
    const now = Date.now();
    if (x.method === "OPTIONS" && x.corsOrigin !== null && req.getHeader("access-control-request-method") !== "") {
      // A CORS preflight: no key; counted against the address's public budget.
      admission.public(x.res, req, now);
      const methods = router.methodsOf(x.url);
      if (methods === null) router.match(x.method, x.url); // throws ROUTE_NOT_FOUND
      x.routeIndex = PREFLIGHT_ROUTE;
      x.routeName = "preflight";
      writer.preflight(x, methods ?? []);
      return;
    }
    let match;
    try {
      match = router.match(x.method, x.url);
    } catch (notRouted) {
      // Requests no route takes need no key: they count against the address's public budget.
      admission.public(x.res, req, now);
      throw notRouted;
    }
    const route = router.route(match.index);
    x.routeIndex = match.index;
    x.routeName = route.name;
    x.params = match.params;
    // A WebSocket handshake uWS's `ws` behaviour did not take (it takes every GET with a 24-character key): malformed.
    if (match.index === streamIndex && x.method === "GET") refuseHandshake(handshakeOf(req));
    if (route.headers !== undefined) x.headers = readHeaders(req, route.headers);
    if (route.access === "public") {
      // Health probes are never refused for rate (their answers are pre-encoded: a flood of them costs the parse).
      if (route.probe !== true) admission.public(x.res, req, now);
    } else {
      const pending = admission.keyed(x, req.getHeader("authorization"), route.access, x.res, req, now);
      if (pending !== null) {
        admitLater(x, req, route, pending);
        return;
      }
    }
    if (!route.body) {
      run(x, route);
      return;
    }
    checkContentType(req.getHeader("content-type"));
    x.watchAbort();
    readJsonBody(
      x,
      req.getHeader("content-length"),
      (body) => {
        x.body = body;
        run(x, route);
      },
      (error: unknown) => fail(x, error),
    );
  };

  /**
   * The rest of `admit` once a shared quota store has decided (QUOTA_STORE=redis).
   * Whatever the request needs from uWS is taken now: its headers, and its body
   * (unless the key is refused already), which uWS hands only to a reader
   * attached before the handler returns; the checks then run in the same order
   * as on the synchronous path.
   */
  const admitLater = (x: Exchange, req: HttpRequest, route: RouteSpec, pending: PendingAdmission): void => {
    x.watchAbort();
    if (pending.refused) {
      pending.settled.catch((refusal: unknown) => fail(x, refusal));
      return;
    }
    let contentType = "";
    let body: Promise<unknown> | null = null;
    if (route.body) {
      contentType = req.getHeader("content-type");
      const contentLength = req.getHeader("content-length");
      body = new Promise((resolve, reject) => readJsonBody(x, contentLength, resolve, reject));
      body.catch(() => {}); // its outcome is answered after admission, or not at all
    }
    pending.settled
      .then((admitted) => {
        if (!admitted) return;
        if (body === null) {
          run(x, route);
          return;
        }
        checkContentType(contentType);
        return body.then((value) => {
          x.body = value;
          run(x, route);
        });
      })
      .catch((error: unknown) => fail(x, error));
  };

  // ---------------------------------------------------------------- GET /v1/stream as a WebSocket (live.md §13)

  const hub = ctx.stream;

  /**
   * The upgrade request runs the pipeline of every keyed route (framing, admission as the stream route: key,
   * quota, `stream` group; then the query), and every refusal is a plain HTTP answer with the error envelope.
   * Only an admitted request is upgraded.
   */
  const upgradeStream = (res: HttpResponse, req: HttpRequest, context: us_socket_context_t, index: number): void => {
    const asked = handshakeOf(req);
    if (!asksForWebSocket(asked.upgrade)) {
      // Not a WebSocket request (RFC 9110 §7.8: never switch to a protocol the client did not list): an ordinary
      // GET, which uWS hands on to the route table's handler (server-sent events, or 406).
      req.setYield(true);
      return;
    }
    started();
    let x: Exchange;
    try {
      x = new Exchange(res, req, ctx, onAbort, transport.cors);
    } catch (error) {
      ctx.log.error({ event: "request-failed", err: error }, "reading a request failed");
      ResponseWriter.fallback500(res);
      return;
    }
    // The handshake fields res.upgrade negotiates from.
    const protocol = req.getHeader("sec-websocket-protocol");
    const extensions = req.getHeader("sec-websocket-extensions");
    x.corked = true;
    try {
      const framing = framingReader.check(req);
      if (framing !== null) {
        x.closeConnection = true;
        throw framing;
      }
      x.routeIndex = index;
      x.routeName = STREAM_ROUTE;
      refuseHandshake(asked); // before the key: a handshake that cannot succeed costs no quota
      const authorization = req.getHeader("authorization");
      const maskedKey = maskedKeyOf(authorization); // what the stream keeps of its key (never the key)
      const upgrade = () => {
        const key = x.key!;
        const opening = streamOpening(x.query, "", key, hub.limits.maxTopics);
        const slot = hub.keyStreams.take(key.id);
        let upgraded = false;
        try {
          const conn = new StreamConnection("websocket", key, maskedKey, slot, opening.topics, opening.since);
          upgraded = writer.upgrade(x, () => res.upgrade(conn, asked.key, protocol, extensions, context));
        } finally {
          if (!upgraded) hub.keyStreams.release(slot); // an upgraded socket gives its place back when it closes
        }
      };
      const pending = admission.keyed(x, authorization, "stream", res, req, Date.now());
      if (pending === null) upgrade();
      else {
        x.watchAbort();
        if (pending.refused) pending.settled.catch((refusal: unknown) => fail(x, refusal));
        else
          pending.settled
            .then((admitted) => {
              // On the next turn: never from inside a uWS callback of another connection (a continuation run in
              // its microtask checkpoint), where uWS would take this upgrade for that connection's.
              if (admitted)
                setImmediate(() => {
                  try {
                    upgrade();
                  } catch (error) {
                    fail(x, error);
                  }
                });
            })
            .catch((error: unknown) => fail(x, error));
      }
    } catch (error) {
      fail(x, error);
    } finally {
      x.corked = false;
    }
  };

  /** The message rate of this thread's WebSockets (per connection, per key), and the answers to the messages it refuses. */
  const rates = new MessageRates(hub.limits.maxMessagesPerSecond, hub.limits.maxKeyMessagesPerSecond);
  const refusals = messageRateRefusals(rates);

  /** A message past the rate: an `error` event instead of processing it; past twice the connection's rate, the close. */
  const refuseMessage = (ws: WebSocket<StreamConnection>, conn: StreamConnection, verdict: Exclude<MessageVerdict, "take">): void => {
    hub.sendError(conn, verdict === "refuse-key" ? refusals.key : refusals.connection);
    if (verdict !== "close") return;
    conn.closed = true;
    ws.end(CLOSE_POLICY_VIOLATION, MESSAGE_RATE_REASON);
  };

  /** A subscribe or unsubscribe message: `subscribed` with the whole topic list, or an `error` event (the connection stays). */
  const streamMessage = (ws: WebSocket<StreamConnection>, message: ArrayBuffer, isBinary: boolean): void => {
    const conn = ws.getUserData();
    if (conn.closed) return;
    const verdict = conn.rate === null ? "take" : rates.take(conn.rate, performance.now());
    if (verdict !== "take") {
      refuseMessage(ws, conn, verdict);
      return;
    }
    try {
      const parsed = parseClientMessage(message, isBinary);
      conn.badMessages = 0;
      const next =
        parsed.op === "subscribe"
          ? topicsFor(parsed.topics, conn.key, hub.limits.maxTopics, conn.topics)
          : topicsWithout(parsed.topics, conn.key, conn.topics);
      hub.setTopics(conn, next);
    } catch (error) {
      const apiError: ApiError = toApiError(error);
      if (apiError.code === "UNKNOWN_ERROR") ctx.log.error({ event: "stream-message-failed", err: error }, "a stream message failed");
      hub.sendError(conn, errorObject(apiError));
      // Any JSON message, of whatever shape, ends a run of messages that are not JSON.
      if (!isNotJson(apiError)) conn.badMessages = 0;
      else if (++conn.badMessages > hub.limits.maxBadMessages) {
        conn.closed = true;
        ws.end(CLOSE_POLICY_VIOLATION, POLICY_VIOLATION_REASON);
      }
    }
  };

  /** Nothing may throw out of a uWS callback: it would reach the thread's last-resort handler. */
  const guarded =
    <A extends unknown[]>(what: string, handler: (...args: A) => void) =>
    (...args: A): void => {
      try {
        handler(...args);
      } catch (error) {
        ctx.log.error({ event: "stream-callback-failed", callback: what, err: error }, "a stream callback failed");
      }
    };

  const tls = options.tls;
  const app = (tls === undefined
    ? uws.App()
    : uws.SSLApp({
        cert_file_name: tls.certFile,
        key_file_name: tls.keyFile,
        ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
        ...(tls.caFile === undefined ? {} : { ca_file_name: tls.caFile }),
      })) as unknown as TemplatedApp;
  app.any("/*", (res: HttpResponse, req: HttpRequest) => {
    started();
    let x: Exchange;
    try {
      x = new Exchange(res, req, ctx, onAbort, transport.cors);
    } catch (error) {
      ctx.log.error({ event: "request-failed", err: error }, "reading a request failed");
      ResponseWriter.fallback500(res);
      return;
    }
    x.corked = true;
    try {
      admit(x, req);
    } catch (error) {
      fail(x, error);
    } finally {
      x.corked = false;
    }
  });
  if (streamIndex >= 0) {
    // uWS takes a GET here only when it has a 24-character Sec-WebSocket-Key; `upgradeStream` yields those that do not
    // ask for a WebSocket to the handler above (SSE or 406), as uWS does with the others.
    app.ws<StreamConnection>(routes[streamIndex].path, {
      compression: uws.DISABLED,
      maxPayloadLength: MAX_CLIENT_MESSAGE_BYTES,
      // Past STREAM_MAX_BUFFER_BYTES of unsent bytes uWS drops a message and calls `dropped`: the hub closes the socket (4008).
      maxBackpressure: hub.limits.maxBufferBytes,
      closeOnBackpressureLimit: false,
      idleTimeout: WS_IDLE_TIMEOUT_SECONDS,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => upgradeStream(res, req, context, streamIndex),
      open: guarded("open", (ws: WebSocket<StreamConnection>) => {
        const conn = ws.getUserData();
        conn.rate = rates.opened(conn.key.record.sha256, performance.now());
        hub.openWebSocket(ws);
      }),
      message: guarded("message", streamMessage),
      dropped: guarded("dropped", (ws: WebSocket<StreamConnection>) => hub.dropped(ws)),
      drain: guarded("drain", (ws: WebSocket<StreamConnection>) => hub.drained(ws)),
      close: guarded("close", (ws: WebSocket<StreamConnection>) => {
        const conn = ws.getUserData();
        if (conn.rate !== null) rates.closed(conn.rate);
        conn.rate = null;
        hub.closed(conn);
      }),
    });
  }
  hub.attach(app);
  return app;
}

/** The `error` objects of messages refused for their rate (built once per thread: the same for every refusal). */
function messageRateRefusals(rates: MessageRates): { readonly connection: object; readonly key: object } {
  const refusal = (message: string) =>
    errorObject(
      new ApiError(
        "RATE_LIMIT_EXCEEDED",
        message,
        "WebSocket messages are limited per connection and per key (docs/stream.md, Message rate); a message may name many topics.",
        { retryAfterSeconds: 1 },
      ),
    );
  return {
    connection: refusal(
      `This connection sent more than ${rates.perConnection} messages within a second (STREAM_MAX_MESSAGES_PER_SECOND); this one was not processed. Wait a second: past ${2 * rates.perConnection} the connection is closed (1008).`,
    ),
    key: refusal(
      `This API key's streams sent more than ${rates.perKey} messages within a second (STREAM_MAX_KEY_MESSAGES_PER_SECOND); this one was not processed. Retry in a second.`,
    ),
  };
}

/** The WebSocket handshake's request headers. */
function handshakeOf(req: HttpRequest): HandshakeHeaders {
  return {
    upgrade: req.getHeader("upgrade"),
    connection: req.getHeader("connection"),
    key: req.getHeader("sec-websocket-key"),
    version: req.getHeader("sec-websocket-version"),
  };
}

/** Throws the refusal of a request that asks for a WebSocket with a handshake that cannot be switched (400, 426). */
function refuseHandshake(handshake: HandshakeHeaders): void {
  if (!asksForWebSocket(handshake.upgrade)) return;
  const refusal = handshakeRefusal(handshake);
  if (refusal !== null) throw refusal;
}

/** The named request headers ("" when absent). */
function readHeaders(req: HttpRequest, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) out[name] = req.getHeader(name);
  return out;
}
