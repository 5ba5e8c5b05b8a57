/**
 * The supervisor (main thread): runs the serving threads on one port, gives
 * each one every live snapshot (shared memory), the keys and readiness,
 * replaces a thread that dies, answers their metrics requests, and drains
 * them all on shutdown. It serves no HTTP itself.
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
import type { RetentionChanges } from "../snapshot/version-retention.js";
import type { ServingThreadInit, ServingThreadMessage, SnapshotMessage, SupervisorMessage } from "./messages.js";

interface ServingThread {
  readonly slot: number;
  readonly worker: Worker;
  /** Set when the supervisor asked it to drain: its exit is expected. */
  stopping: boolean;
}

export interface SupervisorOptions {
  /** The built serving-thread module (dist/src/server/serving-thread.js). */
  readonly threadFile: string;
  readonly threads: number;
  /** Everything a serving thread starts with, but the port (resolved here) and its slot. */
  readonly init: Omit<ServingThreadInit, "port">;
  readonly port: number;
}

export class Supervisor {
  private readonly threads = new Map<number, ServingThread>();
  /** Every live snapshot version, to hand to threads that start later. */
  private readonly live = new Map<number, SnapshotMessage>();
  private current: SnapshotMessage | null = null;
  private keys: { keys: KeysFile; keySlots: Readonly<Record<string, number>> };
  private baskets: BasketsFile;
  private ready = false;
  private stopping = false;
  private restarting: Promise<void> | null = null;
  private port = 0;

  constructor(
    private readonly options: SupervisorOptions,
    private readonly metrics: GatewayMetrics,
    private readonly log: Logger,
  ) {
    if (options.threads < 1 || options.threads >= MAX_SERVING_THREADS) throw new Error(`threads must be 1..${MAX_SERVING_THREADS - 1} (one slot stays free for rolling restarts)`);
    this.keys = { keys: options.init.keys, keySlots: options.init.keySlots };
    this.baskets = options.init.baskets;
  }

  /** Starts every serving thread; resolves with the port they share. */
  async start(): Promise<number> {
    // uWS threads share a port only when it is named: resolve port 0 to a free one first.
    this.port = this.options.port === 0 ? await freePort(this.options.init.host) : this.options.port;
    await Promise.all(Array.from({ length: this.options.threads }, () => this.spawn(this.freeSlot())));
    this.metrics.servingThreads.set(this.threads.size);
    return this.port;
  }

  publishSnapshot(message: SnapshotMessage, changes: RetentionChanges): void {
    this.live.set(message.version, message);
    this.current = message;
    this.broadcast(message);
    this.applyRetention(changes);
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

  /**
   * Replaces every serving thread, one at a time: the replacement listens
   * before the old thread drains, so the port never lacks a listener. A
   * request to restart while one runs joins it.
   */
  restartThreads(): Promise<void> {
    this.restarting ??= (async () => {
      try {
        for (const old of [...this.threads.values()]) {
          if (this.stopping) return;
          await this.spawn(this.freeSlot());
          await this.drain(old);
        }
      } finally {
        this.restarting = null;
      }
    })();
    return this.restarting;
  }

  /** A metrics slice no running thread writes (slices persist, so totals never go back). */
  private freeSlot(): number {
    for (let slot = 0; slot < MAX_SERVING_THREADS; slot++) if (!this.threads.has(slot)) return slot;
    throw new Error(`more than ${MAX_SERVING_THREADS} serving threads`);
  }

  /** Stops accepting, lets in-flight requests finish, closes every thread. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.threads.values()].map((t) => this.drain(t)));
  }

  /** The running serving threads (diagnostics: slot and thread id). */
  serving(): ReadonlyArray<{ slot: number; threadId: number; worker: Worker }> {
    return [...this.threads.values()].map((t) => ({ slot: t.slot, threadId: t.worker.threadId, worker: t.worker }));
  }

  private broadcast(message: SupervisorMessage): void {
    for (const thread of this.threads.values()) thread.worker.postMessage(message);
  }

  private spawn(slot: number): Promise<void> {
    const data: ServingThreadData = { ...this.options.init, ...this.keys, baskets: this.baskets, port: this.port, threadSlot: slot };
    const worker = new Worker(this.options.threadFile, { workerData: data });
    const thread: ServingThread = { slot, worker, stopping: false };
    this.threads.set(slot, thread);
    // Everything it must serve: every live version (for cursors), the current one last.
    for (const message of this.live.values()) if (message !== this.current) worker.postMessage(message);
    if (this.current) worker.postMessage(this.current);
    if (this.ready) worker.postMessage({ type: "ready" } satisfies SupervisorMessage);

    return new Promise((resolve, reject) => {
      let listening = false;
      worker.on("message", (message: ServingThreadMessage) => {
        switch (message.type) {
          case "listening":
            listening = true;
            resolve();
            break;
          case "listen-failed":
            thread.stopping = true;
            void worker.terminate();
            reject(new Error(message.reason));
            break;
          case "metrics-request":
            this.metrics
              .text()
              .then((text) => worker.postMessage({ type: "metrics-text", requestId: message.requestId, text } satisfies SupervisorMessage))
              .catch((error: unknown) => this.log.error({ event: "metrics-failed", err: error }, "metrics rendering failed"));
            break;
          case "drained":
            break;
        }
      });
      worker.on("error", (error) => this.log.error({ event: "serving-thread-error", slot, err: error }, "serving thread failed"));
      worker.on("exit", (code) => {
        if (this.threads.get(slot) === thread) this.threads.delete(slot);
        this.metrics.servingThreads.set(this.threads.size);
        if (!listening) reject(new Error(`serving thread ${slot} exited with code ${code} before listening`));
        if (thread.stopping || this.stopping) return;
        this.metrics.threadRestarts.inc();
        this.log.error({ event: "serving-thread-exited", slot, code }, `serving thread ${slot} exited unexpectedly (code ${code}); starting a replacement`);
        this.spawn(this.freeSlot())
          .then(() => {
            this.metrics.servingThreads.set(this.threads.size);
            this.log.info({ event: "serving-thread-replaced", slot }, `serving thread ${slot} replaced`);
          })
          .catch((error: unknown) => this.log.error({ event: "serving-thread-replace-failed", slot, err: error }, "could not replace a serving thread"));
      });
    });
  }

  /** Asks a thread to drain; it closes its sockets and ends by itself (terminated only if it hangs). */
  private drain(thread: ServingThread): Promise<void> {
    thread.stopping = true;
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
