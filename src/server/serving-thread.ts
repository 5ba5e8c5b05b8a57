/**
 * A serving thread: one uWS app on the shared port, answering from the
 * snapshots the supervisor posts (shared memory, never copied). It drains on
 * request: stops accepting, finishes what is in flight, closes its listen
 * socket, then tells the supervisor.
 */
import { parentPort, threadId, workerData } from "node:worker_threads";
import { RedisQuotaStore } from "../access/redis-quota-store.js";
import { createApp } from "../http/app.js";
import { createGatewayContext } from "../http/gateway-context.js";
import { ASYNCAPI_DOCUMENT } from "../http/handlers/openapi.js";
import { OPENAPI_DOCUMENT, ROUTE_NAMES } from "../http/route-table.js";
import { CorsPolicy } from "../http/transport/cors.js";
import { uws, type us_listen_socket } from "../http/uws.js";
import { createLogger } from "../log/logger.js";
import { RequestMetricsLayout, RequestMetricsRecorder } from "../metrics/request-metrics.js";
import { IpRanges } from "../util/ip-address.js";
import type { FleetAnswer } from "../origin/fleet-view.js";
import {
  FLEET_REPLY_TIMEOUT_MS,
  METRICS_REPLY_TIMEOUT_MS,
  type ServingThreadInit,
  type ServingThreadMessage,
  type SupervisorMessage,
} from "./messages.js";
import { ThreadUpdates } from "./thread-updates.js";

export interface ServingThreadData extends ServingThreadInit {
  /** This thread's slice of the shared request metrics. */
  readonly threadSlot: number;
}

const init = workerData as ServingThreadData;
const port = parentPort!;
const send = (message: ServingThreadMessage) => port.postMessage(message);
const log = createLogger(init.logLevel).child({ thread: init.threadSlot });

const recorder = new RequestMetricsRecorder(new RequestMetricsLayout(ROUTE_NAMES), init.requestMetrics, init.threadSlot);
/** /metrics requests waiting for the supervisor's text, by request id. */
const pendingMetrics = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
let nextMetricsRequest = 1;

/** GET /v1/status/fleet requests waiting for the supervisor's answer, by request id. */
const pendingFleet = new Map<number, { resolve: (answer: FleetAnswer) => void; timer: NodeJS.Timeout }>();
let nextFleetRequest = 1;

const quotaStore = init.quotaStore;
const ctx = createGatewayContext(init, {
  log,
  quotaStore:
    quotaStore.kind === "redis"
      ? (local) =>
          new RedisQuotaStore(
            { ...quotaStore, failedAuthLimit: init.failedAuthLimit, defaultRateLimit: init.defaultRateLimit, maxKeys: init.maxApiKeys },
            local,
            log,
            () => recorder.count("quota-store-error"),
          )
      : undefined,
  addressTableFull: () => recorder.count("address-table-full"),
  historyAnswer: (hit) => recorder.count(hit ? "history-answer-hit" : "history-answer-miss"),
  streamMetrics: recorder,
  fetchMetrics: () =>
    new Promise((resolve, reject) => {
      const requestId = nextMetricsRequest++;
      const timer = setTimeout(() => {
        pendingMetrics.delete(requestId);
        reject(new Error(`the supervisor did not render the metrics within ${METRICS_REPLY_TIMEOUT_MS} ms`));
      }, METRICS_REPLY_TIMEOUT_MS);
      pendingMetrics.set(requestId, {
        resolve: (text) => resolve({ contentType: "text/plain; version=0.0.4; charset=utf-8", text }),
        reject,
        timer,
      });
      send({ type: "metrics-request", requestId });
    }),
  fetchFleet: () =>
    new Promise((resolve) => {
      const requestId = nextFleetRequest++;
      const timer = setTimeout(() => {
        pendingFleet.delete(requestId);
        resolve({ kind: "unavailable", reason: "redis-unreachable" });
      }, FLEET_REPLY_TIMEOUT_MS);
      pendingFleet.set(requestId, { resolve, timer });
      send({ type: "fleet-request", requestId });
    }),
});
const quotas = ctx.quotas;

