/**
 * The uWS application: one catch-all handler that reads the request, routes
 * it, authenticates data routes, and dispatches to the route handlers. Every
 * failure becomes the error envelope; nothing escapes as a dropped connection.
 */
import { authenticate } from "../access/authenticate.js";
import { rateLimitExceeded, rateLimitHeaders } from "../access/rate-limiter.js";
import { assertRouteAllowed } from "../access/restrictions.js";
import type { GatewayContext } from "./gateway-context.js";
import { checkRequestFraming } from "./request-framing.js";
import { readRequestInfo, type RequestInfo } from "./request-info.js";
import { sendError, toApiError } from "./respond.js";
import { matchRoute } from "./router.js";
import { serveHealth, serveMetrics, serveReady } from "./routes/operations.js";
import { serveOpenApi } from "./routes/openapi.js";
import { servePool } from "./routes/pools.js";
import { serveProtocols } from "./routes/protocols.js";
import { serveTokens } from "./routes/tokens.js";
import { uws, type HttpRequest, type HttpResponse, type TemplatedApp } from "./uws.js";

/** @param onRequest called as each request arrives (the serving thread counts requests in flight). */
export function createApp(ctx: GatewayContext, onRequest: () => void = () => {}): TemplatedApp {
  const app = uws.App() as unknown as TemplatedApp;
  return app.any("/*", (res: HttpResponse, req: HttpRequest) => {
    onRequest();
    const info = readRequestInfo(req);
    info.snapshotVersion = ctx.store.current?.versionHex;
    // HTTP edge (src/http/request-framing.ts): a body of ambiguous length is refused before routing, and the connection closed.
    const framing = checkRequestFraming(req, info.contentLength);
    if (framing !== null) {
      info.closeConnection = true;
      return sendError(res, info, framing);
    }
    try {
      dispatch(res, info, ctx, new Uint8Array(res.getRemoteAddress()));
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.code === "UNKNOWN_ERROR") ctx.log.error({ event: "request-failed", traceId: info.traceId, path: info.url, err: error }, "request failed");
      sendError(res, info, apiError);
    }
  }) as TemplatedApp;
}

/** @param address the client's address bytes (valid during this call only) */
function dispatch(res: HttpResponse, info: RequestInfo, ctx: GatewayContext, address: Uint8Array): void {
  const { route, params } = matchRoute(info.method, info.url);
  info.route = route;
  if (route === "health") return serveHealth(res, info);
  if (route === "ready") return serveReady(res, info, ctx);
  if (route === "openapi") return serveOpenApi(res, info);
  if (route === "metrics") return serveMetrics(res, info, ctx);
  const now = Date.now();
  ctx.failedAuth.assertNotBlocked(address, now);
  let key;
  try {
    key = authenticate(info.authorization, ctx.keys, now);
  } catch (error) {
    ctx.failedAuth.recordFailure(address, now);
    throw error;
  }
  const quota = ctx.rateLimiter.consume(key, now);
  info.responseHeaders = rateLimitHeaders(quota);
  if (!quota.allowed) throw rateLimitExceeded(quota);
  assertRouteAllowed(key, route);
  switch (route) {
    case "tokens":
      return serveTokens(res, info, ctx, key);
    case "pools":
      return servePool(res, info, ctx, key, params);
    case "protocols":
      return serveProtocols(res, info, ctx);
  }
}
