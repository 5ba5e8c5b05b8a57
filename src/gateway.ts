/**
 * Assembles a running gateway from its configuration: the supervisor and its
 * serving threads, the snapshot loader and its build workers, key reloading,
 * snapshot-version retention and metrics; and takes it down again.
 */
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { KeyStore } from "./access/key-store.js";
import { loadKeysFile, type KeysFile } from "./access/keys-file.js";
import { KeysReloader } from "./access/keys-reloader.js";
import type { BasketsFile } from "./baskets/basket-file.js";
import { BasketsReloader, loadInitialBaskets } from "./baskets/baskets-reloader.js";
import { createAddressTable } from "./access/address-table.js";
import { createConfirmedKeys } from "./access/confirmed-keys.js";
import { createQuotaCounters, QuotaSlots } from "./access/shared-rate-limiter.js";
import { createStreamCounters } from "./stream/key-streams.js";
import { historyOptions, PROJECT_ROOT, type GatewayConfig, type OriginConfig } from "./config/config.js";
import type { FileVerdict } from "./origin/apply-generation.js";
import { fleetData, FleetView, type FleetAnswer } from "./origin/fleet-view.js";
import { createOriginReader } from "./origin/origin-reader.js";
import { OriginPuller } from "./origin/origin-puller.js";
import { originErrorWire, staleSeconds } from "./origin/origin-status.js";
import type { AttemptOutcome } from "./snapshot/file-attempts.js";
import type { ReloadResult } from "./util/file-reloader.js";
import { allocatorWarning, runsOnGlibc } from "./config/allocator.js";
import { setHeaderSizeLimit } from "./http/header-limit.js";
import type { Logger } from "./log/logger.js";
import { GatewayMetrics, type OriginMetrics } from "./metrics/gateway-metrics.js";
import { ROUTE_NAMES } from "./http/route-table.js";
import { RequestMetricsLayout } from "./metrics/request-metrics.js";
import { holdTlsFiles, TLS_SETTING_NAMES } from "./config/tls-files.js";
import { CertificateWatcher } from "./server/certificate-watcher.js";
import { SnapshotPublisher } from "./server/snapshot-publisher.js";
import { ServingLoadMeter } from "./server/serving-load-meter.js";
import { Supervisor } from "./server/supervisor.js";
import { SnapshotLoader } from "./snapshot/snapshot-loader.js";
import { VersionRetention, VersionUseTable } from "./serving/version-retention.js";
import { ChangeHistoryKeeper } from "./serving/change-history.js";
import { HistoryFeed } from "./history/history-feed.js";

export const WORKER_FILE = resolve(PROJECT_ROOT, "dist/workers/snapshot-worker.js");
export const SERVING_THREAD_FILE = resolve(PROJECT_ROOT, "dist/src/server/serving-thread.js");
export const HISTORY_THREAD_FILE = resolve(PROJECT_ROOT, "dist/src/history/history-thread.js");

