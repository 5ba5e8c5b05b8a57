/** Public operations endpoints outside /v1: liveness, readiness, Prometheus metrics. */
import type { HealthResponse, ReadinessResponse } from "../../api/wire.js";
import type { GatewayContext } from "../gateway-context.js";
import type { RequestInfo } from "../request-info.js";
import { sendBody, sendJson, sendError, toApiError, trackAbort } from "../respond.js";
import type { HttpResponse } from "../uws.js";

const HEALTHY = JSON.stringify({ status: "ok" } satisfies HealthResponse);

export function serveHealth(res: HttpResponse, info: RequestInfo): void {
  sendJson(res, info, 200, HEALTHY);
}

export function serveReady(res: HttpResponse, info: RequestInfo, ctx: GatewayContext): void {
  const snapshot = ctx.store.current;
  const chains = snapshot ? [...snapshot.chains.keys()].sort((a, b) => a - b) : [];
  const body = JSON.stringify({ ready: ctx.ready, version: snapshot?.versionHex ?? null, chains } satisfies ReadinessResponse);
  sendJson(res, info, ctx.ready ? 200 : 503, body);
}

export function serveMetrics(res: HttpResponse, info: RequestInfo, ctx: GatewayContext): void {
  const state = trackAbort(res, info);
  ctx
    .fetchMetrics()
    .then(({ contentType, text }) => {
      if (!state.aborted) sendBody(res, info, 200, contentType, text);
    })
    .catch((error: unknown) => {
      ctx.log.error({ event: "metrics-failed", err: error }, "metrics rendering failed");
      if (!state.aborted) sendError(res, info, toApiError(error));
    });
}
