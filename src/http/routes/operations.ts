/** Public operations endpoints outside /v1: liveness and readiness. */
import type { GatewayContext } from "../gateway-context.js";
import type { RequestInfo } from "../request-info.js";
import { sendJson } from "../respond.js";
import type { HttpResponse } from "../uws.js";

export function serveHealth(res: HttpResponse, info: RequestInfo): void {
  sendJson(res, info, 200, '{"status":"ok"}');
}

export function serveReady(res: HttpResponse, info: RequestInfo, ctx: GatewayContext): void {
  const snapshot = ctx.store.current;
  const body = JSON.stringify({ ready: ctx.ready, version: snapshot?.versionHex ?? null, chains: snapshot ? [...snapshot.chains.keys()] : [] });
  sendJson(res, info, ctx.ready ? 200 : 503, body);
}
