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
/**
 * The thread's heap is collected this long after a chain or helper task ends, if no task came by then: soon, so the
 * task's garbage is gone before its swap (the token index builds meanwhile), but not between the tasks of a batch,
 * which follow each other within milliseconds. After a token index (the last task before a swap) it is collected at
 * once, and before one when the thread's last task left its garbage: a collection of a 160 MB heap of a chain's
 * build, nearly all garbage, took 7 ms (issue 30).
 */
const TRIM_AFTER_MS = 200;
/** Tasks running on this thread, and tasks ended so far (a trim scheduled by an earlier end is stale). */
let running = 0;
let ended = 0;
/** A task ended since the thread's heap was last collected. */
let untrimmed = false;

export default function run(task: BuildTask): Promise<ChainTaskResult> | Promise<void> | TokenIndexResult {
  niceness.follow(task.nice);
  running++;
  if (task.kind === "token-index" && untrimmed) trim();
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
    taskEnded(0);
    throw error;
  }
  const ends = () => taskEnded(task.kind === "token-index" ? 0 : TRIM_AFTER_MS);
  if (result instanceof Promise) void result.then(ends, ends);
  else ends();
  return result;
}

/**
 * A build worker stays alive between pushes (BUILD_WORKER_IDLE_S, BUILD_WORKERS_KEPT), and an idle thread allocates
 * nothing, so V8 would not collect what the last build left (its decoded records, digests and maps: 150-230 MB), nor
 * its handles to the shared columns it read (the chain's previous tables: a retired version stays resident while any
 * thread holds it): once the thread has been idle `afterMs`, its heap is collected. This needs the thread's event loop
 * to run while idle (build-pool.ts runs piscina with `atomics: "disabled"`).
 */
function taskEnded(afterMs: number): void {
  running--;
  untrimmed = true;
  const seen = ++ended;
  setTimeout(() => {
    if (running === 0 && seen === ended) trim();
  }, afterMs).unref();
}

function trim(): void {
  collectGarbageNow();
  untrimmed = false;
}
