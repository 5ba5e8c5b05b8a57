/** Public operations endpoints outside /v1: liveness, readiness, Prometheus metrics (not enveloped). */
import type { HealthResponse, ReadinessResponse } from "../../api/wire.js";
import { rawJson, type Reply } from "../reply.js";
import type { RouteRequest } from "../route.js";

const HEALTHY = Buffer.from(JSON.stringify({ status: "ok" } satisfies HealthResponse));

export function getHealth(): Reply {
  return rawJson(200, HEALTHY);
}

export function getReadiness(request: RouteRequest): Reply {
  const { ctx } = request;
  const snapshot = ctx.store.current;
  const chains = snapshot ? [...snapshot.chains.keys()].sort((a, b) => a - b) : [];
  const body = JSON.stringify({ ready: ctx.ready, version: snapshot?.versionHex ?? null, chains } satisfies ReadinessResponse);
  return rawJson(ctx.ready ? 200 : 503, body);
}

export async function getMetrics(request: RouteRequest): Promise<Reply> {
  const { contentType, text } = await request.ctx.fetchMetrics();
  return { kind: "raw", status: 200, contentType, body: text };
}
