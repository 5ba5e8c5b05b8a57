/**
 * The supervisor (main thread): runs the serving threads on one port, gives
 * each one every live snapshot (shared memory), the keys and readiness,
 * replaces a thread that dies, answers their metrics requests, and drains
 * them all on shutdown. It serves no HTTP itself.
 *
 * It keeps GATEWAY_THREADS threads listening. A thread that crashes after it
 * listened is replaced, at once the first time and then with an exponential
 * back-off (capped; reset after a quiet minute), so a thread that keeps
 * crashing never spins the CPU. A thread that cannot start (it exits or
 * fails to listen before it listens, or does not listen in time) is never
 * "replaced" by the exit handler: whoever started it decides (a rolling
 * restart stops and keeps the threads it has; the crash replacement backs off
 * and tries again). During a rolling restart one extra thread listens while
 * the thread it replaces drains.
 *
 * The TLS files the threads load are the supervisor's too (`ServingTls`): a
 * replacement thread loads the files in force, never what is on disk now, and
 * files held open for the threads are released once no starting thread needs
 * them.
 */
import { createServer } from "node:net";
import { Worker } from "node:worker_threads";
import type { KeysFile } from "../access/keys-file.js";
import type { BasketsFile } from "../baskets/basket-file.js";
import type { Logger } from "../log/logger.js";
import type { GatewayMetrics } from "../metrics/gateway-metrics.js";
import { MAX_SERVING_THREADS } from "../metrics/request-metrics.js";
import type { ServingThreadData } from "./serving-thread.js";
import { collectGarbageSoon } from "../util/collect-garbage.js";
import type { RetentionChanges } from "../serving/version-retention.js";
import type { FleetAnswer } from "../origin/fleet-view.js";
import type { OriginStatusRecord } from "../origin/origin-status.js";
import {
  SWAP_ACK_TIMEOUT_MS,
  type ServingThreadInit,
  type ServingThreadMessage,
  type SnapshotMessage,
  type SupervisorMessage,
} from "./messages.js";

interface ServingThread {
  readonly slot: number;
  readonly worker: Worker;
  /** Set when the supervisor asked it to drain (or gave up on its start): its exit is expected. */
  stopping: boolean;
  /** It reported that it listens. */
  listening: boolean;
  exited: boolean;
  /** The TLS files it starts with, until it has loaded them (it listens) or exited. */
  tls: ServingTls | null;
}

/** A snapshot broadcast whose change sets wait until every thread serves it. */
interface AwaitedSwap {
  readonly publication: number;
  /** Threads that have not answered `swapped` yet. */
  readonly waiting: Set<ServingThread>;
  readonly timer: NodeJS.Timeout;
  /** When its snapshot was posted to the threads (performance.now()). */
  readonly postedAt: number;
  /** Called once every thread serves it (or the wait gave up), after its stream events were published. */
  readonly whenServed: (() => void) | undefined;
}

/** The TLS files serving threads load (uWS reads them when a thread starts). */
export interface ServingTls {
  readonly files: NonNullable<ServingThreadInit["tls"]>;
  /** Called once no thread needs `files` any more (closes held descriptors). */
  release?(): void;
}

export interface SupervisorOptions {
  /** The built serving-thread module (dist/src/server/serving-thread.js). */
  readonly threadFile: string;
  readonly threads: number;
  /** Everything a serving thread starts with, but the port (resolved here), its slot and the TLS files. */
  readonly init: Omit<ServingThreadInit, "port" | "tls">;
  /** HTTPS files of the threads; absent or null: plain HTTP. */
  readonly tls?: ServingTls | null;
  readonly port: number;
  /** The fleet view (GET /v1/status/fleet); absent: none (no origin). */
  readonly fleet?: () => Promise<FleetAnswer>;
}

/** A thread that has not listened this long after it was started is given up (terminated). */
const START_TIMEOUT_MS = 20_000;
/** Crash replacement back-off: the first replacement is immediate, then 250 ms, doubling, at most 30 s. */
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 30_000;
/** A minute without a failure starts the back-off over. */
const BACKOFF_RESET_MS = 60_000;

/** A rolling restart stopped because a replacement could not start; the threads not yet replaced keep serving. */
export class RestartStoppedError extends Error {
  override name = "RestartStoppedError";
  constructor(
    /** Threads replaced before it stopped. */
    readonly replaced: number,
    cause: unknown,
  ) {
    super(
      `a replacement serving thread could not start (${cause instanceof Error ? cause.message : String(cause)}); ${replaced} thread${replaced === 1 ? "" : "s"} had been replaced, the others keep serving`,
      { cause },
    );
  }
}

