/**
 * The history thread (a worker thread the supervisor starts: history-feed.ts): the one writer of the
 * history store. It receives each served chain file (its tables and change sets are shared memory, not
 * copied) and observes it, then compacts in small steps (history-service.ts); it tells the supervisor
 * what to log. Its figures are in the shared status cells.
 *
 * It runs at niceness HISTORY_THREAD_NICE (Linux: per thread, so the serving threads and the build workers
 * keep theirs): a file is written right after its swap is posted, and on a machine with few cores the write
 * would otherwise take a core from the serving threads while they swap and answer. Raising a thread's
 * niceness needs no privilege; where it fails, the thread runs at 0 as before.
 */
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { HistoryService } from "./history-service.js";
import { HistoryStatusCells } from "./history-status.js";
import { collectGarbageSoon } from "../util/collect-garbage.js";
import type { HistoryThreadInit, HistoryThreadMessage, HistoryThreadReport } from "./history-feed.js";

const init = workerData as HistoryThreadInit;
const port = parentPort!;
const report = (r: HistoryThreadReport) => port.postMessage(r);
const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The history thread's niceness: behind serving and builds (BUILD_WORKER_NICE's default) for the CPU, never starved. */
export const HISTORY_THREAD_NICE = 10;

try {
  setPriority(HISTORY_THREAD_NICE); // this thread only (Linux)
} catch {
  // not allowed here: the thread runs at the process's niceness
}

const status = new HistoryStatusCells(init.status);
let service: HistoryService;
try {
  service = new HistoryService(init.options, status, {
    failed: (what, error) => report({ type: "failed", what, message: describe(error) }),
    recovered: () => report({ type: "recovered" }),
    written: (file, outcome) => {
      if (outcome.kind === "observed" && outcome.gap) report({ type: "gap", chainId: file.chainId, generatedAt: file.generatedAt });
      // The file's tables are shared columns: this thread's handles to them keep a retired version resident until it
      // collects, and an idle thread allocates nothing that would make it (issue 30).
      collectGarbageSoon();
    },
  });
} catch (error) {
  status.state = "failed";
  report({ type: "failed", what: "open", message: describe(error) });
  process.exit(1);
}

port.on("message", (m: HistoryThreadMessage) => {
  switch (m.type) {
    case "file":
      service.enqueue(m.file, m.servedAtMs);
      break;
    case "close":
      service.close();
      port.close();
      break;
  }
});
