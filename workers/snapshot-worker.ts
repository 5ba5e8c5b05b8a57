/**
 * Piscina build worker. Two tasks, both pure functions of their input:
 * - `chain`: read, decode, validate and compile one chain file, and diff it
 *   against the chain's last accepted file (its change set);
 * - `token-index`: build the cross-chain token index from compiled chains.
 * Results are shared columns, so handing them back copies nothing large.
 * Failures are returned as values (a SnapshotError's reason and message),
 * never thrown, so the caller can log and count them.
 */
import { setPriority } from "node:os";
import { basename } from "node:path";
import { type ChainTask, type ChainTaskResult, type TokenIndexTask } from "../src/snapshot/build-tasks.js";
import { checkAdmission } from "../src/snapshot/chain-admission.js";
import { compileChain } from "../src/snapshot/compile-chain.js";
import { compileTokenIndex } from "../src/snapshot/compile-token-index.js";
import { diffChain } from "../src/snapshot/diff-chain.js";
import { isSnapshotError, SnapshotError } from "../src/snapshot/snapshot-error.js";
import { openSnapshotFile, openSnapshotSource } from "../src/snapshot/read-snapshot-file.js";
import type { PoolSource } from "../src/snapshot/pool-stream.js";
import type { TokenIndexData } from "../src/tables/token-index.js";

/**
 * Once a snapshot serves, builds yield the CPU to the serving threads, so
 * requests keep their latency while a snapshot builds; before that (start-up)
 * nothing is served and the build takes its full share. On Linux a thread's
 * priority is its own: this sets the build worker's thread only, never the
 * serving threads of the same process.
 */
let niceness = 0;
/** The current task's wanted niceness (build-tasks.ts). */
let wanted: Int32Array | null = null;
/** Pools between two looks at the wanted niceness. */
const NICE_CHECK_POOLS = 1024;

function followNiceness(): void {
  if (wanted !== null) setNiceness(Atomics.load(wanted, 0));
}

function setNiceness(nice: number): void {
  if (nice === niceness) return;
  try {
    setPriority(nice);
    niceness = nice;
  } catch {
    // Not permitted here (raising the priority back needs CAP_SYS_NICE): keep the current one.
  }
}

export default function run(task: ChainTask | TokenIndexTask): ChainTaskResult | TokenIndexData {
  wanted = task.nice;
  followNiceness();
  return task.kind === "chain" ? buildChain(task) : compileTokenIndex(task.chains);
}

function buildChain(task: ChainTask): ChainTaskResult {
  let sha256: string | null = null;
  let generatedAt: number | null = null;
  try {
    // Hashed in a first pass; then read again through a window as the pools are taken, so the
    // build holds neither the whole file nor its whole decoded value (several times its size).
    const file = openSnapshotFile(task.path, task.maxBytes);
    let chain;
    try {
      sha256 = file.sha256;
      if (task.knownSha256.includes(sha256)) return { status: "known", sha256 };
      const source = {
        file: basename(task.path),
        fileBytes: file.source.length,
        sha256,
        fileMtimeMs: file.mtimeMs,
        logoTemplate: task.logoTemplate,
      };
      const { snapshot, pools } = openSnapshotSource(file.source, file.chainId, task.logoTemplate);
      generatedAt = snapshot.generatedAt;
      checkAdmission(snapshot.generatedAt, task.bounds);
      chain = compileChain(snapshot, source, followingNiceness(pools));
      if (file.changedSinceOpen()) {
        throw new SnapshotError(
          "io",
          `${source.file}: the file was written while it was read (its size or times changed); it is read again on the next scan`,
        );
      }
    } finally {
      file.close();
    }
    // The change set against the chain's last accepted file (live.md §12), timed as its own build phase.
    return { status: "accepted", chain, diff: diffChain(task.previous, chain) };
  } catch (error) {
    if (isSnapshotError(error)) return { status: "rejected", reason: error.reason, message: error.message, sha256, generatedAt };
    throw error;
  }
}

/** The pools as they are taken, looking at the wanted niceness every NICE_CHECK_POOLS pools. */
function followingNiceness(pools: PoolSource): PoolSource {
  let taken = 0;
  return {
    count: pools.count,
    next() {
      if (++taken % NICE_CHECK_POOLS === 0) followNiceness();
      return pools.next();
    },
  };
}