export class Supervisor {
  private readonly threads = new Map<number, ServingThread>();
  /** Every live snapshot version, to hand to threads that start later. */
  private readonly live = new Map<number, SnapshotMessage>();
  private current: SnapshotMessage | null = null;
  private keys: { keys: KeysFile; keySlots: Readonly<Record<string, number>> };
  private baskets: BasketsFile;
  private ready = false;
  private origin: OriginStatusRecord | null = null;
  private stopping = false;
  private restarting: Promise<void> | null = null;
  private port = 0;
  private tls: ServingTls | null;
  /** Threads starting with each TLS file set (a set no longer in force is released when none is left). */
  private readonly tlsUsers = new Map<ServingTls, number>();
  /** Crash replacement: pending timer, whether one starts now, consecutive failures, the last one's time, and when the next may start. */
  private replaceTimer: NodeJS.Timeout | null = null;
  private replacing = false;
  private failures = 0;
  private lastFailureAt = Number.NEGATIVE_INFINITY;
  private nextReplacementAt = 0;
  private listeningCount = 0;
  /** Snapshots broadcast and not yet published to the streams, oldest first. */
  private readonly awaiting: AwaitedSwap[] = [];
  /** The last publication every thread was told to publish (0: none yet). */
  private published = 0;

  constructor(
    private readonly options: SupervisorOptions,
    private readonly metrics: GatewayMetrics,
    private readonly log: Logger,
  ) {
    if (options.threads < 1 || options.threads >= MAX_SERVING_THREADS)
      throw new Error(`threads must be 1..${MAX_SERVING_THREADS - 1} (one slot stays free for rolling restarts)`);
    this.keys = { keys: options.init.keys, keySlots: options.init.keySlots };
    this.baskets = options.init.baskets;
    this.tls = options.tls ?? null;
  }

  /** Starts every serving thread; resolves with the port they share. */
  async start(): Promise<number> {
    // uWS threads share a port only when it is named: resolve port 0 to a free one first.
    this.port = this.options.port === 0 ? await freePort(this.options.init.host) : this.options.port;
    await Promise.all(Array.from({ length: this.options.threads }, () => this.spawn(this.freeSlot())));
    return this.port;
  }

  /**
   * Serves a snapshot: every thread swaps it in and answers `swapped`; once
   * each has (or exited, or SWAP_ACK_TIMEOUT_MS passed), every thread is told to
   * publish its change sets to its streams (live.md §13: events only after the
   * swap serves everywhere), in the order the snapshots came; then `whenServed`.
   */
  publishSnapshot(message: SnapshotMessage, changes: RetentionChanges, whenServed?: () => void): void {
    this.live.set(message.version, message);
    this.current = message;
    this.broadcast(message);
    this.awaitSwaps(publicationOf(message), whenServed);
    this.applyRetention(changes);
  }

  private awaitSwaps(publication: number, whenServed: (() => void) | undefined): void {
    const waiting = new Set([...this.threads.values()].filter((t) => !t.exited));
    const timer = setTimeout(() => {
      if (entry.waiting.size > 0)
        this.log.warn(
          { event: "swap-ack-timeout", publication, waiting: [...entry.waiting].map((t) => t.slot) },
          `serving threads did not confirm a swap within ${SWAP_ACK_TIMEOUT_MS} ms; publishing its stream events anyway`,
        );
      entry.waiting.clear();
      this.flushPublications();
    }, SWAP_ACK_TIMEOUT_MS);
    const entry: AwaitedSwap = { publication, waiting, timer, postedAt: performance.now(), whenServed };
    this.awaiting.push(entry);
    this.flushPublications();
  }

  /** A thread swapped in a publication's snapshot (or is gone: `publication` null). */
  private swapDone(thread: ServingThread, publication: number | null): void {
    for (const entry of this.awaiting) if (publication === null || entry.publication === publication) entry.waiting.delete(thread);
    this.flushPublications();
  }

