/**
 * Keeps the served snapshot in step with the snapshot directory.
 *
 * A scan looks at every `chain-<id>.msgpack`, hands each new or changed file to
 * a build worker, keeps the last good data of every chain (a bad, half-written,
 * unsupported or out-of-order file is rejected and logged; the chain keeps
 * serving), then rebuilds the cross-chain token index in a worker and hands the
 * result to its listener (the supervisor hands it to the serving threads).
 * Scans run at start, on file changes (debounced) and on the REBUILD_CRON
 * schedule; one at a time, a request during a scan queues one more.
 */
import { readdirSync, statSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import cron, { type ScheduledTask } from "node-cron";
import { Piscina } from "piscina";
import { isSupportedChainId, type ChainId } from "../chains/chains.js";
import type { Logger } from "../log/logger.js";
import type { TokenIndexData } from "../query/token-index.js";
import type { ChainTask, ChainTaskResult, TokenIndexTask } from "../../workers/snapshot-worker.js";
import type { ChainSnapshotInfo, CompiledChain } from "./compiled-chain.js";
import { SNAPSHOT_FILE_PATTERN } from "./format.js";
import { isSnapshotError } from "./snapshot-error.js";
import { checkSnapshotOrder } from "./validate-snapshot.js";
import { snapshotVersion } from "./serving-snapshot.js";

export interface SnapshotLoaderOptions {
  readonly snapshotDir: string;
  readonly rebuildCron: string;
  readonly logoTemplate: string;
  readonly watchDebounceMs: number;
  readonly workerFile: string;
  /** Heap limit of a build worker (MB); a build over it fails and the current snapshot keeps serving. */
  readonly workerMaxOldGenerationMb: number | null;
}

/** What the loader reports; the supervisor wires these to the threads and metrics. */
export interface LoaderEvents {
  snapshotBuilt(version: number, chains: readonly CompiledChain[], tokenIndex: TokenIndexData): void;
  chainAccepted(info: ChainSnapshotInfo): void;
  fileRejected(reason: string): void;
  buildFailed(): void;
  buildTimed(phase: "chain" | "token-index", seconds: number): void;
}

export class SnapshotLoader {
  private readonly lastGood = new Map<ChainId, CompiledChain>();
  /** Signature (size, mtime, inode) of the last attempt per file name, so unchanged files are not rebuilt. */
  private readonly attempted = new Map<string, string>();
  /** Files whose build crashed or threw: retried on the schedule (or when they change), not on every watch event. */
  private readonly crashed = new Set<string>();
  private readonly removedNoticed = new Set<ChainId>();
  private readonly pool: Piscina;
  private scanning: Promise<void> | null = null;
  private rescanRequested = false;
  private watcher: FSWatcher | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private schedule: ScheduledTask | null = null;
  private lastVersion: number | null = null;
  private stopped = false;

  constructor(
    private readonly options: SnapshotLoaderOptions,
    private readonly events: LoaderEvents,
    private readonly log: Logger,
  ) {
    const resourceLimits = options.workerMaxOldGenerationMb ? { maxOldGenerationSizeMb: options.workerMaxOldGenerationMb } : undefined;
    // Idle build workers exit after 10 s so their heaps do not stay resident between builds.
    this.pool = new Piscina({ filename: options.workerFile, maxThreads: 2, minThreads: 0, idleTimeout: 10_000, resourceLimits });
  }

  /** Loads what is in the directory now, then starts watching and the schedule. */
  async start(): Promise<void> {
    await this.scan();
    this.log.info(
      { event: "initial-load-complete", chains: [...this.lastGood.keys()], version: this.lastVersion?.toString(16).padStart(8, "0") ?? null },
      "initial snapshot load complete",
    );
    this.watcher = watch(this.options.snapshotDir, () => this.scheduleScan());
    this.watcher.on("error", (error) => this.log.error({ event: "watch-error", err: error }, "snapshot directory watch failed; the cron schedule still rescans"));
    this.schedule = cron.schedule(this.options.rebuildCron, () => {
      for (const name of this.crashed) this.attempted.delete(name);
      this.crashed.clear();
      void this.scan();
    });
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
    this.debounce = setTimeout(() => void this.scan(), this.options.watchDebounceMs);
  }

  /** Runs one scan, or queues one more if a scan is running. */
  scan(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.scanning) {
      this.rescanRequested = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      try {
        do {
          this.rescanRequested = false;
          await this.scanOnce();
        } while (this.rescanRequested && !this.stopped);
      } finally {
        this.scanning = null;
      }
    })();
    return this.scanning;
  }

  private async scanOnce(): Promise<void> {
    let names: string[];
    try {
      names = readdirSync(this.options.snapshotDir);
    } catch (error) {
      this.log.error({ event: "scan-failed", err: error }, "cannot read the snapshot directory; serving the last good data");
      return;
    }
    const present = new Set<ChainId>();
    const builds: Promise<boolean>[] = [];
    for (const name of names) {
      const match = SNAPSHOT_FILE_PATTERN.exec(name);
      if (!match) continue;
      const chainId = Number(match[1]);
      const path = join(this.options.snapshotDir, name);
      const signature = fileSignature(path);
      if (signature === null) continue;
      if (isSupportedChainId(chainId)) present.add(chainId);
      if (this.attempted.get(name) === signature) continue;
      this.attempted.set(name, signature);
      // An unsupported chain id is rejected by the reader like any other bad file.
      builds.push(this.buildChain(name, path, signature, chainId));
    }
    this.noticeRemoved(present);
    const changed = (await Promise.all(builds)).some(Boolean);
    if (changed) await this.buildSnapshot();
  }

  /** Builds one chain file; true when the chain's data changed. */
  private async buildChain(name: string, path: string, signature: string, chainId: number): Promise<boolean> {
    let result: ChainTaskResult;
    const started = performance.now();
    try {
      result = await this.pool.run({ kind: "chain", path, logoTemplate: this.options.logoTemplate } satisfies ChainTask);
      this.events.buildTimed("chain", (performance.now() - started) / 1000);
    } catch (error) {
      if (this.stopped) return false;
      this.events.buildFailed();
      // A crashed or throwing worker: retried on the next scheduled tick. Reading the file
      // can itself wake the directory watch, so retrying on any scan would loop hot.
      if (this.attempted.get(name) === signature) this.crashed.add(name);
      this.log.error({ event: "build-failed", chainId, file: name, err: error }, "snapshot build failed; serving the last good data");
      return false;
    }
    if (!result.ok) {
      this.reject(name, chainId, result.reason, result.message);
      return false;
    }
    try {
      checkSnapshotOrder(result.chain.info, this.lastGood.get(result.chain.info.chainId)?.info);
    } catch (error) {
      if (!isSnapshotError(error)) throw error;
      this.reject(name, chainId, error.reason, `${name}: ${error.message}`);
      return false;
    }
    this.lastGood.set(result.chain.info.chainId, result.chain);
    this.removedNoticed.delete(result.chain.info.chainId);
    this.events.chainAccepted(result.chain.info);
    const { info } = result.chain;
    this.log.info(
      { event: "snapshot-accepted", chainId, file: name, generatedAt: info.generatedAt, tokens: info.tokenCount, pools: info.poolCount, buildMs: info.buildMs },
      `accepted ${name}`,
    );
    return true;
  }

  private noticeRemoved(present: ReadonlySet<ChainId>): void {
    for (const chainId of this.lastGood.keys()) {
      if (present.has(chainId) || this.removedNoticed.has(chainId)) continue;
      this.removedNoticed.add(chainId);
      this.log.warn({ event: "snapshot-file-removed", chainId }, `chain-${chainId}.msgpack was removed; its last good data stays served`);
    }
  }

  private reject(file: string, chainId: number, reason: string, message: string): void {
    this.events.fileRejected(reason);
    this.log.warn({ event: "snapshot-rejected", chainId, file, reason, error: message }, `rejected ${file}: ${message}`);
  }

  private async buildSnapshot(): Promise<void> {
    const started = performance.now();
    const chains = [...this.lastGood.values()];
    const version = snapshotVersion(chains);
    if (version === this.lastVersion) return; // the same files again: nothing to serve anew
    let tokenIndex: TokenIndexData;
    try {
      tokenIndex = await this.pool.run({ kind: "token-index", chains: chains.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens })) } satisfies TokenIndexTask);
    } catch (error) {
      if (this.stopped) return;
      this.events.buildFailed();
      this.log.error({ event: "build-failed", err: error }, "token index build failed; serving the last good snapshot");
      return;
    }
    const seconds = (performance.now() - started) / 1000;
    this.events.buildTimed("token-index", seconds);
    this.lastVersion = version;
    this.events.snapshotBuilt(version, chains, tokenIndex);
    this.log.info(
      { event: "snapshot-built", version: version.toString(16).padStart(8, "0"), chains: chains.map((c) => c.info.chainId), tokenInstances: tokenIndex.instanceCount, buildMs: Math.round(seconds * 1000) },
      "new snapshot built",
    );
  }
}

function fileSignature(path: string): string | null {
  try {
    const s = statSync(path);
    return s.isFile() ? `${s.size}:${s.mtimeMs}:${s.ino}` : null;
  } catch {
    return null; // gone between readdir and stat
  }
}
