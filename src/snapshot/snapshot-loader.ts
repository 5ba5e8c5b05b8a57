/**
 * Keeps the served snapshot in step with the snapshot directory: it decides what to build and when, and
 * keeps the outcome; the build threads are build-pool.ts.
 *
 * A scan looks at every `chain-<id>.msgpack` (scan a file: live-entry.ts), builds each file its attempts say
 * needs it (file-attempts.ts; build a chain file), and keeps the last good data of every chain
 * (accepted-chains.ts): a bad, half-written, unsupported, out-of-order or future-dated file is rejected and
 * logged, the chain keeps serving. Files are known by the SHA-256 of their bytes: bytes already served (or
 * already rejected) are not decoded again, and any new bytes are. When the served contents changed, the
 * cross-chain token index is built and the batch published to the listener (the supervisor hands it to the
 * serving threads). Once a snapshot serves, files build one at a time in batches (batch-rule.ts;
 * docs/decisions/002-one-build-at-a-time-and-batches.md), a batch's token index possibly started early
 * (docs/decisions/004-early-token-index.md).
 *
 * Scans run at start, on directory changes and on the REBUILD_CRON schedule, one at a time (scan-triggers.ts).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { isSupportedChainId, type ChainId } from "../chains/chains.js";
import type { Logger } from "../log/logger.js";
import type { TokenIndexData } from "../tables/token-index.js";
import type { ChainSnapshotInfo, CompiledChain } from "../tables/compiled-chain.js";
import type { ChangeSetDraft } from "../tables/change-sets.js";
import { SNAPSHOT_FILE_PATTERN } from "../api/snapshot-format.js";
import { versionHex } from "../api/snapshot-version.js";
import { FILE_LIMITS } from "../util/operator-file.js";
import { AcceptedChains } from "./accepted-chains.js";
import { AllowOlderMarkers } from "./allow-older-marker.js";
import { addedShare } from "./chain-memory.js";
import { added, buildOrder, EMPTY_BATCH, expectedShare, lastOfBatch, publishesFirst, withBuilt } from "./batch-rule.js";
import { BuildPool } from "./build-pool.js";
import { attemptOutcome, BUILD_FAILED, outsideContent } from "./build-outcome.js";
import type { ChainFileInput, ChainTaskResult, EarlyTokens, PreviousChainTables, TokenIndexResult } from "./build-tasks.js";
import { admissionBounds } from "./chain-admission.js";
import { FileAttempts, type AttemptOutcome, type BuildDecision } from "./file-attempts.js";
import type { KeptTokenIndex } from "./compile-token-index.js";
import { EarlyIndex } from "./early-index.js";
import { describeNotAFile, inspectLiveEntry } from "./live-entry.js";
import { ScanTriggers, type ScanTrigger } from "./scan-triggers.js";
import type { SnapshotErrorReason } from "./snapshot-error.js";

export interface SnapshotLoaderOptions {
  readonly snapshotDir: string;
  readonly rebuildCron: string;
  readonly logoTemplate: string;
  readonly watchDebounceMs: number;
  readonly workerFile: string;
  /** Heap limit of a build worker (MB); a build over it fails and the current snapshot keeps serving. */
  readonly workerMaxOldGenerationMb: number | null;
  /** How far ahead of this server's clock a file's generatedAt may be (seconds). */
  readonly maxFutureSkewSeconds: number;
  /** Largest snapshot file read (SNAPSHOT_FILE_MAX_MB); a larger one is rejected (`too-large`). Default FILE_LIMITS.snapshot. */
  readonly maxFileBytes?: number;
  /** The clock (epoch ms); tests move it. */
  readonly now?: () => number;
  /**
   * How many files build at once while nothing is served yet (start-up; default 1). Once a snapshot
   * serves, files build one at a time, whatever this says.
   */
  readonly startBuilds?: number;
  /**
   * Files of at least this many bytes build on two threads (their pools split between two build workers:
   * compile-pool-range.ts) when the pool has two (startBuilds >= 2) and the serving threads are idle or
   * nothing serves yet. Default SPLIT_FROM_BYTES (build-pool.ts).
   */
  readonly splitFromBytes?: number;
  /** Niceness of the build worker threads while the serving threads are busy (default 10; see build-pool.ts). */
  readonly workerNice?: number;
  /** Seconds an idle build worker lives (BUILD_WORKER_IDLE_S; default in build-pool.ts). */
  readonly workerIdleS?: number;
  /** Build workers kept alive however long they are idle (BUILD_WORKERS_KEPT; default in build-pool.ts). */
  readonly workersKept?: number;
  /** A push's age (s) by which its build runs at niceness 0 under load (FRESHNESS_TARGET_S; default in build-pool.ts). */
  readonly freshnessTargetS?: number;
  /**
   * How busy the serving threads have been lately, 0-1 (the largest event-loop utilization);
   * absent: always busy.
   */
  readonly servingLoad?: () => number;
}

