/**
 * The build worker's helper task: the helper thread's end of a chain's two-thread build (helper-answer.ts)
 * making the file's hash while the chain's thread frames it, then doing the pools a chain's task offers it
 * (compile-pool-range.ts), both read from the same open file.
 */
import type { HelperJob, PoolRangeTask } from "./build-tasks.js";
import { FileSource } from "./byte-source.js";
import { compilePoolRange, type PoolRangeResult } from "./compile-pool-range.js";
import { answerOffer } from "./helper-answer.js";
import { hashOpenFile, type FileHash, type FileHashJob } from "./read-snapshot-file.js";
import type { ThreadNiceness } from "./thread-niceness.js";

export function buildPoolRange(task: PoolRangeTask, niceness: ThreadNiceness): Promise<void> {
  return answerOffer<HelperJob, PoolRangeResult, FileHashJob, FileHash>(
    task,
    (job, stopAsked) => {
      const perPool = niceness.perPool();
      const stop = () => {
        perPool();
        return stopAsked();
      };
      return compilePoolRange(job, new FileSource(job.fd, job.fileBytes, job.file), stop);
    },
    (job, stopAsked) => hashOpenFile(job, stopAsked),
  );
}
