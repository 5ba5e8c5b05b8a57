/**
 * The one pipeline every request runs through (docs/architecture.md, "The
 * path of a request"): framing, route (from the route table), admission
 * (access/: a key, its quota and allow-lists; or the per-address limit of
 * public routes), the JSON body, the handler (sync or async), and one writer
 * for every outcome. Admission is synchronous with the memory quota store and
 * may continue asynchronously with a shared one (Redis): `later` is that
 * continuation, for an HTTP request and a WebSocket upgrade alike. Every throw
 * and rejection of any step lands in `fail`, once; nothing a request does can
 * reach the thread's last-resort handler.
 */
import { Admission, type PendingAdmission } from "../access/admission.js";
import { toApiError } from "../api/errors.js";
import { clientAddressReader } from "./client-address.js";
import { Exchange, hasKey } from "./exchange.js";
import type { GatewayContext } from "./gateway-context.js";
import { checkContentType, readJsonBody } from "./json-body.js";
import { FramingReader } from "./request-framing.js";
import type { Reply } from "./reply.js";
import { DEFAULT_TRANSPORT, ResponseWriter, type ResponseLifecycle, type TransportOptions, type WriterLimits } from "./response-writer.js";
import type { RouteSpec } from "./route.js";
import { Router } from "./router.js";
import type { CorsPolicy } from "./transport/cors.js";
import type { HttpRequest, HttpResponse } from "./uws.js";
import { handshakeOf, refuseHandshake } from "./websocket-handshake.js";
import type { IpRanges } from "../util/ip-address.js";

/** Route index of requests that are CORS preflights (a metrics label of its own). */
export const PREFLIGHT_ROUTE = -2;

/** The route of GET /v1/stream: also the WebSocket endpoint (`app.ws`), admitted as this route. */
export const STREAM_ROUTE = "stream.open";

const QUIET: ResponseLifecycle = { finished() {}, settled() {}, overloaded() {}, closeConnections: false };
export const DEFAULT_WRITER_LIMITS: WriterLimits = { maxHeldBytes: 64 * 1024 * 1024 };

export interface PipelineOptions {
  /** Called as each request arrives (the serving thread counts requests in flight). */
  readonly started?: () => void;
  readonly lifecycle?: ResponseLifecycle;
  readonly limits?: WriterLimits;
  /** Compression, conditional requests and CORS. */
  readonly transport?: TransportOptions;
  /** TRUSTED_PROXIES: peers whose forwarding headers and PROXY v2 frames name the client (client-address.ts); none when absent. */
  readonly trustedProxies?: IpRanges;
}

export class RequestPipeline {
  readonly router: Router;
  readonly writer: ResponseWriter;
  readonly admission: Admission<HttpResponse, HttpRequest>;
  /** Index of the stream route in the table (-1: none). */
  readonly streamIndex: number;
  private readonly framingReader = new FramingReader();
  private readonly started: () => void;
  private readonly cors: CorsPolicy | null;
  private readonly onAbort = (x: Exchange): void => this.writer.aborted(x);

  constructor(
    private readonly ctx: GatewayContext,
    readonly routes: readonly RouteSpec[],
    options: PipelineOptions = {},
  ) {
    this.router = new Router(routes);
    const transport = options.transport ?? DEFAULT_TRANSPORT;
    this.cors = transport.cors;
    this.writer = new ResponseWriter(options.lifecycle ?? QUIET, options.limits ?? DEFAULT_WRITER_LIMITS, transport, ctx.log);
    this.started = options.started ?? (() => {});
    this.admission = new Admission(ctx, clientAddressReader(options.trustedProxies ?? null));
    this.streamIndex = routes.findIndex((route) => route.name === STREAM_ROUTE);
  }

  /** uWS's catch-all handler: every HTTP request (and every GET of the stream path that uWS's `ws` behaviour yields). */
  readonly handle = (res: HttpResponse, req: HttpRequest): void => this.enter(res, req, this.admit);

  /**
   * What every request begins with, HTTP or WebSocket upgrade: it is counted as started, its Exchange is read
   * while the uWS request is valid (one that cannot even be read gets the fixed 500), then `step` runs inside
   * uWS's cork, where any throw becomes the one error answer.
   */
  enter(res: HttpResponse, req: HttpRequest, step: (x: Exchange, req: HttpRequest) => void): void {
    this.started();
    let x: Exchange;
    try {
      x = new Exchange(res, req, this.ctx, this.onAbort, this.cors);
    } catch (error) {
      this.ctx.log.error({ event: "request-failed", err: error }, "reading a request failed");
      ResponseWriter.fallback500(res);
      return;
    }
    x.corked = true;
    try {
      step(x, req);
    } catch (error) {
      this.fail(x, error);
    } finally {
      x.corked = false;
    }
  }

  /** Every throw and rejection of a request: logged when it is a fault of ours, answered once (unless the client left). */
  fail(x: Exchange, error: unknown): void {
    const apiError = toApiError(error);
    if (apiError.code === "UNKNOWN_ERROR")
      this.ctx.log.error(
        { event: "request-failed", traceId: x.traceId, route: x.routeName, path: x.url.slice(0, 200), err: error },
        "request failed",
      );
    if (x.aborted || x.responded) return;
    try {
      this.writer.error(x, apiError);
    } catch (writeError) {
      this.ctx.log.error({ event: "response-failed", traceId: x.traceId, err: writeError }, "writing an error response failed");
    }
  }