  /** Publishes, in order, every awaited snapshot every thread serves. */
  private flushPublications(): void {
    while (this.awaiting.length > 0 && this.awaiting[0].waiting.size === 0) {
      const entry = this.awaiting.shift()!;
      clearTimeout(entry.timer);
      this.published = Math.max(this.published, entry.publication);
      this.broadcast({ type: "publish", publication: entry.publication });
      const waitedMs = Math.round(performance.now() - entry.postedAt);
      this.log.info(
        { event: "snapshot-published", publication: entry.publication, waitedMs },
        `publication ${entry.publication} served by every thread after ${waitedMs} ms: its stream events go out`,
      );
      entry.whenServed?.();
    }
  }

  /** Drops retired versions, and the pool tables of versions kept for token-list cursors only, here and in every thread. */
  applyRetention({ retired, poolsReleased }: RetentionChanges): void {
    for (const version of retired) {
      this.live.delete(version);
      this.broadcast({ type: "retire", version });
    }
    for (const version of poolsReleased) {
      const message = this.live.get(version);
      if (message === undefined || message === this.current) continue;
      this.live.set(version, { ...message, chains: null });
      this.broadcast({ type: "release-pools", version });
    }
    // The versions' shared memory is freed once every thread, this one included, lets go of it.
    if (retired.length + poolsReleased.length > 0) collectGarbageSoon();
  }

  publishKeys(keys: KeysFile, keySlots: Readonly<Record<string, number>>): void {
    this.keys = { keys, keySlots };
    this.broadcast({ type: "keys", keys, keySlots });
  }

  publishBaskets(baskets: BasketsFile): void {
    this.baskets = baskets;
    this.broadcast({ type: "baskets", baskets });
  }

  markReady(): void {
    this.ready = true;
    this.broadcast({ type: "ready" });
  }

  /** The origin's state, for GET /v1/status (threads that start later get the last one). */
  publishOrigin(status: OriginStatusRecord): void {
    this.origin = status;
    this.broadcast({ type: "origin", status });
  }

  /**
   * Replaces every serving thread, one at a time: the replacement listens
   * before the old thread drains, so the port never lacks a listener. A
   * request to restart while one runs joins it. A replacement that cannot
   * start stops the restart (RestartStoppedError): nothing more is replaced,
   * the threads not yet replaced keep serving, and nothing is retried.
   */
  restartThreads(): Promise<void> {
    this.restarting ??= this.rollOver().finally(() => {
      this.restarting = null;
    });
    return this.restarting;
  }

  /**
   * Puts new TLS files in force: every thread is replaced, one at a time, by
   * one that loads them (after any restart that runs). When the first
   * replacement cannot start with them, nothing is replaced, the files in
   * force stay in force, `tls` is released, and it resolves with why.
   * Rejects with RestartStoppedError when a later replacement cannot start
   * (the new files stay in force; the threads not yet replaced keep theirs).
   */
  async replaceTls(tls: ServingTls): Promise<{ readonly applied: true } | { readonly applied: false; readonly reason: string }> {
    while (this.restarting !== null) await this.restarting.catch(() => {});
    if (this.stopping) {
      tls.release?.();
      return { applied: false, reason: "the gateway is stopping" };
    }
    const previous = this.tls;
    this.setTls(tls);
    let replaced = 0;
    const run = this.rollOver(() => replaced++).finally(() => {
      this.restarting = null;
    });
    this.restarting = run;
    try {
      await run;
      return { applied: true };
    } catch (error) {
      // Some threads load the new files already: they stay in force, the restart stopped (the caller logs it).
      if (replaced > 0) throw error;
      // Not one thread started with the new files: keep the ones in force.
      this.setTls(previous);
      const cause = error instanceof RestartStoppedError ? error.cause : error;
      return { applied: false, reason: cause instanceof Error ? cause.message : String(cause) };
    }
  }

  /** Spawns a replacement for each thread present now, then drains that thread; stops at the first replacement that cannot start. */
  private async rollOver(onReplaced: () => void = () => {}): Promise<void> {
    let replaced = 0;
    for (const old of [...this.threads.values()]) {
      if (this.stopping) return;
      if (old.stopping || old.exited) continue; // drained meanwhile, or crashed (the crash replacement covers it)
      try {
        await this.spawn(this.freeSlot());
      } catch (error) {
        throw new RestartStoppedError(replaced, error);
      }
      replaced++;
      onReplaced();
      await this.drain(old);
    }
  }

  /** A metrics slice no running thread writes (slices persist, so totals never go back). */
  private freeSlot(): number {
    for (let slot = 0; slot < MAX_SERVING_THREADS; slot++) if (!this.threads.has(slot)) return slot;
    throw new Error(`more than ${MAX_SERVING_THREADS} serving threads`);
  }

