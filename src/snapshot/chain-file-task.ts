/**
 * The build worker's chain task: one chain file read, decoded, validated and compiled into shared columns,
 * then diffed against the chain's last accepted file (its change set). Given a helper link, the pools after
 * a split point are offered to the helper's thread (helper-offer.ts; docs/decisions/003-two-threads-on-one-chain.md)
 * and the chain's token data is posted early for the batch's token index
 * (docs/decisions/004-early-token-index.md). A file's problem comes back as a `rejected` result, never thrown.
 */
import { basename } from "node:path";
import type { ChainId } from "../chains/chains.js";
import type { CompiledChain } from "../tables/compiled-chain.js";
import type { ChainTask, ChainTaskResult, EarlyTokens, HelperJob } from "./build-tasks.js";
import { checkAdmission } from "./chain-admission.js";
import { ChainCompiler, chainPoolTargets, type ChainPoolTargets, type CompileChainSource } from "./compile-chain.js";
import { joinPoolRange, ownPoolCount, type PoolRangeResult } from "./compile-pool-range.js";
import { diffChain } from "./diff-chain.js";
import { HelperOffer } from "./helper-offer.js";
import { poolRange, splitPools, type PoolSource, type SplitSnapshot } from "./pool-stream.js";
import { openSnapshotFile, openSplitSource, type OpenSnapshotFile } from "./read-snapshot-file.js";
import { isSnapshotError, SnapshotError } from "./snapshot-error.js";
import type { ThreadNiceness } from "./thread-niceness.js";
import type { SnapshotChecker } from "./validate-snapshot.js";

export function buildChainFile(task: ChainTask, niceness: ThreadNiceness): Promise<ChainTaskResult> {
  return new ChainFileBuild(task, niceness).run();
}

/** A compiled chain and how many of its pools the helper built. */
interface Compiled {
  readonly chain: CompiledChain;
  readonly helperPools: number;
}

class ChainFileBuild {
  /** What a rejection reports of the file: its SHA-256 once hashed, its generatedAt once its top level validated. */
  private sha256: string | null = null;
  private generatedAt: number | null = null;
  private readonly helper: HelperOffer<HelperJob, PoolRangeResult> | null;

  constructor(
    private readonly task: ChainTask,
    private readonly niceness: ThreadNiceness,
  ) {
    this.helper = task.helper === null ? null : new HelperOffer(task.helper);
  }

  async run(): Promise<ChainTaskResult> {
    try {
      // Hashed in a first pass; then read again through a window as the pools are taken, so the build holds
      // neither the whole file nor its whole decoded value (docs/decisions/001-msgpack-reader.md).
      const file = openSnapshotFile(this.task.path, this.task.maxBytes);
      let compiled: Compiled;
      try {
        this.sha256 = file.sha256;
        if (this.task.knownSha256.includes(file.sha256)) return { status: "known", sha256: file.sha256 };
        compiled = await this.compile(file);
      } finally {
        // Before the diff: a helper offered nothing is let go at once (it holds a build thread while it waits).
        this.helper?.close();
        file.close();
      }
      // The change set against the chain's last accepted file (live.md §12), timed as its own build phase.
      return {
        status: "accepted",
        chain: compiled.chain,
        diff: diffChain(this.task.previous, compiled.chain),
        helperPools: compiled.helperPools,
      };
    } catch (error) {
      if (isSnapshotError(error)) {
        return { status: "rejected", reason: error.reason, message: error.message, sha256: this.sha256, generatedAt: this.generatedAt };
      }
      throw error;
    } finally {
      // Also when the file could not be opened (close is idempotent).
      this.helper?.close();
      this.task.early?.close();
    }
  }

  /** The file's chain, compiled (the whole file read again if it was written meanwhile: an `io` rejection). */
  private async compile(file: OpenSnapshotFile): Promise<Compiled> {
    const task = this.task;
    const source: CompileChainSource = {
      file: basename(task.path),
      fileBytes: file.source.length,
      sha256: file.sha256,
      fileMtimeMs: file.mtimeMs,
      logoTemplate: task.logoTemplate,
    };
    const layout = file.source.length === 0 ? null : splitPools(file.source);
    const targets = layout === null ? undefined : chainPoolTargets(layout.poolCount);
    // With a helper, the pools after the first `own` are offered to it before the top level is read here, so
    // both threads read it at once (a file decoded whole, layout null, has no pools to offer). null: none offered.
    const own = this.helper !== null && layout !== null && layout.poolCount >= 2 ? ownPoolCount(layout) : null;
    let compiler: ChainCompiler;
    let helperPools = 0;
    try {
      if (own !== null) this.offer(file, source, layout!, own, targets!);
      const opened = openSplitSource(file.source, layout, file.chainId, task.logoTemplate);
      const { snapshot, split } = opened;
      this.generatedAt = snapshot.generatedAt;
      checkAdmission(snapshot.generatedAt, task.bounds);
      const pools = this.niceness.pools(opened.pools);
      compiler = new ChainCompiler(snapshot, source, pools.count, own ?? pools.count, targets);
      for (let i = 0; i < (own ?? pools.count); i++) compiler.write(pools.next());
      if (own !== null) helperPools = await this.finishWithHelper(compiler, pools, own, split!.checker, file.chainId);
    } catch (error) {
      // A problem here comes before any of the helper's pools: stop it, and wait until it no longer reads the file.
      await this.helper?.stop();
      throw error;
    }
    const chain = compiler.finish();
    if (file.changedSinceOpen()) {
      throw new SnapshotError(
        "io",
        `${source.file}: the file was written while it was read (its size or times changed); it is read again on the next scan`,
      );
    }
    return { chain, helperPools };
  }

  /** Offers the helper the pools after the first `own` (HelperJob: the range, read from the same open file). */
  private offer(file: OpenSnapshotFile, source: CompileChainSource, layout: SplitSnapshot, own: number, targets: ChainPoolTargets): void {
    this.helper!.offer({
      chainId: file.chainId,
      logoTemplate: this.task.logoTemplate,
      header: layout.header,
      range: poolRange(layout, own, layout.poolCount),
      targets,
      fd: file.fd,
      fileBytes: file.source.length,
      file: source.file,
    });
  }

  /**
   * While the helper finishes: the token columns (they need no pools), posted at once so the loader can build
   * the token index meanwhile (EarlyTokens); then the helper's pools joined, or written here when this thread
   * got to them first. The pools the helper built.
   */
  private async finishWithHelper(
    compiler: ChainCompiler,
    pools: PoolSource,
    own: number,
    checker: SnapshotChecker,
    chainId: ChainId,
  ): Promise<number> {
    const { columns, run } = compiler.compileTokens();
    this.task.early?.postMessage({ chainId, sha256: this.sha256!, tokens: columns, run } satisfies EarlyTokens);
    const part = await this.helper!.take();
    if (part === null) {
      compiler.continueToEnd();
      for (let i = own; i < pools.count; i++) compiler.write(pools.next());
      return 0;
    }
    joinPoolRange(compiler, checker, part);
    return part.to - part.from;
  }
}
