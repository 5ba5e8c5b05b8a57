/**
 * The loader's build threads: a piscina pool of build workers (workers/snapshot-worker.ts runs the tasks of
 * build-tasks.ts), and the mechanism around it. The loader decides what to build and when; this module
 * decides how it runs:
 *
 * - niceness: the one shared cell every task's thread follows (thread-niceness.ts), kept up to date while
 *   tasks run: 0 before anything serves and while the serving threads are idle; while they are busy,
 *   BUILD_WORKER_NICE for a file just pushed, lowered as the push ages, to 0 when it is FRESHNESS_TARGET_S old
 *   (a build under load is never starved for longer: docs/decisions/013-incremental-builds.md);
 * - two threads on one chain: a large file builds on both workers when the serving threads are idle
 *   (mayShare), its chain task beside a helper task, joined by a helper link (helper-link.ts;
 *   docs/decisions/003-two-threads-on-one-chain.md);
 * - the early token index: such a chain task posts its token data before it finishes, handed to the
 *   loader's `onEarlyTokens` (docs/decisions/004-early-token-index.md).
 *
 * An idle worker lives BUILD_WORKER_IDLE_S (default 10 s: a re-push within it starts at once, on warm code) and
 * collects its heap soon after its last task (workers/snapshot-worker.ts); BUILD_WORKERS_KEPT of them (default 2) never exit
 * for being idle.
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import type { Logger } from "../log/logger.js";
import type { BuildTask, ChainFileInput, ChainTask, ChainTaskResult, EarlyTokens, PoolRangeTask, TokenIndexResult } from "./build-tasks.js";
import type { KeptTokenIndex } from "./compile-token-index.js";
import { openHelperLink } from "./helper-link.js";

/** Niceness of a build worker by default once a snapshot serves: under load the serving threads get the CPU first. */
export const DEFAULT_WORKER_NICE = 10;
/** Serving threads' event-loop utilization from which a build yields the CPU (BUILD_WORKER_NICE). */
export const BUSY_SERVING_LOAD = 0.25;
/** How often a running build's niceness follows the serving threads' load. */
export const NICE_UPDATE_MS = 250;
/** Default BuildPoolOptions.splitFromBytes: a smaller file builds in about a second on one thread. */
export const SPLIT_FROM_BYTES = 16 << 20;
/** Default FRESHNESS_TARGET_S: the age of a push by which its build runs at the serving threads' priority. */
export const DEFAULT_FRESHNESS_TARGET_S = 10;
/**
 * Default BUILD_WORKER_IDLE_S: how long an idle build worker lives. Kept short: on the large set two build workers
 * kept alive between pushes held about 1.2 GiB more resident than exited ones (measured while an idle worker could not
 * collect its heap: see `atomics` below), against a few hundred milliseconds to start one anew (bench/RESULTS.md,
 * issue 30).
 */
export const DEFAULT_WORKER_IDLE_S = 10;
/**
 * Default BUILD_WORKERS_KEPT: build workers that never exit for being idle. Two, so a two-thread push starts on two
 * warm threads: on the large set (2026-11-28, 2 cores, interleaved push probes of chain 8453) rename -> served fell
 * by 0.5-1.1 s a push (3.0-3.4 s against 3.6-4.3 s at 2 and 5 % changed, 4.2 against 5.1 s at 20 %), for 200-470
 * MiB more resident than workers that exited. That was while an idle worker could not collect its heap; now that it
 * does, two kept cost 50-120 MiB 10 s after a push, and in one pair the push was served within 0.15 s of cold workers
 * (docs/decisions/013-incremental-builds.md, addendum of the sixth pass). With one kept, its helper still started cold
 * and the push was not served sooner (bench/RESULTS.md, issue 30). `0` gives the memory back at that price.
 */
export const DEFAULT_WORKERS_KEPT = 2;