  /**
   * HTTP edge (request-framing.ts): a body of ambiguous length is refused before anything else, and the
   * connection closed at once (response-writer.ts): nothing after this request is read as another one.
   */
  checkFraming(x: Exchange, req: HttpRequest): void {
    const framing = this.framingReader.check(req);
    if (framing === null) return;
    x.closeConnection = true;
    throw framing;
  }

  /**
   * The continuation of a request whose admission a shared quota store decides later (QUOTA_STORE=redis). A
   * refused key is answered once its failed authentication is counted. Otherwise `prepare` runs now, while
   * the uWS request is valid (it takes what the rest needs of it: headers, the body, which uWS hands only to a
   * reader attached before the handler returns), and what it returns runs once the key is admitted (nothing
   * when the client went away first); its throw or rejection is the one error answer.
   */
  later(x: Exchange, pending: PendingAdmission, prepare: () => () => unknown): void {
    x.watchAbort();
    if (pending.refused) {
      pending.settled.catch((refusal: unknown) => this.fail(x, refusal));
      return;
    }
    const next = prepare();
    pending.settled.then((admitted) => (admitted ? next() : undefined)).catch((error: unknown) => this.fail(x, error));
  }

  /** The synchronous part: framing, route, admission, then the body (async) or the handler. */
  private readonly admit = (x: Exchange, req: HttpRequest): void => {
    this.checkFraming(x, req);
    const now = Date.now();
    if (x.method === "OPTIONS" && x.corsOrigin !== null && req.getHeader("access-control-request-method") !== "") {
      // A CORS preflight: no key; counted against the address's public budget.
      this.admission.public(x.res, req, now);
      const methods = this.router.methodsOf(x.url);
      if (methods === null) this.router.match(x.method, x.url); // throws ROUTE_NOT_FOUND
      x.routeIndex = PREFLIGHT_ROUTE;
      x.routeName = "preflight";
      this.writer.preflight(x, methods ?? []);
      return;
    }
    let match;
    try {
      match = this.router.match(x.method, x.url);
    } catch (notRouted) {
      // Requests no route takes need no key: they count against the address's public budget.
      this.admission.public(x.res, req, now);
      throw notRouted;
    }
    const route = this.router.route(match.index);
    x.routeIndex = match.index;
    x.routeName = route.name;
    x.params = match.params;
    // A WebSocket handshake uWS's `ws` behaviour did not take (it takes every GET with a 24-character key): malformed.
    if (match.index === this.streamIndex && x.method === "GET") refuseHandshake(handshakeOf(req));
    if (route.headers !== undefined) x.headers = readHeaders(req, route.headers);
    if (route.access === "public") {
      // Health probes are never refused for rate (their answers are pre-encoded: a flood of them costs the parse).
      if (route.probe !== true) this.admission.public(x.res, req, now);
    } else {
      const pending = this.admission.keyed(x, req.getHeader("authorization"), route.access, x.res, req, now);
      if (pending !== null) {
        this.later(x, pending, () => this.bodyThenRun(x, req, route));
        return;
      }
    }
    if (!route.body) {
      this.run(x, route);
      return;
    }
    checkContentType(req.getHeader("content-type"));
    x.watchAbort();
    readJsonBody(
      x,
      req.getHeader("content-length"),
      (body) => {
        x.body = body;
        this.run(x, route);
      },
      (error: unknown) => this.fail(x, error),
    );
  };

  /**
   * After a pending admission: the body is read now (uWS hands it only to a reader attached before the
   * handler returns); once the key is admitted the checks run in the same order as on the synchronous path.
   */
  private bodyThenRun(x: Exchange, req: HttpRequest, route: RouteSpec): () => unknown {
    if (!route.body) return () => this.run(x, route);
    const contentType = req.getHeader("content-type");
    const body = new Promise((resolve, reject) => readJsonBody(x, req.getHeader("content-length"), resolve, reject));
    body.catch(() => {}); // its outcome is answered after admission, or not at all
    return () => {
      checkContentType(contentType);
      return body.then((value) => {
        x.body = value;
        this.run(x, route);
      });
    };
  }

  /** The handler, and its reply (or its throw or rejection) written. */
  private run(x: Exchange, route: RouteSpec): void {
    let out: Reply | Promise<Reply>;
    try {
      if (route.access === "public") out = route.handler(x);
      else if (hasKey(x)) out = route.handler(x);
      else throw new Error(`keyed route ${route.name} reached without an admitted key`);
    } catch (error) {
      this.fail(x, error);
      return;
    }
    if (out instanceof Promise) {
      x.watchAbort();
      out.then(
        (reply) => this.respond(x, reply),
        (error: unknown) => this.fail(x, error),
      );
    } else this.respond(x, out);
  }

  private respond(x: Exchange, reply: Reply): void {
    try {
      this.writer.reply(x, reply);
    } catch (error) {
      this.fail(x, error);
    }
  }
}

/** The named request headers ("" when absent). */
function readHeaders(req: HttpRequest, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) out[name] = req.getHeader(name);
  return out;
}
