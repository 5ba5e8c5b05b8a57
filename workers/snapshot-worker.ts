/**
 * The piscina build worker: hands each task (src/snapshot/build-tasks.ts) to its module. Results are shared
 * columns, so handing them back copies nothing large; a file's problem comes back as a value, never thrown.
 */
import type { BuildTask, ChainTaskResult } from "../src/snapshot/build-tasks.js";
import { buildChainFile } from "../src/snapshot/chain-file-task.js";
import { compileTokenIndex } from "../src/snapshot/compile-token-index.js";
import { buildPoolRange } from "../src/snapshot/pool-range-task.js";
import { ThreadNiceness } from "../src/snapshot/thread-niceness.js";
import type { TokenIndexData } from "../src/tables/token-index.js";

/** This thread's niceness, following each task's cell. */
const niceness = new ThreadNiceness();

export default function run(task: BuildTask): Promise<ChainTaskResult> | Promise<void> | TokenIndexData {
  niceness.follow(task.nice);
  switch (task.kind) {
    case "chain":
      return buildChainFile(task, niceness);
    case "pool-range":
      return buildPoolRange(task, niceness);
    case "token-index":
      return compileTokenIndex(task.chains);
  }
}
