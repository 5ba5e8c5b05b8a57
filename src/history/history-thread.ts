/**
 * The history thread (a worker thread the supervisor starts: history-feed.ts): the one writer of the
 * history store. It receives each served chain file (its tables and change sets are shared memory, not
 * copied) and observes it, then compacts in small steps (history-service.ts); it tells the supervisor
 * what to log. Its figures are in the shared status cells.
 */
import { parentPort, workerData } from "node:worker_threads";
import { HistoryService } from "./history-service.js";
import { HistoryStatusCells } from "./history-status.js";
import type { HistoryThreadInit, HistoryThreadMessage, HistoryThreadReport } from "./history-feed.js";

const init = workerData as HistoryThreadInit;
const port = parentPort!;
const report = (r: HistoryThreadReport) => port.postMessage(r);
const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

const status = new HistoryStatusCells(init.status);
let service: HistoryService;
try {
  service = new HistoryService(init.options, status, {
    failed: (what, error) => report({ type: "failed", what, message: describe(error) }),
    recovered: () => report({ type: "recovered" }),
    written: (file, outcome) => {
      if (outcome.kind === "observed" && outcome.gap) report({ type: "gap", chainId: file.chainId, generatedAt: file.generatedAt });
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