/** What the loader reports; the supervisor wires these to the threads and metrics. */
export interface LoaderEvents {
  /**
   * A snapshot to serve, with the change sets of the chain files accepted since the last one served (per chain
   * in the order accepted; each diffed against the file accepted before it, so applying them in order is exact).
   */
  snapshotBuilt(version: number, chains: readonly CompiledChain[], tokenIndex: TokenIndexData, changes: readonly ChangeSetDraft[]): void;
  chainAccepted(info: ChainSnapshotInfo): void;
  fileRejected(reason: SnapshotErrorReason): void;
  buildFailed(): void;
  /** A build phase's duration: `chain` (the worker's whole task), `diff` (its change-set part), `token-index`. */
  buildTimed(phase: "chain" | "diff" | "token-index", seconds: number): void;
  /**
   * How long a chain file's build waited (from its push noticed, queued behind other builds, then runnable but
   * not running or yielding on its thread) and at what priority it ran (its niceness, averaged over its run).
   */
  buildWaited?(seconds: number, niceness: number): void;
}

/** One chain file a scan found (a regular file), and what the scan knows of it. */
interface ScannedFile {
  readonly name: string;
  readonly chainId: number;
  readonly path: string;
  /** What the look at the entry saw (live-entry.ts): another signature is another file. */
  readonly signature: string;
  readonly bytes: number;
  /** The operator allows an older file for this chain (an allow-older marker, chain-admission.ts). */
  readonly allowOlder: boolean;
}

/** What the log says of a build's wait (see LoaderEvents.buildWaited). */
interface BuildWait {
  /** queuedMs plus the time its thread was runnable but not running, or yielded. */
  readonly waitedMs: number;
  /** From the push noticed (its scan started) to the build's start. */
  readonly queuedMs: number;
  readonly cpuMs: number | null;
  readonly yieldedMs: number;
  /** Niceness averaged over the build's run, and at its end. */
  readonly nice: number;
  readonly niceEnd: number;
}

/** Where a file stands in its scan. */
interface Place {
  /** It may build on two threads (when it is large enough and the serving threads are idle). */
  readonly mayShare: boolean;
  /** No other file builds before its batch is published (its token index may start while it finishes). */
  readonly lastOfBatch: boolean;
}

export class SnapshotLoader {
  private readonly chains = new AcceptedChains();
  private readonly attempts = new FileAttempts();
  private readonly markers: AllowOlderMarkers;
  private readonly pool: BuildPool;
  private readonly startBuilds: number;
  private readonly now: () => number;
  private readonly triggers: ScanTriggers;
  private stopped = false;
  /** A batch's token index started while its last file finished (onEarlyTokens). */
  private readonly early: EarlyIndex;
  /**
   * The served snapshot's token index as its build kept it (with what the next build reuses, which is not served:
   * docs/decisions/004-early-token-index.md).
   */
  private servedIndex: KeptTokenIndex | null = null;
  /** Per chain, the share of its memory its last accepted build added (batch-rule.ts). */
  private readonly lastShare = new Map<number, number>();

