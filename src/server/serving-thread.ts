/**
 * A serving thread: one uWS app on the shared port, answering from the
 * snapshots the supervisor posts (shared memory, never copied). It drains on
 * request: stops accepting, finishes what is in flight, closes its listen
 * socket, then tells the supervisor.
 */
import { parentPort, threadId, workerData } from "node:worker_threads";
import { FailedAuthLimiter } from "../access/failed-auth-limiter.js";
import { KeyStore } from "../access/key-store.js";
import { SharedRateLimiter } from "../access/shared-rate-limiter.js";
import { createApp } from "../http/app.js";
import type { GatewayContext } from "../http/gateway-context.js";
import { setResponseHooks } from "../http/respond.js";
import { uws, type us_listen_socket } from "../http/uws.js";
import { createLogger } from "../log/logger.js";
import { RequestMetricsRecorder } from "../metrics/request-metrics.js";
import { CursorCodec } from "../query/cursor.js";
import { ServingSnapshot } from "../snapshot/serving-snapshot.js";
import { SnapshotStore } from "../snapshot/snapshot-store.js";
import type { ServingThreadInit, ServingThreadMessage, SupervisorMessage } from "./messages.js";

export interface ServingThreadData extends ServingThreadInit {
  /** This thread's slice of the shared request metrics. */
  readonly threadSlot: number;
}

const init = workerData as ServingThreadData;
const port = parentPort!;
const send = (message: ServingThreadMessage) => port.postMessage(message);
const log = createLogger(init.logLevel).child({ thread: init.threadSlot });

const rateLimiter = new SharedRateLimiter(init.quotaCounters, init.keySlots, init.defaultRateLimit);
const pendingMetrics = new Map<number, (text: string) => void>();
let nextMetricsRequest = 1;

const ctx: GatewayContext = {
  store: new SnapshotStore(init.versionUse),
  keys: new KeyStore(init.keys),
  rateLimiter,
  failedAuth: new FailedAuthLimiter(init.failedAuthCounters, init.failedAuthLimit),
  cursors: new CursorCodec(init.cursorSecret),
  log,
  ready: false,
  fetchMetrics: () =>
    new Promise((resolve) => {
      const requestId = nextMetricsRequest++;
      pendingMetrics.set(requestId, (text) => resolve({ contentType: "text/plain; version=0.0.4; charset=utf-8", text }));
      send({ type: "metrics-request", requestId });
    }),
};

const recorder = new RequestMetricsRecorder(init.requestMetrics, init.threadSlot);
let inFlight = 0;
let draining = false;
setResponseHooks({
  ended(info, status) {
    inFlight--;
    recorder.record(info.route, status, (performance.now() - info.startedAt) / 1000);
  },
  aborted() {
    inFlight--;
  },
  get closeConnections() {
    return draining;
  },
});

let lastRequestAt = 0;
const app = createApp(ctx, () => {
  inFlight++;
  lastRequestAt = Date.now();
});
// A thread that dies with open uWS sockets takes the whole process down; one
// that closes them first just ends, and the supervisor replaces it.
const fail = (error: unknown) => {
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
  const deadline = Date.now() + 4000;
  const check = () => {
    const busy = inFlight > 0 || Date.now() - lastRequestAt < DRAIN_QUIET_MS;
    if (busy && Date.now() <= deadline) {
      setTimeout(check, 10);
      return;
    }
    if (inFlight > 0) log.warn({ event: "drain-timeout", inFlight }, "requests still in flight at the drain deadline");
    app.close();
    send({ type: "drained" });
    port.close();
  };
  check();
}

port.on("message", (message: SupervisorMessage) => {
  switch (message.type) {
    case "snapshot":
      ctx.store.swap(new ServingSnapshot(message.version, message.chains, message.tokenIndex), message.slot);
      break;
    case "retire":
      ctx.store.retire(message.version);
      break;
    case "keys":
      ctx.keys = new KeyStore(message.keys);
      rateLimiter.setSlots(message.keySlots);
      break;
    case "ready":
      ctx.ready = true;
      break;
    case "metrics-text":
      pendingMetrics.get(message.requestId)?.(message.text);
      pendingMetrics.delete(message.requestId);
      break;
    case "drain":
      drain();
      break;
  }
});

log.debug({ event: "serving-thread-started", threadId }, "serving thread started");