export interface RunningGateway {
  readonly port: number;
  /** Settles when the files present at start have loaded or been rejected (the gateway is ready). */
  readonly initialLoad: Promise<void>;
  /** Replaces every serving thread, one at a time (SIGUSR2); the new threads load the TLS files in force. */
  restartThreads(): Promise<void>;
  /** Rechecks the TLS files and replaces the serving threads when they pass (SIGHUP); false when not applied or no HTTPS. */
  reloadTls(): Promise<boolean>;
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig, log: Logger): Promise<RunningGateway> {
  const allocator = allocatorWarning(process.env, runsOnGlibc());
  if (allocator !== null) log.warn({ event: "allocator-settings" }, allocator);
  if (config.usingSampleKeys) {
    log.warn(
      { event: "sample-keys", file: config.apiKeysFile },
      "API_KEYS_FILE is not set: using the bundled sample keys file (sandbox key). Do not run this in production.",
    );
  }
  if (config.cursorSecretGenerated) {
    log.info(
      { event: "cursor-secret-generated" },
      "CURSOR_SECRET is not set: cursors are signed with a random secret and will not survive a restart",
    );
  }
  if (config.trustedProxies.length > 0) {
    log.info(
      { event: "trusted-proxies", ranges: config.trustedProxies },
      `client addresses are read from X-Forwarded-For, Forwarded and PROXY v2 when the peer is in TRUSTED_PROXIES (${config.trustedProxies.length} ranges)`,
    );
  }
  const keysFile = initialKeys(config, log);
  void new KeyStore(keysFile); // fail at start-up on duplicate ids or hashes
  setHeaderSizeLimit(config.maxHeaderBytes); // before any serving thread loads uWS

  const quotaCounters = createQuotaCounters(config.maxApiKeys);
  const confirmedKeys = createConfirmedKeys(config.maxApiKeys);
  const quotaSlots = new QuotaSlots(config.maxApiKeys, quotaCounters, confirmedKeys);
  const slotsOf = (file: KeysFile) => quotaSlots.assign(file.keys.map((k) => k.id));
  const policy = { retainMs: config.cursorRetentionSeconds * 1000, maxVersions: config.snapshotMaxVersions };
  const versionUse = VersionUseTable.create(VersionRetention.slotsFor(policy));
  const retention = new VersionRetention(policy, versionUse);
  const changeHistory = new ChangeHistoryKeeper({ ...config.changesRetention, maxBytes: config.changesMaxBytes });
  const metricsLayout = new RequestMetricsLayout(ROUTE_NAMES);
  const requestMetrics = metricsLayout.createBuffer();
  const metrics = new GatewayMetrics(metricsLayout, requestMetrics);
  const basketsRejected = () => metrics.basketsFileRejections.inc();
  const baskets = loadInitialBaskets(config.basketsFile, log, basketsRejected, config.basketsFileMaxBytes);
  // The TLS files the serving threads load, checked and held open (config.ts checked them too, at parse time).
  const tls = config.tls === null ? null : holdTlsFiles(config.tls, TLS_SETTING_NAMES);
  metrics.baskets.set(baskets.baskets.length);
  const historyStore = historyOptions(config);
  const historyFeed = config.history === "on" ? new HistoryFeed(HISTORY_THREAD_FILE, historyStore, log) : null;
  historyFeed?.start();
  metrics.watchHistory(historyFeed?.status ?? null);

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
        baskets,
        defaultRateLimit: config.defaultRateLimit,
        quotaCounters,
        confirmedKeys,
        maxApiKeys: config.maxApiKeys,
        quotaStore: config.quotaStore,
        failedAuthLimit: config.failedAuthLimit,
        failedAuthCounters: createAddressTable(),
        publicRateLimit: config.publicRateLimit,
        publicRequestCounters: createAddressTable(),
        maxHeldResponseBytes: config.maxHeldResponseMb * 1024 * 1024,
        compressionMinBytes: config.compressionMinBytes,
        compressionCacheBytes: config.compressionCacheMb * 1024 * 1024,
        corsOrigins: config.corsOrigins,
        trustedProxies: config.trustedProxies,
        versionUse: versionUse.buffer,
        requestMetrics,
        streamCounters: createStreamCounters(config.maxApiKeys),
        streamLimits: config.stream,
        history:
          historyFeed === null
            ? null
            : {
                dir: historyStore.dir,
                retention: historyStore.retention,
                status: historyFeed.status.buffer,
                answerCacheBytes: config.historyAnswerCacheMb * 1024 * 1024,
              },
      },
      tls,
      fleet: () => origin?.fleet() ?? Promise.resolve({ kind: "unavailable", reason: "no-origin" }),
    },
    metrics,
    log,
  );
  const publisher = new SnapshotPublisher({ retention, changeHistory, supervisor, metrics, log });
  const servingLoad = new ServingLoadMeter(() => supervisor.serving().map((t) => t.worker));

  const loader = new SnapshotLoader(
    {
      snapshotDir: config.snapshotDir,
      rebuildCron: config.rebuildCron,
      logoTemplate: config.tokenLogoTemplate,
      watchDebounceMs: config.watchDebounceMs,
      workerFile: WORKER_FILE,
      workerMaxOldGenerationMb: config.buildWorkerMaxMb,
      startBuilds: config.buildStartWorkers,
      workerNice: config.buildWorkerNice,
      workerIdleS: config.buildWorkerIdleSeconds,
      workersKept: config.buildWorkersKept,
      freshnessTargetS: config.freshnessTargetSeconds,
      servingLoad: () => servingLoad.load(),
      maxFutureSkewSeconds: config.snapshotMaxFutureSkewSeconds,
      maxFileBytes: config.snapshotFileMaxBytes,
    },
    {
      snapshotBuilt: (version, chains, tokenIndex, changeSets) => {
        const servedAtMs = Date.now();
        // History observes the files once every serving thread swapped them in: posting them (a copy of the change
        // sets) and writing them never take a core from a swap; nothing waits for history.
        const observe = historyFeed === null ? undefined : () => historyFeed.published(chains, changeSets, servedAtMs);
        publisher.built(version, chains, tokenIndex, changeSets, observe);
      },
      chainAccepted: (info) => metrics.chainLoaded(info),
      fileRejected: (reason) => metrics.rejectedFiles.inc({ reason }),
      buildFailed: () => metrics.buildFailures.inc(),
      buildTimed: (phase, seconds) => metrics.buildDuration.observe({ phase }, seconds),
      buildWaited: (seconds, niceness) => metrics.buildWait.observe({ priority: String(niceness) }, seconds),
    },
    log,
  );
  const keysReloader = new KeysReloader(config.apiKeysFile, (file) => supervisor.publishKeys(file, slotsOf(file)), log, {
    rejected: () => metrics.keysFileRejections.inc(),
    maxBytes: config.keysFileMaxBytes,
  });

  const basketsReloader = new BasketsReloader(
    config.basketsFile,
    (file: BasketsFile) => {
      supervisor.publishBaskets(file);
      metrics.baskets.set(file.baskets.length);
    },
    log,
    { rejected: basketsRejected, maxBytes: config.basketsFileMaxBytes },
  );

  const certificates =
    config.tls === null || tls === null
      ? null
      : new CertificateWatcher(
          config.tls,
          tls,
          (held) => supervisor.replaceTls(held),
          log,
          () => metrics.tlsReloadRejections.inc(),
        );

  const origin: RunningOrigin | null =
    config.origin === null
      ? null
      : wireOrigin(config, config.origin, {
          loader,
          keysReloader,
          basketsReloader,
          supervisor,
          metrics: metrics.enableOrigin(() => (origin === null ? 0 : staleSeconds(origin.puller.status, Date.now()))),
          position: () => publisher.position,
          log,
        });
  // Before the first scan: the local copy's files are checked against its manifest (what differs is not served).
  const restored = origin === null ? false : await origin.puller.restore();

  const port = await supervisor.start();
  origin?.listen(port);
  const quotaStore = config.quotaStore.kind === "redis" ? `redis (QUOTA_FAILURE=${config.quotaStore.failure})` : "memory";
  certificates?.start();
  log.info(
    {
      event: "listening",
      host: config.host,
      port,
      threads: config.threads,
      keys: keysFile.keys.length,
      protocol: config.tls === null ? "http" : "https",
      quotaStore,
    },
    `listening on ${config.tls === null ? "http" : "https"}://${config.host}:${port} with ${config.threads} serving threads; quotas counted in ${quotaStore}`,
  );
  keysReloader.start();
  basketsReloader.start();
  publisher.start();
  // Serving starts now; readiness (GET /ready) follows the initial load (and, pulling from an origin, a verified local
  // copy with ORIGIN_READY=cached, else a successful poll). The first poll runs beside the first scan.
  origin?.puller.start();
  const initialLoad = Promise.all([loader.start(), origin?.ready]).then(() => supervisor.markReady());
  if (origin !== null && !restored)
    log.info(
      { event: "origin-waiting", origin: config.origin!.location.display },
      `no verified local copy of ${config.origin!.location.display}: not ready until a poll of it succeeds`,
    );

  return {
    port,
    initialLoad,
    restartThreads: () => supervisor.restartThreads(),
    reloadTls: () => certificates?.check(true) ?? Promise.resolve(false),
    async stop() {
      publisher.stop();
      servingLoad.stop();
      await origin?.stop();
      certificates?.stop();
      keysReloader.stop();
      basketsReloader.stop();
      await supervisor.stop();
      await loader.stop();
      await historyFeed?.stop();
    },
  };
}

