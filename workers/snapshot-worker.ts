/**
 * Piscina build worker. Two tasks, both pure functions of their input:
 * - `chain`: read, decode, validate and compile one chain file;
 * - `token-index`: build the cross-chain token index from compiled chains.
 * Results are shared columns, so handing them back copies nothing large.
 * Failures are returned as values (a SnapshotError's reason and message),
 * never thrown, so the caller can log and count them.
 */
import { setPriority } from "node:os";
import { basename } from "node:path";
import type { ChainId } from "../src/chains/chains.js";
import { compileChain } from "../src/snapshot/compile-chain.js";
import type { ChainTokenColumns, CompiledChain } from "../src/snapshot/compiled-chain.js";
import { compileTokenIndex } from "../src/snapshot/compile-token-index.js";
import { isSnapshotError, type SnapshotErrorReason } from "../src/snapshot/snapshot-error.js";
import { readSnapshotFile } from "../src/snapshot/read-snapshot-file.js";
import type { TokenIndexData } from "../src/query/token-index.js";

export interface ChainTask {
  readonly kind: "chain";
  readonly path: string;
  readonly logoTemplate: string;
}

export interface TokenIndexTask {
  readonly kind: "token-index";
  readonly chains: ReadonlyArray<{ chainId: ChainId; tokens: ChainTokenColumns }>;
}

export type ChainTaskResult =
  | { readonly ok: true; readonly chain: CompiledChain }
  | { readonly ok: false; readonly reason: SnapshotErrorReason; readonly message: string };

/**
 * Builds yield the CPU to the serving threads, so requests keep their latency
 * while a snapshot builds. On Linux a thread's priority is its own: this lowers
 * the build worker only, never the serving threads of the same process.
 */
const BUILD_NICENESS = 10;
try {
  setPriority(BUILD_NICENESS);
} catch {
  // Not permitted here: build at normal priority.
}

export default function run(task: ChainTask | TokenIndexTask): Promise<ChainTaskResult> | TokenIndexData {
  return task.kind === "chain" ? buildChain(task) : compileTokenIndex(task.chains);
}

async function buildChain(task: ChainTask): Promise<ChainTaskResult> {
  try {
    const loaded = await readSnapshotFile(task.path, task.logoTemplate);
    const chain = compileChain(loaded.snapshot, { file: basename(task.path), fileBytes: loaded.bytes, fileMtimeMs: loaded.mtimeMs, logoTemplate: task.logoTemplate });
    return { ok: true, chain };
  } catch (error) {
    if (isSnapshotError(error)) return { ok: false, reason: error.reason, message: error.message };
    throw error;
  }
}
