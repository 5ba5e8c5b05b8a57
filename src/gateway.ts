/**
 * Assembles a running gateway from its configuration: the supervisor and its
 * serving threads, the snapshot loader and its build workers, key reloading,
 * snapshot-version retention and metrics; and takes it down again.
 */
import { resolve } from "node:path";
import { KeyStore } from "./access/key-store.js";
import { loadKeysFile, type KeysFile } from "./access/keys-file.js";
import { KeysReloader } from "./access/keys-reloader.js";
import { createAddressTable } from "./access/address-table.js";
import { createQuotaCounters, QuotaSlots } from "./access/shared-rate-limiter.js";
import { PROJECT_ROOT, type GatewayConfig } from "./config/config.js";
import type { Logger } from "./log/logger.js";
import { GatewayMetrics } from "./metrics/gateway-metrics.js";
import { ROUTE_NAMES } from "./http/route-table.js";
import { RequestMetricsLayout } from "./metrics/request-metrics.js";
import { Supervisor } from "./server/supervisor.js";
import { SnapshotLoader } from "./snapshot/snapshot-loader.js";
import { VersionRetention } from "./snapshot/version-retention.js";
import { versionHex } from "./snapshot/snapshot-version.js";

export const WORKER_FILE = resolve(PROJECT_ROOT, "dist/workers/snapshot-worker.js");
export const SERVING_THREAD_FILE = resolve(PROJECT_ROOT, "dist/src/server/serving-thread.js");

export interface RunningGateway {
  readonly port: number;
  /** Settles when the files present at start have loaded or been rejected (the gateway is ready). */
  readonly initialLoad: Promise<void>;
  /** Replaces every serving thread, one at a time (SIGUSR2). */
  restartThreads(): Promise<void>;
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig, log: Logger): Promise<RunningGateway> {
  if (config.usingSampleKeys) {
    log.warn({ event: "sample-keys", file: config.apiKeysFile }, "API_KEYS_FILE is not set: using the bundled sample keys file (sandbox key). Do not run this in production.");
  }
  if (config.cursorSecretGenerated) {
    log.info({ event: "cursor-secret-generated" }, "CURSOR_SECRET is not set: cursors are signed with a random secret and will not survive a restart");
  }
  const keysFile = loadKeysFile(config.apiKeysFile);
  void new KeyStore(keysFile); // fail at start-up on duplicate ids or hashes

  const quotaCounters = createQuotaCounters(config.maxApiKeys);
  const quotaSlots = new QuotaSlots(config.maxApiKeys, quotaCounters);
  const slotsOf = (file: KeysFile) => quotaSlots.assign(file.keys.map((k) => k.id));
  const policy = { retainMs: config.cursorRetentionSeconds * 1000, maxVersions: config.snapshotMaxVersions };
  const versionUse = new SharedArrayBuffer(VersionRetention.slotsFor(policy) * Float64Array.BYTES_PER_ELEMENT);
  const retention = new VersionRetention(policy, versionUse);
  const metricsLayout = new RequestMetricsLayout(ROUTE_NAMES);
  const requestMetrics = metricsLayout.createBuffer();
  const metrics = new GatewayMetrics(metricsLayout, requestMetrics);

  const supervisor = new Supervisor(
    {
      threadFile: SERVING_THREAD_FILE,
      threads: config.threads,
      port: config.port,
      init: {
        host: config.host,
        logLevel: config.logLevel,
        cursorSecret: new Uint8Array(config.cursorSecret),
        keys: keysFile,
        keySlots: slotsOf(keysFile),
        defaultRateLimit: config.defaultRateLimit,
        quotaCounters,
        failedAuthLimit: config.failedAuthLimit,
        failedAuthCounters: createAddressTable(),
        publicRateLimit: config.publicRateLimit,
        publicRequestCounters: createAddressTable(),
        maxHeldResponseBytes: config.maxHeldResponseMb * 1024 * 1024,
        versionUse,
        requestMetrics,
      },
    },
    metrics,
    log,
  );
  const versionsChanged = () => metrics.versionsChanged(retention.current === null ? null : versionHex(retention.current), retention.versions().map(versionHex));

  const loader = new SnapshotLoader(
    {
      snapshotDir: config.snapshotDir,
      rebuildCron: config.rebuildCron,
      logoTemplate: config.tokenLogoTemplate,
      watchDebounceMs: config.watchDebounceMs,
      workerFile: WORKER_FILE,
      workerMaxOldGenerationMb: config.buildWorkerMaxMb,
      maxFutureSkewSeconds: config.snapshotMaxFutureSkewSeconds,
    },
    {
      snapshotBuilt(version, chains, tokenIndex) {
        const { slot, retired } = retention.promote(version);
        supervisor.publishSnapshot({ type: "snapshot", version, slot, chains, tokenIndex }, retired);
        versionsChanged();
        log.info({ event: "snapshot-swapped", version: versionHex(version), retired: retired.map(versionHex) }, `serving snapshot ${versionHex(version)}`);
      },
      chainAccepted: (info) => metrics.chainLoaded(info),
      fileRejected: (reason) => metrics.rejectedFiles.inc({ reason }),
      buildFailed: () => metrics.buildFailures.inc(),
      buildTimed: (phase, seconds) => metrics.buildDuration.observe({ phase }, seconds),
    },
    log,
  );
  const keysReloader = new KeysReloader(config.apiKeysFile, (file) => supervisor.publishKeys(file, slotsOf(file)), log, () => metrics.keysFileRejections.inc());

  const port = await supervisor.start();
  log.info({ event: "listening", host: config.host, port, threads: config.threads, keys: keysFile.keys.length }, `listening on ${config.host}:${port} with ${config.threads} serving threads`);
  keysReloader.start();
  const pruning = setInterval(() => {
    const retired = retention.prune();
    if (retired.length > 0) {
      supervisor.retire(retired);
      versionsChanged();
    }
  }, 5000);
  // Serving starts now; readiness (GET /ready) follows the initial load.
  const initialLoad = loader.start().then(() => supervisor.markReady());

  return {
    port,
    initialLoad,
    restartThreads: () => supervisor.restartThreads(),
    async stop() {
      clearInterval(pruning);
      keysReloader.stop();
      await supervisor.stop();
      await loader.stop();
    },
  };
}
