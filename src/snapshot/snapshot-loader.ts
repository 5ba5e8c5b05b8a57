/**
 * Keeps the served snapshot in step with the snapshot directory.
 *
 * A scan looks at every `chain-<id>.msgpack` (live-entry.ts), hands each file
 * that needs a build (file-attempts.ts) to a build worker, one at a time, and
 * keeps the last good data of every chain: a bad, half-written, unsupported,
 * out-of-order or future-dated file is rejected and logged, the chain keeps
 * serving. Files are known by the SHA-256 of their bytes: bytes already served
 * (or already rejected) are not decoded again, and any new bytes are. When the
 * served contents changed, the cross-chain token index is rebuilt in a worker
 * and the result handed to the listener (the supervisor hands it to the
 * serving threads).
 *
 * Once a snapshot is served, new files are served in batches: before building
 * a file that would bring the chains built but not yet served past a third of
 * the served files' bytes, what is built so far is served first. A re-push of
 * every file then holds at most about a third of the data set (or its largest
 * file) twice, not all of it; the earlier versions go as soon as no cursor
 * needs them (version-retention.ts). Files build largest first, so the
 * largest builds while nothing else waits. Each batch costs one token-index
 * build; when a batch's last file builds on two threads, its token index is
 * started on the helper's thread as soon as that file's tokens are compiled
 * (speculate()), and used if the file is accepted. (Building the next file while a batch's token index builds was
 * tried: faster, but the batch's old data then stays through most of the
 * next build, which raised the re-push peak.)
 *
 * Scans run at start, on directory changes (debounced) and on the REBUILD_CRON
 * schedule (a tick also retries files that failed for I/O or a crash); one at a
 * time, a request during a scan queues one more.
 */
import { readdirSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import cron, { type ScheduledTask } from "node-cron";
import { Piscina } from "piscina";
import { isSupportedChainId, type ChainId } from "../chains/chains.js";
import type { Logger } from "../log/logger.js";
import type { TokenIndexData } from "../tables/token-index.js";
import { AllowOlderMarkers } from "./allow-older-marker.js";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import {
  DEFAULT_WORKER_NICE,
  type ChainTask,
  type ChainTaskResult,
  type EarlyTokens,
  type PoolRangeTask,
  type TokenIndexTask,
} from "./build-tasks.js";
import { admissionBounds } from "./chain-admission.js";
import type { ChainSnapshotInfo, CompiledChain } from "../tables/compiled-chain.js";
import type { ChangeSetDraft } from "../tables/change-sets.js";
import { ChangeSetDrafts } from "./change-set-drafts.js";
import { FileAttempts, type BuildDecision } from "./file-attempts.js";
import { SNAPSHOT_FILE_PATTERN } from "../api/snapshot-format.js";
import { describeNotAFile, inspectLiveEntry } from "./live-entry.js";
import type { SnapshotErrorReason } from "./snapshot-error.js";
import { snapshotContentKey, snapshotVersion, versionHex } from "../api/snapshot-version.js";
import { FILE_LIMITS } from "../util/operator-file.js";

/** Serving threads' event-loop utilization from which a build yields the CPU (BUILD_WORKER_NICE). */
const BUSY_SERVING_LOAD = 0.25;
/** How often a running build's niceness follows the serving threads' load. */
const NICE_UPDATE_MS = 250;

/** Default SnapshotLoaderOptions.splitFromBytes: a smaller file builds in about a second on one thread. */
export const SPLIT_FROM_BYTES = 16 << 20;

/** Share of the served files' bytes that a re-push may build before serving what it built (see above). */
const REPUSH_BATCH_SHARE = 1 / 3;

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
   * nothing serves yet. Default SPLIT_FROM_BYTES.
   */
  readonly splitFromBytes?: number;
  /** Niceness of the build worker threads while the serving threads are busy (default 10; see workers/snapshot-worker.ts). */
  readonly workerNice?: number;
  /**
   * How busy the serving threads have been since the last call, 0-1 (the largest event-loop utilization);
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
}

/** What started a scan. */
export type ScanTrigger = "start" | "change" | "tick";

export class SnapshotLoader {
  private readonly lastGood = new Map<ChainId, CompiledChain>();
  private readonly attempts = new FileAttempts();
  private readonly markers: AllowOlderMarkers;
  private readonly removedNoticed = new Set<ChainId>();
  private readonly pool: Piscina;
  private readonly startBuilds: number;
  /** The niceness build tasks should run at (shared with the workers: see ChainTask.nice). */
  private readonly niceCell = new Int32Array(new SharedArrayBuffer(4));
  private niceTimer: NodeJS.Timeout | null = null;
  private tasksRunning = 0;
  private readonly now: () => number;
  private scanning: Promise<void> | null = null;
  private rescanRequested = false;
  private tickRequested = false;
  private watcher: FSWatcher | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private schedule: ScheduledTask | null = null;
  /** Content key (chain ids and file hashes) of the last snapshot built: it alone decides whether one changed. */
  private lastContentKey: string | null = null;
  private lastVersion: number | null = null;
  private servedInfos: readonly ChainSnapshotInfo[] = [];
  private stopped = false;
  /** Change sets of the files accepted since the last snapshot served (a failed snapshot build keeps them for the next). */
  private pendingChanges: ChangeSetDraft[] = [];
  private readonly drafts = new ChangeSetDrafts();
  /** A token index started while the last file of a batch finished (speculate()), for the contents it names. */
  private speculation: { contentKey: string; index: Promise<TokenIndexData | null> } | null = null;

  constructor(
    private readonly options: SnapshotLoaderOptions,
    private readonly events: LoaderEvents,
    private readonly log: Logger,
  ) {
    const resourceLimits = options.workerMaxOldGenerationMb ? { maxOldGenerationSizeMb: options.workerMaxOldGenerationMb } : undefined;
    this.markers = new AllowOlderMarkers(options.snapshotDir);
    this.now = options.now ?? Date.now;
    // Once a snapshot is served, one build at a time (one file's new columns in memory at once; a
    // batch's token index before the next file). Before that (start-up: nothing is served, the cores
    // are the build's) up to startBuilds files build at once. An idle build worker exits after 10 s
    // so its heap does not stay resident between builds.
    this.startBuilds = Math.max(1, options.startBuilds ?? 1);
    this.pool = new Piscina({
      filename: options.workerFile,
      maxThreads: this.startBuilds,
      minThreads: 0,
      idleTimeout: 10_000,
      resourceLimits,
    });
  }

  /** Loads what is in the directory now, then starts watching and the schedule. */
  async start(): Promise<void> {
    await this.scan("start");
    this.log.info(
      {
        event: "initial-load-complete",
        chains: [...this.lastGood.keys()],
        version: this.lastVersion === null ? null : versionHex(this.lastVersion),
      },
      "initial snapshot load complete",
    );
    this.watcher = watch(this.options.snapshotDir, () => this.scheduleScan());
    this.watcher.on("error", (error) =>
      this.log.error({ event: "watch-error", err: error }, "snapshot directory watch failed; the cron schedule still rescans"),
    );
    this.schedule = cron.schedule(this.options.rebuildCron, () => void this.scan("tick"));
  }

  /** Stops watching and cancels any build in progress (shutdown must not wait for a large build). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    if (this.debounce) clearTimeout(this.debounce);
    await this.schedule?.stop();
    await this.pool.destroy();
    await this.scanning;
  }

  private scheduleScan(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.scan("change"), this.options.watchDebounceMs);
  }

  /** Runs one scan, or queues one more if a scan is running (a queued tick stays a tick). */
  scan(trigger: ScanTrigger): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (trigger === "tick") this.tickRequested = true;
    if (this.scanning) {
      this.rescanRequested = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      try {
        do {
          this.rescanRequested = false;
          const tick = this.tickRequested;
          this.tickRequested = false;
          await this.scanOnce(tick);
        } while (this.rescanRequested && !this.stopped);
      } finally {
        this.scanning = null;
      }
    })();
    return this.scanning;
  }

  private async scanOnce(tick: boolean): Promise<void> {
    let names: string[];
    try {
      names = readdirSync(this.options.snapshotDir);
    } catch (error) {
      this.log.error({ event: "scan-failed", err: error }, "cannot read the snapshot directory; serving the last good data");
      return;
    }
    const allowOlder = this.markers.find(names);
    const present = new Set<ChainId>();
    const files: Array<{ name: string; chainId: number; path: string; signature: string; bytes: number }> = [];
    for (const name of names.sort()) {
      const match = SNAPSHOT_FILE_PATTERN.exec(name);
      if (!match || this.stopped) continue;
      const chainId = Number(match[1]);
      const path = join(this.options.snapshotDir, name);
      const entry = inspectLiveEntry(path);
      if (entry.kind === "missing") {
        this.attempts.forget(name);
        continue;
      }
      if (isSupportedChainId(chainId)) present.add(chainId);
      if (entry.kind === "not-a-file") {
        if (this.attempts.notAFile(name, entry.signature, entry.what)) {
          this.events.fileRejected("not-a-file");
          const message = `${name} is ${describeNotAFile(entry.what)}, not a regular file; the chain keeps its last good data`;
          this.log.warn(
            { event: "snapshot-rejected", chainId, file: name, reason: "not-a-file", what: entry.what, error: message },
            message,
          );
        }
        continue;
      }
      files.push({ name, chainId, path, signature: entry.signature, bytes: entry.bytes });
    }
    // Largest first: the largest file then builds while nothing else waits.
    files.sort((x, y) => y.bytes - x.bytes || (x.name < y.name ? -1 : 1));
    let changed = false;
    if (this.lastVersion === null && this.startBuilds > 1) {
      // Nothing served yet: several files at once, each worker taking the next largest.
      let next = 0;
      const builder = async (): Promise<void> => {
        while (next < files.length && !this.stopped) {
          const file = files[next++];
          // The last file to start may take a second thread once another builder is done (its helper waits for one).
          if (await this.buildFile(file, allowOlder, tick, { mayShare: next === files.length, lastOfBatch: false })) changed = true;
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.startBuilds, files.length) }, builder));
    } else {
      /** File bytes of the chains built in this scan and not served yet. */
      let pendingBytes = 0;
      // Which files this scan builds (decide() is pure): a file with no other to build after it in its batch
      // may have its token index built while it finishes (see speculate()).
      const building = files.filter((f) => this.decide(f, allowOlder, tick).build);
      for (const file of files) {
        if (this.stopped) break;
        if (changed && this.lastVersion !== null && this.passesBatch(pendingBytes + file.bytes)) {
          // Serve this batch before building more (the old data it replaces is released meanwhile).
          await this.buildSnapshot();
          changed = false;
          pendingBytes = 0;
        }
        const after = building[building.indexOf(file) + 1];
        const lastOfBatch = after === undefined || this.passesBatch(pendingBytes + file.bytes + after.bytes);
        // One at a time: a file's new columns are large, and builds share the cores with the serving threads.
        if (await this.buildFile(file, allowOlder, tick, { mayShare: true, lastOfBatch })) {
          changed = true;
          pendingBytes += file.bytes;
        }
      }
    }
    this.noticeRemoved(present);
    if (changed) await this.buildSnapshot();
    this.speculation = null;
  }

  /** Whether a batch of this many file bytes built and not served is past the batch rule (serve it first). */
  private passesBatch(pendingBytes: number): boolean {
    return pendingBytes > this.servedBytes() * REPUSH_BATCH_SHARE;
  }

  private decide(
    file: { name: string; chainId: number; signature: string },
    allowOlder: ReadonlySet<number>,
    tick: boolean,
  ): BuildDecision {
    return this.attempts.decide(file.name, file.signature, { tick, nowMs: this.now(), allowOlder: allowsOlder(file.chainId, allowOlder) });
  }

  /**
   * Builds one listed file when its attempts say so; true when the chain's served data changed.
   * @param place.mayShare whether the file may build on two threads (when it is large enough and the serving threads are idle)
   * @param place.lastOfBatch whether no other file builds before its batch is served
   */
  private async buildFile(
    file: { name: string; chainId: number; path: string; signature: string; bytes: number },
    allowOlder: ReadonlySet<number>,
    tick: boolean,
    place: { mayShare: boolean; lastOfBatch: boolean },
  ): Promise<boolean> {
    const { name, chainId, path, signature } = file;
    const decision = this.decide(file, allowOlder, tick);
    if (!decision.build) return false;
    const twoThreads =
      place.mayShare && this.startBuilds >= 2 && file.bytes >= (this.options.splitFromBytes ?? SPLIT_FROM_BYTES) && this.buildNice() === 0;
    return this.buildChain(
      name,
      path,
      chainId,
      signature,
      decision,
      allowsOlder(chainId, allowOlder),
      twoThreads ? { speculate: place.lastOfBatch } : null,
    );
  }

  /** Builds one chain file; true when the chain's served data changed. */
  private async buildChain(
    name: string,
    path: string,
    chainId: number,
    signature: string,
    decision: BuildDecision & { build: true },
    allowOlder: boolean,
    twoThreads: { speculate: boolean } | null,
  ): Promise<boolean> {
    const served = isSupportedChainId(chainId) ? this.lastGood.get(chainId) : undefined;
    const known = [served?.info.sha256, decision.unchangedRejected].filter((s): s is string => typeof s === "string");
    const task: ChainTask = {
      kind: "chain",
      nice: this.niceCell,
      path,
      logoTemplate: this.options.logoTemplate,
      knownSha256: known,
      maxBytes: this.options.maxFileBytes ?? FILE_LIMITS.snapshot.maxBytes,
      bounds: admissionBounds(this.now(), this.options.maxFutureSkewSeconds, served?.info.generatedAt ?? null, allowOlder),
      previous: served === undefined ? null : { pools: served.pools, tokens: served.tokens },
      helper: null,
      early: null,
    };
    let result: ChainTaskResult;
    const started = performance.now();
    try {
      result = twoThreads ? await this.runWithHelper(task, twoThreads.speculate) : await this.runTask<ChainTaskResult>(task);
      this.events.buildTimed("chain", (performance.now() - started) / 1000);
    } catch (error) {
      if (this.stopped) return false;
      this.events.buildFailed();
      // Retried on the next scheduled tick (or when the file changes), never on every scan:
      // a build that crashes its worker would otherwise loop on every directory event.
      this.attempts.record(name, signature, { kind: "failed" });
      this.log.error(
        { event: "build-failed", chainId, file: name, err: error },
        "snapshot build failed; serving the last good data (retried on the next REBUILD_CRON tick)",
      );
      return false;
    }
    switch (result.status) {
      case "known": {
        // The served bytes, or the bytes rejected before (that rejection stands).
        const previous = this.attempts.outcome(name);
        const stillRejected = result.sha256 !== served?.info.sha256 && previous !== undefined;
        this.attempts.record(name, signature, stillRejected ? previous : { kind: "served", sha256: result.sha256 });
        this.log.debug({ event: "snapshot-unchanged", chainId, file: name, sha256: result.sha256 }, `${name}: same bytes as before`);
        return false;
      }
      case "rejected": {
        const outsideContent = result.reason === "io" || result.reason === "not-a-file";
        const retryAtMs =
          result.reason === "future-generated-at" && result.generatedAt !== null
            ? (result.generatedAt - this.options.maxFutureSkewSeconds) * 1000
            : null;
        this.attempts.record(
          name,
          signature,
          outsideContent ? { kind: "failed" } : { kind: "rejected", reason: result.reason, sha256: result.sha256, retryAtMs },
        );
        this.events.fileRejected(result.reason);
        this.log.warn(
          { event: "snapshot-rejected", chainId, file: name, reason: result.reason, error: result.message, sha256: result.sha256 },
          `rejected ${name}: ${result.message}${outsideContent ? " (retried on the next REBUILD_CRON tick)" : ""}`,
        );
        return false;
      }
      case "accepted": {
        const { chain, diff } = result;
        const { info } = chain;
        this.events.buildTimed("diff", diff.ms / 1000);
        this.pendingChanges.push(this.drafts.draft(info, served?.info ?? null, diff));
        this.lastGood.set(info.chainId, chain);
        this.attempts.record(name, signature, { kind: "served", sha256: info.sha256 });
        this.removedNoticed.delete(info.chainId);
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
            helperPools: result.helperPools,
            buildMs: info.buildMs,
          },
          `accepted ${name}`,
        );
        if (allowOlder) this.consumeMarker(info.chainId, served?.info.generatedAt ?? null, info.generatedAt);
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
   * Niceness a build should run at now: none before a snapshot serves or while the serving threads are
   * idle (nothing to yield to), BUILD_WORKER_NICE while they are busy.
   */
  private buildNice(): number {
    if (this.lastVersion === null) return 0;
    const load = this.options.servingLoad?.() ?? 1;
    return load >= BUSY_SERVING_LOAD ? (this.options.workerNice ?? DEFAULT_WORKER_NICE) : 0;
  }

  /**
   * Runs a chain task with a helper task beside it that builds part of its pools on a second thread if it
   * starts in time (build-tasks.ts, BuildHelperLink); neither task waits for the other to start.
   */
  private async runWithHelper(task: ChainTask, speculate: boolean): Promise<ChainTaskResult> {
    const channel = new MessageChannel();
    const claim = new Int32Array(new SharedArrayBuffer(8));
    const helper: PoolRangeTask = { kind: "pool-range", nice: this.niceCell, port: channel.port2, claim };
    const early = speculate ? new MessageChannel() : null;
    early?.port2.once("message", (tokens: EarlyTokens) => this.speculate(tokens));
    // The chain's task first: the pool's queue is first come, first served, and a helper on the only free thread
    // would leave the chain's task waiting for another. The helper is not awaited: one that waits for a thread
    // (at start-up, the other builder's file) does nothing when it starts after the chain's task is done. A
    // helper that fails while building fails the chain's task, which is logged there.
    const chain = this.runTask<ChainTaskResult>(
      { ...task, helper: { port: channel.port1, claim }, early: early?.port1 ?? null },
      early === null ? [channel.port1] : [channel.port1, early.port1],
    );
    void this.runTask<void>(helper, [channel.port2]).catch((error: unknown) => {
      if (!this.stopped) this.log.debug({ event: "build-helper-failed", err: error }, "build helper task failed");
    });
    try {
      return await chain;
    } finally {
      early?.port2.close();
    }
  }

  /**
   * Starts the token index of the snapshot a chain's file would make (the served chains, this file's tokens in
   * place of its chain's) while the chain's task finishes: on the helper's thread, once its pools are written.
   * buildSnapshot uses it when the batch is exactly that (the file accepted, nothing else built meanwhile).
   */
  private speculate(early: EarlyTokens): void {
    if (this.stopped) return;
    const inputs = this.indexInputs(early);
    this.speculation = { contentKey: snapshotContentKey(inputs), index: this.buildTokenIndex(inputs).catch(() => null) };
  }

  /** What a token index is built from: every last-good chain (with `replacing` in its chain's place, or added). */
  private indexInputs(replacing: EarlyTokens | null = null): EarlyTokens[] {
    const inputs: EarlyTokens[] = [];
    for (const c of this.lastGood.values()) {
      const mine = c.info.chainId === replacing?.chainId;
      inputs.push(mine ? replacing : { chainId: c.info.chainId, sha256: c.info.sha256, tokens: c.tokens, run: c.tokenRun });
    }
    if (replacing !== null && !this.lastGood.has(replacing.chainId)) inputs.push(replacing);
    return inputs;
  }

  private buildTokenIndex(inputs: readonly EarlyTokens[]): Promise<TokenIndexData> {
    const chains = inputs.map(({ chainId, tokens, run }) => ({ chainId, tokens, run }));
    return this.runTask<TokenIndexData>({ kind: "token-index", nice: this.niceCell, chains } satisfies TokenIndexTask);
  }

  /** Runs a build task with its niceness kept up to date (every NICE_UPDATE_MS) while it runs. */
  private async runTask<T>(task: ChainTask | PoolRangeTask | TokenIndexTask, transferList?: MessagePort[]): Promise<T> {
    const update = () => Atomics.store(this.niceCell, 0, this.buildNice());
    update();
    this.tasksRunning++;
    this.niceTimer ??= setInterval(update, NICE_UPDATE_MS);
    try {
      return (await this.pool.run(task, transferList === undefined ? undefined : { transferList })) as T;
    } finally {
      if (--this.tasksRunning === 0 && this.niceTimer !== null) {
        clearInterval(this.niceTimer);
        this.niceTimer = null;
      }
    }
  }

  /** File bytes of the chains the served snapshot was built from. */
  private servedBytes(): number {
    let bytes = 0;
    for (const info of this.servedInfos) bytes += info.fileBytes;
    return bytes;
  }

  private noticeRemoved(present: ReadonlySet<ChainId>): void {
    for (const chainId of this.lastGood.keys()) {
      if (present.has(chainId) || this.removedNoticed.has(chainId)) continue;
      this.removedNoticed.add(chainId);
      this.log.warn({ event: "snapshot-file-removed", chainId }, `chain-${chainId}.msgpack was removed; its last good data stays served`);
    }
  }

  private async buildSnapshot(): Promise<void> {
    const started = performance.now();
    const chains = [...this.lastGood.values()];
    const infos = chains.map((c) => c.info);
    const contentKey = snapshotContentKey(infos);
    if (contentKey === this.lastContentKey) {
      // The same contents again: nothing to serve anew, and the pending change sets (each chain back at its
      // served file, e.g. A → B → A) add up to no change at all.
      this.pendingChanges = [];
      return;
    }
    let tokenIndex: TokenIndexData;
    const speculation = this.speculation;
    this.speculation = null;
    const early = speculation?.contentKey === contentKey ? await speculation.index : null;
    const startedEarly = early !== null;
    try {
      tokenIndex = early ?? (await this.buildTokenIndex(this.indexInputs()));
    } catch (error) {
      if (this.stopped) return;
      this.events.buildFailed();
      this.log.error({ event: "build-failed", err: error }, "token index build failed; serving the last good snapshot");
      return;
    }
    const seconds = (performance.now() - started) / 1000;
    this.events.buildTimed("token-index", seconds);
    const version = snapshotVersion(infos);
    this.lastContentKey = contentKey;
    this.lastVersion = version;
    this.servedInfos = infos;
    const changes = this.pendingChanges;
    this.pendingChanges = [];
    this.events.snapshotBuilt(version, chains, tokenIndex, changes);
    this.log.info(
      {
        event: "snapshot-built",
        version: versionHex(version),
        chains: chains.map((c) => c.info.chainId),
        tokenInstances: tokenIndex.instanceCount,
        indexStartedEarly: startedEarly,
        buildMs: Math.round(seconds * 1000),
      },
      "new snapshot built",
    );
  }
}

/** Whether the chain's allow-older marker is present (chain-admission.ts). */
function allowsOlder(chainId: number, allowOlder: ReadonlySet<number>): boolean {
  return isSupportedChainId(chainId) && allowOlder.has(chainId);
}