  /** Stops accepting, lets in-flight requests finish, closes every thread. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.replaceTimer) clearTimeout(this.replaceTimer);
    for (const entry of this.awaiting.splice(0)) clearTimeout(entry.timer);
    await Promise.all([...this.threads.values()].map((t) => this.drain(t)));
    this.setTls(null);
  }

  /** The running serving threads (diagnostics: slot and thread id). */
  serving(): ReadonlyArray<{ slot: number; threadId: number; worker: Worker }> {
    return [...this.threads.values()].map((t) => ({ slot: t.slot, threadId: t.worker.threadId, worker: t.worker }));
  }

  /** Threads listening and not draining. */
  listening(): number {
    return this.listeningCount;
  }

  private broadcast(message: SupervisorMessage): void {
    for (const thread of this.threads.values()) thread.worker.postMessage(message);
  }

  /** Recounts the threads that listen and do not drain; the gauge and a log line follow every change. */
  private recount(): void {
    let n = 0;
    for (const t of this.threads.values()) if (t.listening && !t.stopping) n++;
    if (n === this.listeningCount) return;
    this.listeningCount = n;
    this.metrics.servingThreads.set(n);
    this.log.debug(
      { event: "serving-threads", listening: n, configured: this.options.threads },
      `${n} serving threads listening (${this.options.threads} configured)`,
    );
  }

  private setTls(tls: ServingTls | null): void {
    const old = this.tls;
    this.tls = tls;
    if (old !== null && old !== tls && !this.tlsUsers.has(old)) old.release?.();
  }

  private releaseTls(thread: ServingThread): void {
    const tls = thread.tls;
    if (tls === null) return;
    thread.tls = null;
    const users = (this.tlsUsers.get(tls) ?? 1) - 1;
    if (users > 0) {
      this.tlsUsers.set(tls, users);
      return;
    }
    this.tlsUsers.delete(tls);
    if (tls !== this.tls) tls.release?.();
  }