/** The keys in force at start: the file's; with an origin that has not brought it yet, none (logged). */
function initialKeys(config: GatewayConfig, log: Logger): KeysFile {
  if (config.origin !== null && !existsSync(config.apiKeysFile)) {
    log.warn(
      { event: "keys-file-absent", file: config.apiKeysFile },
      `${config.apiKeysFile} is not there yet: no API key is accepted until the origin brings the keys file`,
    );
    return { keys: [] };
  }
  return loadKeysFile(config.apiKeysFile, config.keysFileMaxBytes);
}

interface RunningOrigin {
  readonly puller: OriginPuller;
  /** Settles once the origin's side of readiness is met (OriginPuller's `ready`). */
  readonly ready: Promise<void>;
  /** Once the port is known (the default instance id names it): the fleet view and the pokes. */
  listen(port: number): void;
  fleet(): Promise<FleetAnswer>;
  stop(): Promise<void>;
}

interface OriginParts {
  readonly loader: SnapshotLoader;
  readonly keysReloader: KeysReloader;
  readonly basketsReloader: BasketsReloader;
  readonly supervisor: Supervisor;
  readonly metrics: OriginMetrics;
  /** The position served now. */
  readonly position: () => string | null;
  readonly log: Logger;
}

/**
 * Pulling from an origin (docs/fleet.md): the puller, its verdicts from the loader and the reloaders, its status
 * to the serving threads and the metrics, and with Redis the fleet view (written after every poll) and the pokes.
 */
