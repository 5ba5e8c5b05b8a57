/** Public operations endpoints outside /v1: liveness, readiness, Prometheus metrics (not enveloped). */
import type { HealthResponse } from "../../api/wire.js";
import { rawJson, type Reply } from "../reply.js";
import type { RouteRequest } from "../route.js";

const HEALTHY = Buffer.from(JSON.stringify({ status: "ok" } satisfies HealthResponse));

export function getHealth(): Reply {
  return rawJson(200, HEALTHY);
}

/** From bytes encoded once per state (snapshot, initial load, quota store): a probe costs no JSON. */
export function getReadiness(request: RouteRequest): Reply {
  const { ctx } = request;
  return ctx.readiness.of(ctx.store.current, ctx.ready, ctx.quotas.status(Date.now()));
}

export async function getMetrics(request: RouteRequest): Promise<Reply> {
  const { contentType, text } = await request.ctx.fetchMetrics();
  return { kind: "raw", status: 200, contentType, body: text };
}
