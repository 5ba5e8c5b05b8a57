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
  const chains = snapshot ? [...snapshot.chainIds] : [];
  const quotaStore = ctx.quotas.status(Date.now());
  // Refusing every keyed request (QUOTA_FAILURE=closed without Redis) is not ready: a load balancer should send traffic elsewhere.
  const ready = ctx.ready && !(quotaStore.state === "unavailable" && quotaStore.onFailure === "closed");
  const body = JSON.stringify({
    ready,
    version: snapshot?.versionHex ?? null,
    chains,
    quotaStore,
    position: snapshot?.changes.positionText ?? null,
  } satisfies ReadinessResponse);
  return rawJson(ready ? 200 : 503, body);
}

export async function getMetrics(request: RouteRequest): Promise<Reply> {
  const { contentType, text } = await request.ctx.fetchMetrics();
  return { kind: "raw", status: 200, contentType, body: text };
}