export interface BuildPoolOptions {
  readonly workerFile: string;
  /** Heap limit of a build worker (MB); a build over it fails. */
  readonly workerMaxOldGenerationMb: number | null;
  /** Seconds an idle build worker lives (default DEFAULT_WORKER_IDLE_S; 0: it exits after each build). */
  readonly workerIdleS?: number;
  /** Workers kept alive however long they are idle (default DEFAULT_WORKERS_KEPT; at most `threads`). */
  readonly workersKept?: number;
  /** Build worker threads (at least 1). */
  readonly threads: number;
  /** Files of at least this many bytes may build on two threads (default SPLIT_FROM_BYTES). */
  readonly splitFromBytes?: number;
  /** Niceness of the build threads while the serving threads are busy (default DEFAULT_WORKER_NICE). */
  readonly workerNice?: number;
  /** How busy the serving threads have been lately, 0-1 (the largest event-loop utilization); absent: always busy. */
  readonly servingLoad?: () => number;
  /** Whether a snapshot serves: before one does, builds never yield the CPU. */
  readonly serving: () => boolean;
  /** Seconds after a push by which its build runs at niceness 0 even under load (default DEFAULT_FRESHNESS_TARGET_S). */
  readonly freshnessTargetS?: number;
  /** The clock (ms) the pushes' ages are read on (default performance.now). */
  readonly now?: () => number;
}

/** What runs the tasks on worker threads: piscina; a test may hand its own. */
export interface TaskRunner {
  run(task: BuildTask, options?: { transferList: MessagePort[] }): Promise<unknown>;
  destroy(): Promise<void>;
}

/** A two-thread build of one chain file: `onEarlyTokens` gets its token data before it finishes (null: not wanted). */
export interface TwoThreads {
  readonly onEarlyTokens: ((tokens: EarlyTokens) => void) | null;
}

export class BuildPool {
  /** The niceness build tasks should run at (shared with the workers: ChainTask.nice). */
  private readonly niceCell = new Int32Array(new SharedArrayBuffer(4));
  private niceTimer: NodeJS.Timeout | null = null;
  private tasksRunning = 0;
  private stopped = false;
  private readonly runner: TaskRunner;
  /** When the files now building were pushed (their scan started), on `now`'s clock; null: none. */
  private pushedAt: number | null = null;

  constructor(
    private readonly options: BuildPoolOptions,
    private readonly log: Logger,
    runner?: TaskRunner,
  ) {
    const resourceLimits = options.workerMaxOldGenerationMb ? { maxOldGenerationSizeMb: options.workerMaxOldGenerationMb } : undefined;
    this.runner =
      runner ??
      new Piscina({
        filename: options.workerFile,
        maxThreads: options.threads,
        minThreads: Math.min(options.threads, options.workersKept ?? DEFAULT_WORKERS_KEPT),
        idleTimeout: (options.workerIdleS ?? DEFAULT_WORKER_IDLE_S) * 1000,
        resourceLimits,
        // Tasks arrive as messages on the worker's event loop. piscina's default ("sync") parks an idle worker in
        // Atomics.wait, which stops its event loop: the heap trim a second after a task (workers/snapshot-worker.ts)
        // never ran, and a kept worker held its last build's garbage, and through it the previous chain's shared
        // columns, until its next task (issue 30). A task is seconds of work; a message costs microseconds.
        atomics: "disabled",
      });
  }

  /**
   * Niceness a build should run at now: none before a snapshot serves or while the serving threads are
   * idle (nothing to yield to); while they are busy, BUILD_WORKER_NICE, lowered in step with the push's age to
   * 0 at FRESHNESS_TARGET_S (pushed: see `pushed`).
   */
  nice(): number {
    if (!this.options.serving()) return 0;
    const load = this.options.servingLoad?.() ?? 1;
    if (load < BUSY_SERVING_LOAD) return 0;
    const base = this.options.workerNice ?? DEFAULT_WORKER_NICE;
    if (this.pushedAt === null) return base;
    const ageS = (this.now() - this.pushedAt) / 1000;
    const target = this.options.freshnessTargetS ?? DEFAULT_FRESHNESS_TARGET_S;
    return Math.round(base * Math.min(1, Math.max(0, 1 - ageS / target)));
  }

  /**
   * The files about to build were pushed at `atMs` (`now`'s clock: their scan started), or nothing is waiting any
   * more (null): builds under load gain priority as that push ages.
   */
  pushed(atMs: number | null): void {
    this.pushedAt = atMs;
  }

