/**
 * The piscina build worker: hands each task (src/snapshot/build-tasks.ts) to its module. Results are shared
 * columns, so handing them back copies nothing large; a file's problem comes back as a value, never thrown.
 */
import type { BuildTask, ChainTaskResult, TokenIndexResult } from "../src/snapshot/build-tasks.js";
import { buildChainFile } from "../src/snapshot/chain-file-task.js";
import { compileKeptTokenIndex } from "../src/snapshot/compile-token-index.js";
import { buildPoolRange } from "../src/snapshot/pool-range-task.js";
import { ThreadNiceness } from "../src/snapshot/thread-niceness.js";
import { collectGarbageNow } from "../src/util/collect-garbage.js";

/** This thread's niceness, following each task's cell. */
const niceness = new ThreadNiceness();
/** The thread's heap is collected this long after its last task ends, if no task runs by then. */
const TRIM_AFTER_MS = 1000;
/** Tasks running on this thread, and tasks ended so far (a trim scheduled by an earlier end is stale). */
let running = 0;
let ended = 0;

export default function run(task: BuildTask): Promise<ChainTaskResult> | Promise<void> | TokenIndexResult {
  niceness.follow(task.nice);
  running++;
  let result: Promise<ChainTaskResult> | Promise<void> | TokenIndexResult;
  try {
    switch (task.kind) {
      case "chain":
        result = buildChainFile(task, niceness);
        break;
      case "pool-range":
        result = buildPoolRange(task, niceness);
        break;
      case "token-index":
        result = { ...compileKeptTokenIndex(task.chains, () => niceness.check(), task.previous), schedule: niceness.taskReport() };
        break;
    }
  } catch (error) {
    taskEnded();
    throw error;
  }
  if (result instanceof Promise) void result.then(taskEnded, taskEnded);
  else taskEnded();
  return result;
}

/**
 * A build worker stays alive between pushes (BUILD_WORKER_IDLE_S), and an idle thread allocates nothing, so V8 would
 * not collect what the last build left (its decoded records, digests and maps: hundreds of MB): once the thread has
 * been idle TRIM_AFTER_MS, its heap is collected (the shared columns it handed over are not on it).
 */
function taskEnded(): void {
  running--;
  const seen = ++ended;
  setTimeout(() => {
    if (running === 0 && seen === ended) collectGarbageNow();
  }, TRIM_AFTER_MS).unref();
}
