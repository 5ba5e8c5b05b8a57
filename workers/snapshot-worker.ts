/**
 * Piscina build worker. Two tasks, both pure functions of their input:
 * - `chain`: read, decode, validate and compile one chain file;
 * - `token-index`: build the cross-chain token index from compiled chains.
 * Results are shared columns, so handing them back copies nothing large.
 * Failures are returned as values (a SnapshotError's reason and message),
 * never thrown, so the caller can log and count them.
 */
import { readFileSync, statSync } from "node:fs";
import { setPriority } from "node:os";
import { basename } from "node:path";
import type { ChainId } from "../src/chains/chains.js";
import { compileChain } from "../src/snapshot/compile-chain.js";
import type { ChainTokenColumns, CompiledChain } from "../src/snapshot/compiled-chain.js";
import { compileTokenIndex } from "../src/snapshot/compile-token-index.js";
import { isSnapshotError, SnapshotError, type SnapshotErrorReason } from "../src/snapshot/snapshot-error.js";
import { chainIdFromSnapshotFileName, parseSnapshotBytes } from "../src/snapshot/read-snapshot-file.js";
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
  | { readonly ok: false; readonly reason: SnapshotErrorReason; readonly message: string; readonly fileBytes: number; readonly mtimeMs: number };

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

export default function run(task: ChainTask | TokenIndexTask): ChainTaskResult | TokenIndexData {
  return task.kind === "chain" ? buildChain(task) : compileTokenIndex(task.chains);
}

function buildChain(task: ChainTask): ChainTaskResult {
  let fileBytes = 0;
  let mtimeMs = 0;
  try {
    const chainId = chainIdFromSnapshotFileName(task.path);
    let bytes: Buffer;
    try {
      const stat = statSync(task.path);
      fileBytes = stat.size;
      mtimeMs = stat.mtimeMs;
      bytes = readFileSync(task.path);
    } catch (error) {
      throw new SnapshotError("io", `${basename(task.path)}: cannot read the file (${(error as Error).message})`);
    }
    const snapshot = parseSnapshotBytes(bytes, chainId, task.logoTemplate);
    const chain = compileChain(snapshot, { file: basename(task.path), fileBytes, fileMtimeMs: mtimeMs });
    return { ok: true, chain };
  } catch (error) {
    if (isSnapshotError(error)) return { ok: false, reason: error.reason, message: error.message, fileBytes, mtimeMs };
    throw error;
  }
}