  constructor(
    private readonly options: SnapshotLoaderOptions,
    private readonly events: LoaderEvents,
    private readonly log: Logger,
  ) {
    this.markers = new AllowOlderMarkers(options.snapshotDir);
    this.now = options.now ?? Date.now;
    // Once a snapshot is served, one build at a time (one file's new columns in memory at once; a batch's
    // token index before the next file). Before that (start-up: nothing is served, the cores are the
    // build's) up to startBuilds files build at once.
    this.startBuilds = Math.max(1, options.startBuilds ?? 1);
    this.triggers = new ScanTriggers(
      (tick) => this.scanDirectory(tick),
      { dir: options.snapshotDir, debounceMs: options.watchDebounceMs, cron: options.rebuildCron },
      log,
    );
    this.pool = new BuildPool(
      {
        workerFile: options.workerFile,
        workerMaxOldGenerationMb: options.workerMaxOldGenerationMb,
        threads: this.startBuilds,
        splitFromBytes: options.splitFromBytes,
        workerNice: options.workerNice,
        workerIdleS: options.workerIdleS,
        workersKept: options.workersKept,
        freshnessTargetS: options.freshnessTargetS,
        servingLoad: options.servingLoad,
        serving: () => this.chains.serving,
      },
      log,
    );
    this.early = new EarlyIndex((inputs) => this.pool.buildTokenIndex(inputs, this.servedIndex));
  }

  /** Loads what is in the directory now, then starts watching and the schedule. */
  async start(): Promise<void> {
    await this.scan("start");
    const version = this.chains.version;
    this.log.info(
      { event: "initial-load-complete", chains: this.chains.chainIds(), version: version === null ? null : versionHex(version) },
      "initial snapshot load complete",
    );
    this.triggers.watch();
  }

  /** Stops watching and cancels any build in progress (shutdown must not wait for a large build). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.triggers.stop();
    await this.pool.stop();
    await this.triggers.current;
  }

  /** Runs one scan, or queues one more if a scan is running (a queued tick stays a tick). */
  scan(trigger: ScanTrigger): Promise<void> {
    return this.triggers.scan(trigger);
  }

  /**
   * How the last build of a live name ended (accepted or served, rejected and why, failed), as the last scan saw
   * it; undefined before it was built. A file pulled from an origin is renamed into place, scanned at once
   * (`scan("change")`), and reported `partial` when this says rejected.
   */
  fileOutcome(name: string): AttemptOutcome | undefined {
    return this.attempts.outcome(name);
  }

  private async scanDirectory(tick: boolean): Promise<void> {
    let names: string[];
    try {
      names = readdirSync(this.options.snapshotDir);
    } catch (error) {
      this.log.error({ event: "scan-failed", err: error }, "cannot read the snapshot directory; serving the last good data");
      return;
    }
    const allowOlder = this.markers.find(names);
    const present = new Set<ChainId>();
    // Whatever this scan builds was pushed by now: its builds gain priority under load as this ages.
    this.pool.pushed(this.pool.now());
    const files: ScannedFile[] = [];
    for (const name of names.sort()) {
      if (this.stopped) continue;
      const file = this.scanFile(name, allowOlder, present);
      if (file !== null) files.push(file);
    }
    // Largest first: the largest file then builds while nothing else waits.
    buildOrder(files);
    // Nothing served yet: several files at once (BUILD_START_WORKERS); then one at a time, in batches.
    const atStart = !this.chains.serving && this.startBuilds > 1;
    const changed = atStart ? await this.buildAtStart(files, tick) : await this.buildInBatches(files, tick);
    for (const chainId of this.chains.removedSince(present)) {
      this.log.warn({ event: "snapshot-file-removed", chainId }, `chain-${chainId}.msgpack was removed; its last good data stays served`);
    }
    if (changed) await this.publishBatch();
    this.pool.pushed(null);
    this.early.drop();
  }

