/**
 * The uWS application: one catch-all handler runs every request through one
 * pipeline — route (from the route table), access (a key, its quota and
 * allow-lists; or the per-address limit of public routes), the JSON body, the
 * handler (sync or async) — and one writer answers every outcome. Every throw
 * and rejection of any step lands in `fail`, once; nothing a request does can
 * reach the thread's last-resort handler.
 */
import { authenticate } from "../access/authenticate.js";
import { rateLimitExceeded } from "../access/rate-limiter.js";
import { assertRouteAllowed } from "../access/restrictions.js";
import { STATIC_500_BODY } from "./envelope.js";
import { toApiError } from "./errors.js";
import { Exchange } from "./exchange.js";
import type { GatewayContext } from "./gateway-context.js";
import { checkContentType, readJsonBody } from "./json-body.js";
import type { Reply } from "./reply.js";
import { ResponseWriter, type ResponseLifecycle, type WriterLimits } from "./response-writer.js";
import type { RouteSpec } from "./route.js";
import { ROUTES } from "./route-table.js";
import { Router } from "./router.js";
import { uws, type HttpRequest, type HttpResponse, type TemplatedApp } from "./uws.js";

export interface AppOptions {
  /** Called as each request arrives (the serving thread counts requests in flight). */
  readonly started?: () => void;
  readonly lifecycle?: ResponseLifecycle;
  readonly limits?: WriterLimits;
  /** The route table (tests may pass their own). */
  readonly routes?: readonly RouteSpec[];
}

const QUIET: ResponseLifecycle = { finished() {}, settled() {}, overloaded() {}, closeConnections: false };
export const DEFAULT_WRITER_LIMITS: WriterLimits = { maxHeldBytes: 64 * 1024 * 1024 };

export function createApp(ctx: GatewayContext, options: AppOptions = {}): TemplatedApp {
  const router = new Router(options.routes ?? ROUTES);
  const writer = new ResponseWriter(options.lifecycle ?? QUIET, options.limits ?? DEFAULT_WRITER_LIMITS, ctx.log);
  const started = options.started ?? (() => {});
  const onAbort = (x: Exchange) => writer.aborted(x);

  const fail = (x: Exchange, error: unknown): void => {
    const apiError = toApiError(error);
    if (apiError.code === "UNKNOWN_ERROR") ctx.log.error({ event: "request-failed", traceId: x.traceId, route: x.routeName, path: x.url.slice(0, 200), err: error }, "request failed");
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
      out = route.handler(x);
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

  /** The synchronous part: route, access, then the body (async) or the handler. */
  const admit = (x: Exchange, req: HttpRequest): void => {
    const now = Date.now();
    let match;
    try {
      match = router.match(x.method, x.url);
    } catch (notRouted) {
      // Requests no route takes need no key: they count against the address's public budget.
      ctx.publicRequests.take(clientAddress(x.res), now);
      throw notRouted;
    }
    const route = router.route(match.index);
    x.routeIndex = match.index;
    x.routeName = route.name;
    x.params = match.params;
    if (route.access === "public") {
      ctx.publicRequests.take(clientAddress(x.res), now);
    } else {
      const address = clientAddress(x.res);
      ctx.failedAuth.assertUnder(address, now);
      let key;
      try {
        key = authenticate(req.getHeader("authorization"), ctx.keys, now);
      } catch (error) {
        ctx.failedAuth.record(address, now);
        throw error;
      }
      x.key = key;
      const quota = ctx.rateLimiter.consume(key, now);
      x.quota = quota;
      if (!quota.allowed) throw rateLimitExceeded(quota);
      assertRouteAllowed(key, route.access);
    }
    if (!route.body) {
      run(x, route);
      return;
    }
    checkContentType(req.getHeader("content-type"));
    x.watchAbort();
    readJsonBody(x, req.getHeader("content-length")).then(
      (body) => {
        x.body = body;
        run(x, route);
      },
      (error: unknown) => fail(x, error),
    );
  };

  const app = uws.App() as unknown as TemplatedApp;
  return app.any("/*", (res: HttpResponse, req: HttpRequest) => {
    started();
    let x: Exchange;
    try {
      x = new Exchange(res, req, ctx, onAbort);
    } catch (error) {
      ctx.log.error({ event: "request-failed", err: error }, "reading a request failed");
      res.writeStatus("500 Internal Server Error").writeHeader("content-type", "application/json; charset=utf-8").end(STATIC_500_BODY);
      return;
    }
    try {
      admit(x, req);
    } catch (error) {
      fail(x, error);
    }
  }) as TemplatedApp;
}

/** The peer's address bytes (4 for IPv4, 16 for IPv6). */
function clientAddress(res: HttpResponse): Uint8Array {
  return new Uint8Array(res.getRemoteAddress());
}
