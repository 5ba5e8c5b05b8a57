/**
 * The supervisor's end of history (shared/spec/history.md §25): it starts the history thread
 * (history-thread.ts) and, each time a batch is published, posts it each chain file that started being
 * served with its change sets since the file served before (AcceptedChains.published's drafts). Posting
 * is all a publication does for history: the swap and its stream events never wait for it. A thread that
 * dies is started again after a second (history `failed` meanwhile).
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "../log/logger.js";
import type { ChangeSetDraft } from "../tables/change-sets.js";
import type { CompiledChain } from "../tables/compiled-chain.js";
import type { HistoryOptions } from "./history-service.js";
import { HistoryStatusCells } from "./history-status.js";
import type { ServedFile } from "./history-writer.js";

export interface HistoryThreadInit {
  readonly options: HistoryOptions;
  readonly status: SharedArrayBuffer;
}

export type HistoryThreadMessage =
  { readonly type: "file"; readonly file: ServedFile; readonly servedAtMs: number } | { readonly type: "close" };

export type HistoryThreadReport =
  | { readonly type: "failed"; readonly what: "open" | "write" | "compaction"; readonly message: string }
  | { readonly type: "recovered" }
  | { readonly type: "gap"; readonly chainId: number; readonly generatedAt: number };

/** The files a publication starts serving: per chain, the last draft's file with every draft's change lists. */
export function servedFiles(chains: readonly CompiledChain[], drafts: readonly ChangeSetDraft[]): ServedFile[] {
  const byChain = new Map<number, ChangeSetDraft[]>();
  for (const d of drafts) {
    let list = byChain.get(d.chainId);
    if (list === undefined) byChain.set(d.chainId, (list = []));
    list.push(d);
  }
  const out: ServedFile[] = [];
  for (const [chainId, list] of byChain) {
    const chain = chains.find((c) => c.info.chainId === chainId);
    const last = list[list.length - 1];
    if (chain === undefined || chain.info.generatedAt !== last.generatedAt) continue;
    out.push({
      chainId,
      generatedAt: last.generatedAt,
      id: last.id,
      previous: list[0].previous,
      lists: list.map(({ poolsUpserted, poolsRemoved, tokensUpserted, tokensRemoved }) => ({
        poolsUpserted,
        poolsRemoved,
        tokensUpserted,
        tokensRemoved,
      })),
      tables: { pools: chain.pools, tokens: chain.tokens, tokenByAddress: chain.tokenRun.byAddress },
    });
  }
  return out;
}

/** The history thread is started again this long after it exited; after it could not open the store, OPEN_RETRY_MS. */
const RESTART_MS = 1000;
const OPEN_RETRY_MS = 60_000;

export class HistoryFeed {
  readonly status = new HistoryStatusCells();
  private worker: Worker | null = null;
  private stopped = false;
  /** The thread's last start could not open the store. */
  private openFailed = false;

  constructor(
    private readonly threadFile: string,
    private readonly options: HistoryOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.openFailed = false;
    const worker = new Worker(this.threadFile, {
      workerData: { options: this.options, status: this.status.buffer } satisfies HistoryThreadInit,
    });
    this.worker = worker;
    worker.on("message", (r: HistoryThreadReport) => this.reported(r));
    worker.on("error", (error) => this.log.error({ event: "history-thread-error", err: error }, "the history thread failed"));
    worker.on("exit", (code) => {
      this.worker = null;
      if (this.stopped) return;
      this.status.state = "failed";
      // A store it could not open (a full disk, another format) waits for the operator: tried again each minute.
      const again = this.openFailed ? OPEN_RETRY_MS : RESTART_MS;
      this.log.error({ event: "history-thread-exit", code }, `the history thread exited (${code}); starting it again in ${again / 1000} s`);
      setTimeout(() => {
        if (!this.stopped) this.start();
      }, again).unref();
    });
  }

  /** A batch was published (served from `servedAtMs`): its chain files are observed (posted; nothing waits). */
  published(chains: readonly CompiledChain[], drafts: readonly ChangeSetDraft[], servedAtMs = Date.now()): void {
    if (this.worker === null) return; // files served while the thread restarts are a gap in history
    for (const file of servedFiles(chains, drafts))
      this.worker.postMessage({ type: "file", file, servedAtMs } satisfies HistoryThreadMessage);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage({ type: "close" } satisfies HistoryThreadMessage);
    const timer = setTimeout(() => void worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }

  private reported(r: HistoryThreadReport): void {
    switch (r.type) {
      case "failed":
        if (r.what === "open") this.openFailed = true;
        this.log.error({ event: "history-failed", what: r.what, reason: r.message }, `history ${r.what} failed: ${r.message}`);
        break;
      case "recovered":
        this.log.info({ event: "history-recovered" }, "history writes again");
        break;
      case "gap":
        this.log.info(
          { event: "history-gap", chainId: r.chainId, generatedAt: r.generatedAt },
          `history of chain ${r.chainId}: a gap before ${r.generatedAt}`,
        );
        break;
    }
  }
}