  /** Starts a thread in `slot`; resolves once it listens, rejects when it exits, fails to listen, or does not listen in time. */
  private spawn(slot: number): Promise<void> {
    const tls = this.tls;
    if (tls !== null) this.tlsUsers.set(tls, (this.tlsUsers.get(tls) ?? 0) + 1);
    const data: ServingThreadData = {
      ...this.options.init,
      ...this.keys,
      baskets: this.baskets,
      tls: tls?.files ?? null,
      port: this.port,
      threadSlot: slot,
    };
    const worker = new Worker(this.options.threadFile, { workerData: data });
    const thread: ServingThread = { slot, worker, stopping: false, listening: false, exited: false, tls };
    this.threads.set(slot, thread);
    // Everything it must serve: every live version (for cursors), the current one last.
    for (const message of this.live.values()) if (message !== this.current) worker.postMessage(message);
    if (this.current) worker.postMessage(this.current);
    if (this.ready) worker.postMessage({ type: "ready" } satisfies SupervisorMessage);
    if (this.origin !== null) worker.postMessage({ type: "origin", status: this.origin } satisfies SupervisorMessage);
    // Its published mark (streams open there, and wait for it): now, unless the current snapshot is still awaited
    // (then the `publish` every thread gets once it is).
    if (this.current === null || publicationOf(this.current) <= this.published)
      worker.postMessage({ type: "publish", publication: this.published } satisfies SupervisorMessage);

    return new Promise((resolve, reject) => {
      const giveUp = (why: string) => {
        thread.stopping = true;
        void worker.terminate();
        reject(new Error(why));
      };
      const startTimer = setTimeout(() => giveUp(`serving thread ${slot} did not listen within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      worker.on("message", (message: ServingThreadMessage) => {
        switch (message.type) {
          case "listening":
            clearTimeout(startTimer);
            thread.listening = true;
            this.releaseTls(thread); // uWS loaded the files when the app was made
            this.recount();
            resolve();
            break;
          case "listen-failed":
            clearTimeout(startTimer);
            giveUp(message.reason);
            break;
          case "metrics-request":
            this.metrics
              .text()
              .then((text) => worker.postMessage({ type: "metrics-text", requestId: message.requestId, text } satisfies SupervisorMessage))
              .catch((error: unknown) => {
                this.log.error({ event: "metrics-failed", err: error }, "metrics rendering failed");
                worker.postMessage({ type: "metrics-failed", requestId: message.requestId } satisfies SupervisorMessage);
              });
            break;
          case "fleet-request": {
            const fleet = this.options.fleet ?? (() => Promise.resolve<FleetAnswer>({ kind: "unavailable", reason: "no-origin" }));
            const reply = (answer: FleetAnswer) =>
              worker.postMessage({ type: "fleet-answer", requestId: message.requestId, answer } satisfies SupervisorMessage);
            fleet().then(reply, () => reply({ kind: "unavailable", reason: "redis-unreachable" }));
            break;
          }
          case "drained":
            break;
          case "swapped":
            this.swapDone(thread, message.publication);
            break;
        }
      });
      worker.on("error", (error) => this.log.error({ event: "serving-thread-error", slot, err: error }, "serving thread failed"));
      worker.on("exit", (code) => {
        clearTimeout(startTimer);
        thread.exited = true;
        if (this.threads.get(slot) === thread) this.threads.delete(slot);
        this.metrics.threadExited(slot);
        this.swapDone(thread, null);
        this.releaseTls(thread);
        this.recount();
        if (!thread.listening) {
          // A start that failed: whoever started it decides what follows.
          reject(new Error(`serving thread ${slot} exited with code ${code} before listening`));
          return;
        }
        if (thread.stopping || this.stopping) return;
        this.metrics.threadRestarts.inc();
        const delayMs = this.noteFailure();
        this.log.error(
          { event: "serving-thread-exited", slot, code, retryInMs: delayMs },
          `serving thread ${slot} exited unexpectedly (code ${code}); starting a replacement${delayMs > 0 ? ` in ${delayMs} ms` : ""}`,
        );
        this.replaceSoon();
      });
    });
  }

  /**
   * Counts a failure (a crash, or a replacement that could not start) and
   * puts off the next replacement: not at all after the first failure, then
   * 250 ms, doubling, at most 30 s; a minute without a failure starts over.
   * Returns the delay.
   */
  private noteFailure(): number {
    const now = Date.now();
    if (now - this.lastFailureAt > BACKOFF_RESET_MS) this.failures = 0;
    this.failures++;
    this.lastFailureAt = now;
    const delayMs = this.failures <= 1 ? 0 : Math.min(BACKOFF_BASE_MS * 2 ** (this.failures - 2), BACKOFF_MAX_MS);
    this.nextReplacementAt = now + delayMs;
    return delayMs;
  }

  /** Schedules the next replacement when threads are missing (one at a time, never before the back-off allows). */
  private replaceSoon(): void {
    if (this.stopping || this.replaceTimer !== null || this.replacing || this.running() >= this.options.threads) return;
    this.replaceTimer = setTimeout(
      () => {
        this.replaceTimer = null;
        void this.replaceOne();
      },
      Math.max(0, this.nextReplacementAt - Date.now()),
    );
  }

  /** Starts one replacement thread; then schedules the next if threads are still missing. */
  private async replaceOne(): Promise<void> {
    if (this.replacing || this.stopping || this.running() >= this.options.threads) return;
    this.replacing = true;
    const slot = this.freeSlot();
    try {
      await this.spawn(slot);
      this.log.info({ event: "serving-thread-replaced", slot }, `serving thread ${slot} started as a replacement`);
    } catch (error) {
      if (!this.stopping) {
        const delayMs = this.noteFailure();
        this.log.error(
          { event: "serving-thread-replace-failed", slot, err: error, retryInMs: delayMs },
          `could not start a replacement serving thread (${(error as Error).message}); trying again in ${delayMs} ms`,
        );
      }
    } finally {
      this.replacing = false;
      this.replaceSoon();
    }
  }

  /** Threads starting or listening, not draining. */
  private running(): number {
    let n = 0;
    for (const t of this.threads.values()) if (!t.stopping) n++;
    return n;
  }

  /** Asks a thread to drain; it closes its sockets and ends by itself (terminated only if it hangs). */
  private drain(thread: ServingThread): Promise<void> {
    thread.stopping = true;
    this.recount();
    if (thread.exited) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => void thread.worker.terminate(), 4800);
      thread.worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      thread.worker.postMessage({ type: "drain" } satisfies SupervisorMessage);
    });
  }
}

/** The publication a snapshot message is (0 for a message without change sets). */
function publicationOf(message: SnapshotMessage): number {
  return message.changes?.publication ?? 0;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
