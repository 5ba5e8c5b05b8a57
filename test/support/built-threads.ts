/**
 * The supervisor over the built serving threads (dist/src/server/serving-thread.js), run in the test's own process
 * so that a thread can be made to fail for real (test/supervisor/): the standard keys, 64 quota slots, generous
 * limits (1,000 requests a minute), no baskets, plain HTTP unless `tls` is given, port 0 (a free one).
 */
import { existsSync } from "node:fs";
import type { Logger } from "pino";
import { createAddressTable } from "../../src/access/address-table.js";
import { createConfirmedKeys } from "../../src/access/confirmed-keys.js";
import { loadKeysFile } from "../../src/access/keys-file.js";
import { createQuotaCounters, QuotaSlots } from "../../src/access/shared-rate-limiter.js";
import { SERVING_THREAD_FILE } from "../../src/gateway.js";
import { ROUTE_NAMES } from "../../src/http/route-table.js";
import { GatewayMetrics } from "../../src/metrics/gateway-metrics.js";
import { RequestMetricsLayout } from "../../src/metrics/request-metrics.js";
import { Supervisor, type ServingTls } from "../../src/server/supervisor.js";
import { standardKeys, writeKeysFile } from "./fixtures.js";

/** Fails at once, saying why, when the serving-thread module has not been built. */
export function expectBuiltThreads(): void {
  if (!existsSync(SERVING_THREAD_FILE)) throw new Error(`${SERVING_THREAD_FILE} missing: build first`);
}

/** A supervisor (not started) of `threads` built serving threads, and the metrics it reports into. */
export function supervisorOfBuiltThreads(options: { threads: number; log: Logger; tls?: ServingTls }): {
  supervisor: Supervisor;
  metrics: GatewayMetrics;
} {
  const keys = loadKeysFile(writeKeysFile(standardKeys()));
  const counters = createQuotaCounters(64);
  const layout = new RequestMetricsLayout(ROUTE_NAMES);
  const requestMetrics = layout.createBuffer();
  const metrics = new GatewayMetrics(layout, requestMetrics);
  const supervisor = new Supervisor(
    {
      threadFile: SERVING_THREAD_FILE,
      threads: options.threads,
      port: 0,
      init: {
        host: "127.0.0.1",
        logLevel: "silent",
        cursorSecret: new Uint8Array(32),
        keys,
        keySlots: new QuotaSlots(64, counters).assign(keys.keys.map((k) => k.id)),
        baskets: { baskets: [] },
        defaultRateLimit: { requests: 1000, windowSeconds: 60 },
        quotaCounters: counters,
        confirmedKeys: createConfirmedKeys(64),
        maxApiKeys: 64,
        quotaStore: { kind: "memory" },
        failedAuthLimit: { requests: 1000, windowSeconds: 60 },
        failedAuthCounters: createAddressTable(),
        publicRateLimit: { requests: 1000, windowSeconds: 60 },
        publicRequestCounters: createAddressTable(),
        maxHeldResponseBytes: 1 << 24,
        compressionMinBytes: 1024,
        compressionCacheBytes: 1 << 20,
        corsOrigins: "",
        trustedProxies: [],
        versionUse: new SharedArrayBuffer(8 * 8),
        requestMetrics,
      },
      ...(options.tls === undefined ? {} : { tls: options.tls }),
    },
    metrics,
    options.log,
  );
  return { supervisor, metrics };
}