function wireOrigin(config: GatewayConfig, settings: OriginConfig, parts: OriginParts): RunningOrigin {
  const { loader, keysReloader, basketsReloader, supervisor, metrics, log } = parts;
  const verdictOf = (result: ReloadResult): FileVerdict =>
    result.kind === "rejected" ? { accepted: false, reason: result.reason } : { accepted: true };
  let fleetView: FleetView | null = null;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const reader = createOriginReader(settings.location, {
    timeoutMs: settings.timeoutMs,
    s3: settings.s3,
    env: process.env,
    skewed: (skewMs) =>
      log.warn(
        { event: "origin-clock-skew", skewMs },
        `the origin says this server's clock is off by ${skewMs} ms; requests are signed with its time`,
      ),
  });
  const puller = new OriginPuller(
    {
      reader,
      paths: {
        snapshotDir: config.snapshotDir,
        basketsFile: config.basketsFile,
        keysFile: config.usingSampleKeys ? null : config.apiKeysFile,
      },
      limits: { chain: config.snapshotFileMaxBytes, baskets: config.basketsFileMaxBytes, keys: config.keysFileMaxBytes },
      timing: { minMs: settings.pollMinMs, maxMs: settings.pollMaxMs },
      maxSkewMs: settings.maxSkewMs,
      publicKeys: settings.publicKeys,
      readiness: settings.readiness,
    },
    {
      async chainFilesChanged(names) {
        await loader.scan("change");
        return new Map(names.map((name) => [name, chainVerdict(loader.fileOutcome(name))]));
      },
      keysChanged: () => verdictOf(keysReloader.reload()),
      basketsChanged: () => verdictOf(basketsReloader.reload()),
    },
    {
      statusChanged(status) {
        supervisor.publishOrigin(status);
        metrics.generation.set(status.generation ?? 0);
        void fleetView?.write({
          generation: status.generation,
          position: parts.position(),
          appliedAt: status.lastChangeAtMs === null ? null : new Date(status.lastChangeAtMs).toISOString(),
          lastError: originErrorWire(status.lastError),
          reportedAt: new Date().toISOString(),
        });
      },
      polled: (result) => metrics.polls.inc({ result }),
      bytesReceived: (bytes) => metrics.bytes.inc(bytes),
      ready: () => markReady(),
    },
    log,
  );
  const redis = config.quotaStore.kind === "redis" ? config.quotaStore : null;
  return {
    puller,
    ready,
    listen(port: number): void {
      if (redis === null) return;
      const instanceId = settings.instanceId ?? `${hostname()}:${port}`;
      fleetView = new FleetView(
        {
          url: redis.url,
          keyPrefix: redis.keyPrefix,
          instanceId,
          ttlMs: 3 * settings.pollMaxMs,
          timeoutMs: Math.max(1000, redis.timeoutMs),
        },
        log,
      );
      fleetView.listenForPokes((generation) => puller.poke(generation));
    },
    async fleet(): Promise<FleetAnswer> {
      if (fleetView === null) return { kind: "unavailable", reason: "no-redis" };
      return { kind: "data", data: fleetData(await fleetView.list()) };
    },
    async stop(): Promise<void> {
      await puller.stop();
      await fleetView?.close();
    },
  };
}

/** What the loader made of a chain file the origin brought. */
function chainVerdict(outcome: AttemptOutcome | undefined): FileVerdict {
  if (outcome === undefined) return { accepted: false, reason: "not built (the scan did not reach it)" };
  switch (outcome.kind) {
    case "served":
      return { accepted: true };
    case "rejected":
      return { accepted: false, reason: `${outcome.reason}: ${outcome.message}` };
    case "failed":
      return { accepted: false, reason: "the build failed (retried on the next REBUILD_CRON tick)" };
    case "not-a-file":
      return { accepted: false, reason: "not a regular file" };
  }
}