let inFlight = 0;
let draining = false;
let lastRequestAt = 0;
const app = createApp(ctx, {
  started() {
    inFlight++;
    lastRequestAt = Date.now();
  },
  lifecycle: {
    finished(x, status) {
      recorder.record(x.routeIndex, status, (performance.now() - x.startedAt) / 1000);
    },
    settled() {
      inFlight--;
    },
    overloaded() {
      recorder.count("backpressure-close");
    },
    get closeConnections() {
      return draining;
    },
  },
  limits: { maxHeldBytes: init.maxHeldResponseBytes },
  transport: {
    compressionMinBytes: init.compressionMinBytes,
    compressionCacheBytes: init.compressionCacheBytes,
    cors: init.corsOrigins === "" ? null : CorsPolicy.parse(init.corsOrigins),
  },
  ...(init.tls === null ? {} : { tls: init.tls }),
  ...(init.trustedProxies.length === 0 ? {} : { trustedProxies: IpRanges.parse(init.trustedProxies.join(",")) }),
});
OPENAPI_DOCUMENT.encoded(); // built now, not on the first request
ASYNCAPI_DOCUMENT.encoded();
// A thread that dies with open uWS sockets takes the whole process down; one
// that closes them first just ends, and the supervisor replaces it.
const fail = (error: unknown) => {
  recorder.count("uncaught");
  log.fatal({ event: "serving-thread-fatal", err: error }, "serving thread failed; closing its sockets and exiting");
  try {
    app.close();
  } finally {
    process.exit(1);
  }
};
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);

let listenSocket: us_listen_socket | null = null;
app.listen(init.host, init.port, (socket) => {
  if (!socket) {
    send({ type: "listen-failed", reason: `cannot listen on ${init.host}:${init.port}` });
    return;
  }
  listenSocket = socket;
  send({ type: "listening", port: uws.us_socket_local_port(socket) });
});

/** Quiet time after which a draining thread closes its idle connections. */
const DRAIN_QUIET_MS = 250;

/**
 * Stops accepting (the listen socket closes; other threads keep the port),
 * answers what is in flight and whatever still arrives on open connections
 * with `Connection: close`, and once nothing is in flight and no request came
 * for a moment, closes every remaining connection and lets the thread end.
 * Clients that reuse a connection are told to reconnect instead of finding it
 * closed under them.
 */
function drain(): void {
  draining = true;
  if (listenSocket) uws.us_listen_socket_close(listenSocket);
  listenSocket = null;
  // Streams end first, after what is enqueued for them (WebSocket 1001, SSE end of response).
  ctx.stream.closeAll();
  const deadline = Date.now() + 4000;
  const check = () => {
    const busy = inFlight > 0 || Date.now() - lastRequestAt < DRAIN_QUIET_MS;
    if (busy && Date.now() <= deadline) {
      setTimeout(check, 10);
      return;
    }
    if (inFlight > 0) log.warn({ event: "drain-timeout", inFlight }, "requests still in flight at the drain deadline");
    app.close();
    void quotas.close().finally(() => {
      send({ type: "drained" });
      port.close();
    });
  };
  check();
}

const updates = new ThreadUpdates(ctx, send);

port.on("message", (message: SupervisorMessage) => {
  switch (message.type) {
    case "metrics-text": {
      const pending = pendingMetrics.get(message.requestId);
      if (pending === undefined) break;
      clearTimeout(pending.timer);
      pendingMetrics.delete(message.requestId);
      pending.resolve(message.text);
      break;
    }
    case "metrics-failed": {
      // Answered at once as a server fault (the envelope says nothing of why; the supervisor logged it).
      const pending = pendingMetrics.get(message.requestId);
      if (pending === undefined) break;
      clearTimeout(pending.timer);
      pendingMetrics.delete(message.requestId);
      pending.reject(new Error("the supervisor could not render the metrics"));
      break;
    }
    case "fleet-answer": {
      const pending = pendingFleet.get(message.requestId);
      if (pending === undefined) break;
      clearTimeout(pending.timer);
      pendingFleet.delete(message.requestId);
      pending.resolve(message.answer);
      break;
    }
    case "drain":
      drain();
      break;
    case "snapshot":
    case "publish":
    case "retire":
    case "release-pools":
    case "keys":
    case "baskets":
    case "ready":
    case "origin":
      updates.apply(message); // what the message means to the thread's data (thread-updates.ts)
      break;
  }
});

log.debug({ event: "serving-thread-started", threadId }, "serving thread started");