  /** How long ago the files now building were pushed (ms; 0 when none is waiting). */
  pushedWaitMs(): number {
    return this.pushedAt === null ? 0 : this.now() - this.pushedAt;
  }

  /** The clock of `pushed`. */
  now(): number {
    return this.options.now?.() ?? performance.now();
  }

  /** Whether a file of this many bytes may build on two threads now: two workers, a large file, idle serving threads. */
  mayShare(fileBytes: number): boolean {
    return this.options.threads >= 2 && fileBytes >= (this.options.splitFromBytes ?? SPLIT_FROM_BYTES) && this.nice() === 0;
  }

  /** Builds one chain file: on one thread, or with `twoThreads` on two (see mayShare). */
  buildChainFile(input: ChainFileInput, twoThreads: TwoThreads | null): Promise<ChainTaskResult> {
    const task: ChainTask = { kind: "chain", nice: this.niceCell, ...input, helper: null, early: null };
    return twoThreads === null ? this.run<ChainTaskResult>(task) : this.runWithHelper(task, twoThreads);
  }

  /** Builds the cross-chain token index of these chains' token data (reusing `previous`, a kept index, for its unchanged chains). */
  buildTokenIndex(inputs: readonly EarlyTokens[], previous: KeptTokenIndex | null = null): Promise<TokenIndexResult> {
    const chains = inputs.map(({ chainId, sha256, tokens, run }) => ({ chainId, sha256, tokens, run }));
    return this.run<TokenIndexResult>({ kind: "token-index", nice: this.niceCell, chains, previous });
  }

  /** Cancels what runs (its promises reject) and ends the threads. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.runner.destroy();
  }

  /**
   * Runs a chain task with a helper task beside it that builds part of its pools on a second thread if it
   * starts in time (helper-link.ts); neither task waits for the other to start.
   */
  private async runWithHelper(task: ChainTask, twoThreads: TwoThreads): Promise<ChainTaskResult> {
    const { chainEnd, helperEnd } = openHelperLink();
    const helper: PoolRangeTask = { kind: "pool-range", nice: this.niceCell, ...helperEnd };
    const early = twoThreads.onEarlyTokens === null ? null : new MessageChannel();
    let earlyDelivered = false;
    const deliverEarly = (tokens: EarlyTokens) => {
      if (earlyDelivered) return;
      earlyDelivered = true;
      twoThreads.onEarlyTokens!(tokens);
    };
    if (early !== null) early.port2.once("message", deliverEarly);
    // The chain's task first: the pool's queue is first come, first served, and a helper on the only free thread
    // would leave the chain's task waiting for another. The helper is not awaited: one that waits for a thread
    // (at start-up, the other builder's file) does nothing when it starts after the chain's task is done. A
    // helper that fails while building fails the chain's task, which is logged there.
    const chain = this.run<ChainTaskResult>(
      { ...task, helper: chainEnd, early: early?.port1 ?? null },
      early === null ? [chainEnd.port] : [chainEnd.port, early.port1],
    );
    void this.run<void>(helper, [helperEnd.port]).catch((error: unknown) => {
      if (!this.stopped) this.log.debug({ event: "build-helper-failed", err: error }, "build helper task failed");
    });
    try {
      return await chain;
    } finally {
      if (early !== null) {
        // The early tokens travel on a port of their own, which this thread may not have read yet when the task's
        // result (on piscina's port) arrives: what the worker sent is taken from the queue before the port closes.
        const queued = receiveMessageOnPort(early.port2);
        if (queued !== undefined) deliverEarly(queued.message as EarlyTokens);
        early.port2.close();
      }
    }
  }

  /** Runs a build task with its niceness kept up to date (every NICE_UPDATE_MS) while it runs. */
  private async run<T>(task: BuildTask, transferList?: MessagePort[]): Promise<T> {
    const update = () => Atomics.store(this.niceCell, 0, this.nice());
    update();
    this.tasksRunning++;
    this.niceTimer ??= setInterval(update, NICE_UPDATE_MS);
    try {
      return (await this.runner.run(task, transferList === undefined ? undefined : { transferList })) as T;
    } finally {
      if (--this.tasksRunning === 0 && this.niceTimer !== null) {
        clearInterval(this.niceTimer);
        this.niceTimer = null;
      }
    }
  }
}
