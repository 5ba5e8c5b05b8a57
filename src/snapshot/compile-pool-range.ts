/**
 * One chain built by two threads (docs/decisions/003-two-threads-on-one-chain.md): the chain's build thread
 * hands the pools after the first `k` to a helper thread (`PoolRangeJob`), builds pools [0, k) itself, then
 * joins what the helper wrote (`joinPoolRange`), both writing into the same shared memory at each pool's
 * index. The file is judged exactly as when one thread reads it all (the first problem in file order);
 * test/unit/snapshot/compile-pool-range.test.ts holds both paths equal, accepted and rejected, on random files.
 */
import type { ChainId } from "../chains/chains.js";
import type { ByteSource } from "./byte-source.js";
import { chainPoolEncoder, PoolRangeWriter, type ChainCompiler, type ChainPoolTargets, type PoolRangeOutput } from "./compile-chain.js";
import { PoolStream, type PoolRange, type SplitSnapshot } from "./pool-stream.js";
import { openChainTop } from "./chain-top.js";
import type { PreviousChainTables } from "./previous-chain.js";
import type { TokenMatch } from "./reuse-tokens.js";
import { isSnapshotError, SnapshotError, type SnapshotErrorReason } from "./snapshot-error.js";
import type { SnapshotChecker } from "./validate-snapshot.js";

/**
 * The chain's thread also compiles the token columns and token run while the helper writes its pools: that
 * work, in bytes of pools it takes as long as, per byte of the file's top level (mostly tokens). Measured on
 * the large generated set (issue 22): 1.0 s for 38.7 MB of top level, 4.0 s for 95,000 pools of 1.1 KB.
 */
const TOKEN_WORK_PER_HEADER_BYTE = 0.7;

/**
 * How many pools the chain's thread writes itself (from pool 0) when a helper takes the rest: the pools'
 * bytes split so that both threads finish together, the chain's thread also doing the tokens. At least one
 * pool each (`layout` has two or more).
 */
export function ownPoolCount(layout: Pick<SplitSnapshot, "header" | "poolsAt" | "poolCount" | "poolEnds">): number {
  const n = layout.poolCount;
  const start = layout.poolsAt;
  const poolBytes = layout.poolEnds[n - 1] - start;
  const target = start + Math.max(0, (poolBytes - TOKEN_WORK_PER_HEADER_BYTE * layout.header.length) / 2);
  // The first pool that ends at or past the target is the last of the chain's thread.
  let low = 0;
  let high = n - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (layout.poolEnds[mid] >= target) high = mid;
    else low = mid + 1;
  }
  return Math.min(n - 1, Math.max(1, low + 1));
}

/** What the chain's build thread hands a helper: everything but the file's bytes (the helper reads them from the same open file). */
export interface PoolRangeJob {
  readonly chainId: ChainId;
  readonly logoTemplate: string;
  /** The file's top level with its pools left out (SplitSnapshot.header). */
  readonly header: Uint8Array;
  /** Where the helper's pools lie in the file. */
  readonly range: PoolRange;
  readonly targets: ChainPoolTargets;
  /**
   * An incremental build (docs/decisions/013-incremental-builds.md): the chain's last accepted file, and one byte
   * per pool of it that both threads set for the pools they read (PoolReuseInput.present). Absent or null: a
   * full build. Both threads read the top level against it the same way, so they agree on what is reused.
   */
  readonly previous?: PreviousChainTables | null;
  readonly present?: Uint8Array | null;
  /** An incremental build: the token records framed, matched by both threads block by block (reuse-tokens.ts, TokenMatch). */
  readonly tokens?: TokenMatch | null;
}

/** The first pool of a range that does not decode or validate: the range stops there. */
export interface PoolRangeRejection {
  readonly reason: SnapshotErrorReason;
  readonly message: string;
  readonly path: string | null;
}

export interface PoolRangeResult extends PoolRangeOutput {
  readonly rejection: PoolRangeRejection | null;
}

/**
 * The helper's part: pools of `job.range`, decoded, validated among themselves and written into the targets.
 * `stop` is asked before each pool (the chain's thread stops the helper when its own pools failed).
 */
export function compilePoolRange(job: PoolRangeJob, bytes: ByteSource, stop: () => boolean = () => false): PoolRangeResult {
  // The chain's thread validated this top level already: the same bytes give the same checker here.
  const top = openChainTop(job.header, job.chainId, job.logoTemplate, job.previous ?? null, job.present ?? null, job.tokens ?? null, true);
  const { snapshot, checker, reuse } = top;
  const pools = new PoolStream(bytes, job.range, checker, { digests: job.targets.digests, reuse });
  const writer = new PoolRangeWriter(
    chainPoolEncoder(snapshot, top.reused?.poolTokens ?? null),
    job.targets,
    snapshot.protocols.map((p) => p.id),
    job.range.from,
    job.range.from + pools.count,
    reuse,
  );
  let rejection: PoolRangeRejection | null = null;
  try {
    for (let i = 0; i < pools.count && !stop(); i++) writer.write(pools.next());
  } catch (error) {
    if (!isSnapshotError(error)) throw error;
    rejection = { reason: error.reason, message: error.message, path: error.path ?? null };
  }
  return { ...writer.output(), rejection };
}

/**
 * Joins a helper's pools onto the pools the chain's thread wrote (every pool before `part.from`, checked by
 * `checker`). Throws the file's first problem among the helper's pools, in file order: an address that repeats
 * one of the earlier pools, else the helper's own rejection.
 */
export function joinPoolRange(compiler: ChainCompiler, checker: SnapshotChecker, part: PoolRangeResult): void {
  checker.joinPools(part.from, part.addresses, part.previousOf);
  const rejection = part.rejection;
  if (rejection !== null)
    throw new SnapshotError(rejection.reason, rejection.message, rejection.path === null ? {} : { path: rejection.path });
  compiler.join(part);
}