  /** Looks at one directory entry: a chain file to consider, or null (not a chain file's name, gone, or not a regular file: reported). */
  private scanFile(name: string, allowOlder: ReadonlySet<number>, present: Set<ChainId>): ScannedFile | null {
    const match = SNAPSHOT_FILE_PATTERN.exec(name);
    if (!match) return null;
    const chainId = Number(match[1]);
    const path = join(this.options.snapshotDir, name);
    const entry = inspectLiveEntry(path);
    if (entry.kind === "missing") {
      this.attempts.forget(name);
      return null;
    }
    if (isSupportedChainId(chainId)) present.add(chainId);
    if (entry.kind === "not-a-file") {
      if (this.attempts.notAFile(name, entry.signature, entry.what)) {
        this.events.fileRejected("not-a-file");
        const message = `${name} is ${describeNotAFile(entry.what)}, not a regular file; the chain keeps its last good data`;
        this.log.warn({ event: "snapshot-rejected", chainId, file: name, reason: "not-a-file", what: entry.what, error: message }, message);
      }
      return null;
    }
    const allowed = isSupportedChainId(chainId) && allowOlder.has(chainId);
    return { name, chainId, path, signature: entry.signature, bytes: entry.bytes, allowOlder: allowed };
  }

  /** Nothing served yet: several files at once, each builder taking the next largest. True when any chain changed. */
  private async buildAtStart(files: readonly ScannedFile[], tick: boolean): Promise<boolean> {
    let changed = false;
    let next = 0;
    const builder = async (): Promise<void> => {
      while (next < files.length && !this.stopped) {
        const file = files[next++];
        // The last file to start may take a second thread once another builder is done (its helper waits for one).
        if ((await this.buildChainFile(file, tick, { mayShare: next === files.length, lastOfBatch: false })) !== null) changed = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.startBuilds, files.length) }, builder));
    return changed;
  }

  /** One at a time, served in batches (batch-rule.ts). True when chains changed since the last batch published. */
  private async buildInBatches(files: readonly ScannedFile[], tick: boolean): Promise<boolean> {
    let batch = EMPTY_BATCH;
    // Which files this scan builds (decide() is pure): the last file of a batch may have its token index built
    // while it finishes.
    const building = files.filter((f) => this.decide(f, tick).build);
    // What a file is expected to add to memory (file bytes) before it builds.
    const expected = (f: ScannedFile) => added(f.bytes, expectedShare(batch, this.lastShare.get(f.chainId)));
    for (const file of files) {
      if (this.stopped) break;
      if (publishesFirst(batch, expected(file), this.chains.servedBytes(), this.chains.serving)) {
        // Serve this batch before building more (the old data it replaces is released meanwhile).
        await this.publishBatch();
        batch = EMPTY_BATCH;
      }
      const next = building[building.indexOf(file) + 1];
      const last = lastOfBatch(batch, expected(file), next === undefined ? undefined : expected(next), this.chains.servedBytes());
      // One at a time: a file's new columns are large, and builds share the cores with the serving threads.
      const share = await this.buildChainFile(file, tick, { mayShare: true, lastOfBatch: last });
      if (share !== null) batch = withBuilt(batch, file.bytes, share);
    }
    return batch.changed;
  }

  private decide(file: ScannedFile, tick: boolean): BuildDecision {
    return this.attempts.decide(file.name, file.signature, { tick, nowMs: this.now(), allowOlder: file.allowOlder });
  }

  /**
   * Builds one scanned file when its attempts say so. When the chain's served data changed: the share of the chain's
   * memory the build added (chain-memory.ts); otherwise null.
   */
  private async buildChainFile(file: ScannedFile, tick: boolean, place: Place): Promise<number | null> {
    const decision = this.decide(file, tick);
    if (!decision.build) return null;
    const served = this.chains.chain(file.chainId);
    const input = chainFileInput(file, decision, served, this.chains.previous(file.chainId), this.options, this.now());
    const twoThreads = place.mayShare && this.pool.mayShare(file.bytes);
    let result: ChainTaskResult;
    const started = performance.now();
    const queuedMs = this.pool.pushedWaitMs();
    try {
      result = await this.pool.buildChainFile(
        input,
        twoThreads ? { onEarlyTokens: place.lastOfBatch ? (t) => this.onEarlyTokens(t) : null } : null,
      );
      this.events.buildTimed("chain", (performance.now() - started) / 1000);
    } catch (error) {
      if (this.stopped) return null;
      this.events.buildFailed();
      // Retried on the next scheduled tick (or when the file changes), never on every scan:
      // a build that crashes its worker would otherwise loop on every directory event.
      this.attempts.record(file.name, file.signature, BUILD_FAILED);
      this.log.error(
        { event: "build-failed", chainId: file.chainId, file: file.name, err: error },
        "snapshot build failed; serving the last good data (retried on the next REBUILD_CRON tick)",
      );
      return null;
    }
    const outcome = attemptOutcome(result, {
      servedSha256: served?.info.sha256 ?? null,
      previous: this.attempts.outcome(file.name),
      maxFutureSkewSeconds: this.options.maxFutureSkewSeconds,
    });
    this.attempts.record(file.name, file.signature, outcome);
    if (!this.report(file, result, served?.info ?? null, this.waited(result, queuedMs)) || result.status !== "accepted") return null;
    const share = addedShare(result.memory);
    this.lastShare.set(file.chainId, share);
    return share;
  }

  /** How long a build waited (queued, then runnable but not running, or yielding) and at what niceness it ran. */
  private waited(result: ChainTaskResult, queuedMs: number): BuildWait | null {
    const schedule = result.schedule;
    if (schedule === undefined) return null;
    const starvedMs = schedule.cpuMs === null ? schedule.yieldedMs : Math.max(0, schedule.wallMs - schedule.cpuMs);
    const wait: BuildWait = {
      waitedMs: Math.round(queuedMs + starvedMs),
      queuedMs: Math.round(queuedMs),
      cpuMs: schedule.cpuMs === null ? null : Math.round(schedule.cpuMs),
      yieldedMs: Math.round(schedule.yieldedMs),
      nice: Math.round(schedule.meanNice * 10) / 10,
      niceEnd: schedule.lastNice,
    };
    this.events.buildWaited?.(wait.waitedMs / 1000, Math.round(schedule.meanNice));
    return wait;
  }

  /** Tells the listener and the log what a build of `file` came to; true when the chain's served data changed. */
  private report(file: ScannedFile, result: ChainTaskResult, served: ChainSnapshotInfo | null, wait: BuildWait | null): boolean {
    const { name, chainId } = file;
    switch (result.status) {
      case "known":
        this.log.debug({ event: "snapshot-unchanged", chainId, file: name, sha256: result.sha256 }, `${name}: same bytes as before`);
        return false;
      case "rejected": {
        const retried = outsideContent(result.reason);
        this.events.fileRejected(result.reason);
        this.log.warn(
          { event: "snapshot-rejected", chainId, file: name, reason: result.reason, error: result.message, sha256: result.sha256, ...wait },
          `rejected ${name}: ${result.message}${retried ? " (retried on the next REBUILD_CRON tick)" : ""}`,
        );
        return false;
      }
      case "accepted": {
        const { chain, diff, helperPools, reused } = result;
        const { info } = chain;
        this.events.buildTimed("diff", diff.ms / 1000);
        this.chains.accept(chain, diff, result.digests);
        this.events.chainAccepted(info);
        this.log.info(
          {
            event: "snapshot-accepted",
            chainId,
            file: name,
            generatedAt: info.generatedAt,
            sha256: info.sha256,
            tokens: info.tokenCount,
            pools: info.poolCount,
            helperPools,
            reusedPools: reused.pools,
            reusedTokens: reused.tokens,
            incremental: result.incremental,
            addedShare: Math.round(1000 * addedShare(result.memory)) / 1000,
            buildMs: info.buildMs,
            stages: result.stages,
            ...wait,
          },
          `accepted ${name}`,
        );
        if (file.allowOlder) this.consumeMarker(info.chainId, served?.generatedAt ?? null, info.generatedAt);
        return true;
      }
    }
  }

  private consumeMarker(chainId: ChainId, fromGeneratedAt: number | null, toGeneratedAt: number): void {
    const error = this.markers.consume(chainId);
    this.log.info(
      { event: "snapshot-allow-older-used", chainId, fromGeneratedAt, toGeneratedAt },
      `chain ${chainId}: allow-older marker used and removed`,
    );
    if (error) {
      this.log.warn(
        { event: "allow-older-marker-not-removed", chainId, err: error },
        `cannot remove chain-${chainId}.allow-older (${(error as NodeJS.ErrnoException).code ?? error.message}); it is ignored from now on, remove it by hand`,
      );
    }
  }

  /**
   * The last file of a batch posted its token data while it finishes: start the token index of the snapshot it
   * would make (the accepted chains, this file's tokens in place of its chain's), on the helper's thread once its
   * pools are written. publishBatch uses it when the batch is exactly that (the file accepted, nothing else built
   * meanwhile).
   */
  private onEarlyTokens(tokens: EarlyTokens): void {
    if (this.stopped) return;
    this.early.start(this.chains.indexInputs(tokens));
  }

  /** Builds the token index of the accepted chains (or takes the one started early) and publishes them. */
  private async publishBatch(): Promise<void> {
    const started = performance.now();
    const batch = this.chains.nextBatch();
    if (batch === null) return; // the same contents again: nothing to serve anew
    let built: TokenIndexResult;
    const earlyIndex = await this.early.take(batch.contentKey);
    try {
      built = earlyIndex ?? (await this.pool.buildTokenIndex(this.chains.indexInputs(), this.servedIndex));
    } catch (error) {
      if (this.stopped) return;
      this.events.buildFailed();
      this.log.error({ event: "build-failed", err: error }, "token index build failed; serving the last good snapshot");
      return;
    }
    const seconds = (performance.now() - started) / 1000;
    this.events.buildTimed("token-index", seconds);
    const changes = this.chains.published(batch);
    this.servedIndex = built;
    const tokenIndex = built.index;
    this.events.snapshotBuilt(batch.version, batch.chains, tokenIndex, changes);
    this.log.info(
      {
        event: "snapshot-built",
        version: versionHex(batch.version),
        chains: batch.chains.map((c) => c.info.chainId),
        tokenInstances: tokenIndex.instanceCount,
        indexStartedEarly: earlyIndex !== null,
        reusedChains: built.reusedChains,
        // The index task's own time on its thread (buildMs: what the batch waited for it after its last file).
        indexWallMs: built.schedule === undefined ? null : Math.round(built.schedule.wallMs),
        indexCpuMs: built.schedule?.cpuMs == null ? null : Math.round(built.schedule.cpuMs),
        buildMs: Math.round(seconds * 1000),
      },
      "new snapshot built",
    );
  }
}

/**
 * What a build of `file` needs: its path and the loader's settings, the contents already known for its name
 * (served, or rejected before: not decoded again), the generatedAt it may have, and the chain's last accepted
 * file (its tables and record digests), which the build reuses for unchanged records and computes the change set
 * against.
 */
function chainFileInput(
  file: ScannedFile,
  decision: BuildDecision & { build: true },
  served: CompiledChain | undefined,
  previous: PreviousChainTables | null,
  options: SnapshotLoaderOptions,
  nowMs: number,
): ChainFileInput {
  return {
    path: file.path,
    logoTemplate: options.logoTemplate,
    knownSha256: [served?.info.sha256, decision.unchangedRejected].filter((s): s is string => typeof s === "string"),
    maxBytes: options.maxFileBytes ?? FILE_LIMITS.snapshot.maxBytes,
    bounds: admissionBounds(nowMs, options.maxFutureSkewSeconds, served?.info.generatedAt ?? null, file.allowOlder),
    previous,
  };
}
