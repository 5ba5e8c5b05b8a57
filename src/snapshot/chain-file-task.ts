/**
 * The build worker's chain task: one chain file read, decoded, validated and compiled into shared columns,
 * then diffed against the chain's last accepted file (its change set). Given a helper link, the pools after
 * a split point are offered to the helper's thread (helper-offer.ts; docs/decisions/003-two-threads-on-one-chain.md)
 * and the chain's token data is posted early for the batch's token index
 * (docs/decisions/004-early-token-index.md). A file's problem comes back as a `rejected` result, never thrown.
 */
import { basename } from "node:path";
import type { ChainId } from "../chains/chains.js";
import type { ChainDiff } from "../tables/change-sets.js";
import type { CompiledChain } from "../tables/compiled-chain.js";
import { sharedArray } from "../tables/shared-columns.js";
import type { ChainTask, ChainTaskResult, EarlyTokens, HelperJob } from "./build-tasks.js";
import { FileSource } from "./byte-source.js";
import { checkAdmission } from "./chain-admission.js";
import { chainMemory, type ChainMemory } from "./chain-memory.js";
import { mostPoolsChanged } from "./change-sample.js";
import { mayReuse, openChainTop, tokenDigests, type ChainTop } from "./chain-top.js";
import { ChainCompiler, chainPoolTargets, type ChainPoolTargets, type CompileChainSource } from "./compile-chain.js";
import { joinPoolRange, ownPoolCount, type PoolRangeResult } from "./compile-pool-range.js";
import { changeSet, diffChain } from "./diff-chain.js";
import { HelperOffer } from "./helper-offer.js";
import { poolRange, PoolStream, splitPools, type PoolSource, type SplitSnapshot } from "./pool-stream.js";
import {
  fileHashOf,
  openSnapshotFile,
  openSplitSource,
  type FileHash,
  type FileHashJob,
  type NormalizedSnapshotFile,
  type OpenSnapshotFile,
} from "./read-snapshot-file.js";
import type { PreviousChainTables } from "./previous-chain.js";
import type { RecordDigests } from "./record-digests.js";
import { frameTokens, type TokenMatch } from "./reuse-tokens.js";
import { StageClock } from "./stage-clock.js";
import { isSnapshotError, SnapshotError } from "./snapshot-error.js";
import type { ThreadNiceness } from "./thread-niceness.js";
import type { SnapshotChecker } from "./validate-snapshot.js";

export async function buildChainFile(task: ChainTask, niceness: ThreadNiceness): Promise<ChainTaskResult> {
  const build = new ChainFileBuild(task, niceness);
  const result = await build.run();
  return { ...result, schedule: niceness.taskReport(), stages: build.clock.report() };
}

/** A compiled chain, its change set and digests, and how it was built. */
export interface Compiled {
  readonly chain: CompiledChain;
  readonly diff: ChainDiff;
  readonly digests: RecordDigests | null;
  readonly helperPools: number;
  readonly reused: { readonly pools: number; readonly tokens: number };
  /** Whether the file was read against the chain's last accepted file (false: read in full and diffed). */
  readonly incremental: boolean;
  /** The chain's memory, and what the build added to it (chain-memory.ts). */
  readonly memory: ChainMemory;
}

/** How a chain file was read, for finishChainFile. */
export interface ChainFileRead {
  /** Its top level (null: the file was decoded whole). */
  readonly top: ChainTop | null;
  readonly previous: PreviousChainTables | null;
  readonly layout: SplitSnapshot | null;
  readonly targets: ChainPoolTargets | null;
  readonly logoTemplate: string;
  readonly helperPools: number;
}

/**
 * A compiled chain file's answer: its change set against the chain's last accepted file (found by the same
 * comparison when the file was read incrementally; otherwise a second pass over both, diff-chain.ts), and the
 * record digests its next build compares with (null for a file decoded whole).
 */
export function finishChainFile(
  chain: CompiledChain,
  compiler: Pick<ChainCompiler, "upserted" | "kept" | "poolOrders">,
  read: ChainFileRead,
): Compiled {
  const { top, layout, targets } = read;
  let digests: RecordDigests | null = null;
  if (top !== null && layout !== null && targets !== null) {
    const tokens = top.reused?.digests ?? tokenDigests(layout.header);
    if (tokens !== null) digests = { pools: targets.digests, tokens, logoTemplate: read.logoTemplate, poolOrders: compiler.poolOrders };
  }
  const reused = top?.reused ?? null;
  if (top?.reuse != null && reused !== null) {
    const started = performance.now();
    const diff = changeSet({ upserted: [...compiler.upserted], removed: top.reuse.removed() }, reused, started);
    const reusedCounts = { pools: compiler.kept, tokens: reused.reused };
    const memory = chainMemory(chain, read.previous);
    return { chain, diff, digests, helperPools: read.helperPools, reused: reusedCounts, incremental: true, memory };
  }
  const diff = diffChain(read.previous, chain);
  const memory = chainMemory(chain, read.previous);
  return { chain, diff, digests, helperPools: read.helperPools, reused: { pools: 0, tokens: 0 }, incremental: false, memory };
}

/** The rejection of a file whose size or times changed while it was read. */
function writtenWhileRead(file: string): SnapshotError {
  return new SnapshotError(
    "io",
    `${file}: the file was written while it was read (its size or times changed); it is read again on the next scan`,
  );
}

/** The window the pools sampled before a read are read through (each is read on its own). */
const SAMPLE_WINDOW_BYTES = 4096;

class ChainFileBuild {
  /** What a rejection reports of the file: its SHA-256 once hashed, its generatedAt once its top level validated. */
  private sha256: string | null = null;
  private generatedAt: number | null = null;
  private readonly helper: HelperOffer<HelperJob, PoolRangeResult, FileHashJob, FileHash> | null;
  /** Where the task's time went (logged with the build). */
  readonly clock = new StageClock();

  constructor(
    private readonly task: ChainTask,
    private readonly niceness: ThreadNiceness,
  ) {
    this.helper = task.helper === null ? null : new HelperOffer(task.helper);
  }

  async run(): Promise<ChainTaskResult> {
    try {
      // Hashed by the reads that frame it (compile); then read again through a window as the pools are taken, so
      // the build holds neither the whole file nor its whole decoded value (docs/decisions/001-msgpack-reader.md).
      // With a helper, its thread hashes the file meanwhile when it starts in time (the reads here then stop hashing).
      const helper = this.helper;
      const file = openSnapshotFile(this.task.path, this.task.maxBytes, "later", () => helper?.helperHashes() ?? false);
      if (helper !== null && file.hashLater) {
        helper.askHash({ fd: file.fd, path: this.task.path, length: file.source.length, maxBytes: this.task.maxBytes });
      }
      let compiled: Compiled | null;
      try {
        compiled = await this.compile(file);
        if (compiled === null) return { status: "known", sha256: file.hash() };
      } catch (error) {
        // A file still being written (created in place) reads as a truncated one: what is wrong is that it changed.
        if (isSnapshotError(error) && error.reason !== "io" && file.changedSinceOpen()) throw writtenWhileRead(basename(this.task.path));
        throw error;
      } finally {
        await this.helper?.settleHash(); // the helper may still read the file
        this.helper?.close();
        file.close();
      }
      return { status: "accepted", ...compiled };
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

  /**
   * The file's hash (once framed; the helper's when it took it, else made here): true when its bytes are known
   * already (ChainFileInput.knownSha256: not built again).
   */
  private async known(file: OpenSnapshotFile): Promise<boolean> {
    const hashed = (await this.helper?.hashed()) ?? null;
    this.sha256 = hashed === null ? file.hash() : fileHashOf(hashed, this.task.path);
    this.clock.mark(hashed === null ? "hash" : "helper-hash");
    return this.task.knownSha256.includes(this.sha256);
  }

  /**
   * The file's chain, compiled (null when its bytes are known: ChainFileInput.knownSha256; an `io` rejection when
   * it was written while it was read), with its change set against the chain's last accepted file (live.md §12). When that file kept its records'
   * digests, this one is read against it (docs/decisions/013-incremental-builds.md): unchanged records are
   * copied, and the change set falls out of the same comparison; otherwise it is read in full and diffed.
   */
  private async compile(file: OpenSnapshotFile): Promise<Compiled | null> {
    const task = this.task;
    const name = basename(task.path);
    // The framing pass reads every byte of the file in order: it hashes them too (FileSource.hashAlong), unless the
    // helper's thread makes the hash meanwhile.
    const layout = file.source.length === 0 ? null : splitPools(file.source);
    this.clock.mark("frame");
    if (await this.known(file)) return null;
    const targets = layout === null ? undefined : chainPoolTargets(layout.poolCount);
    const previous = task.previous;
    // Which previous pools the new file has (both threads mark those they read): only for a file read incrementally,
    // which a file with most pools changed is not (change-sample.ts: a full read and a diff are then faster).
    const incremental =
      layout !== null &&
      mayReuse(previous, task.logoTemplate) &&
      !mostPoolsChanged(
        new FileSource(file.fd, file.source.length, name, SAMPLE_WINDOW_BYTES),
        layout,
        previous.digests!.pools,
        previous.pools.count,
      );
    const present = incremental ? sharedArray(Uint8Array, previous!.pools.count) : null;
    this.clock.mark("sample");
    // The token records framed once, and matched with the helper block by block (reuse-tokens.ts, TokenMatch).
    const tokens = incremental ? frameTokens(layout!.header) : null;
    // With a helper, the pools after the first `own` are offered to it before the top level is read here, so
    // both threads read it at once (a file decoded whole, layout null, has no pools to offer). null: none offered.
    const own = this.helper !== null && layout !== null && layout.poolCount >= 2 ? ownPoolCount(layout) : null;
    let compiler: ChainCompiler;
    let top: ChainTop | null = null;
    let helperPools = 0;
    try {
      if (own !== null) this.offer(file, name, layout!, own, targets!, present, tokens);
      const source: CompileChainSource = {
        file: name,
        fileBytes: file.source.length,
        sha256: this.sha256!,
        fileMtimeMs: file.mtimeMs,
        logoTemplate: task.logoTemplate,
      };
      let snapshot: NormalizedSnapshotFile;
      let pools: PoolSource;
      let checker: SnapshotChecker | null = null;
      if (layout === null) ({ snapshot, pools } = openSplitSource(file.source, null, file.chainId, task.logoTemplate));
      else {
        top = openChainTop(layout.header, file.chainId, task.logoTemplate, previous, present, tokens);
        ({ snapshot, checker } = top);
        pools = new PoolStream(file.source, layout, checker, { digests: targets!.digests, reuse: top.reuse });
      }
      this.generatedAt = snapshot.generatedAt;
      checkAdmission(snapshot.generatedAt, task.bounds);
      pools = this.niceness.pools(pools);
      compiler = new ChainCompiler(snapshot, source, pools.count, own ?? pools.count, targets, top?.prepared ?? null, top?.reuse ?? null);
      this.clock.mark("top");
      for (let i = 0; i < (own ?? pools.count); i++) compiler.write(pools.next());
      this.clock.mark("pools");
      if (own !== null) helperPools = await this.finishWithHelper(compiler, pools, own, checker!, file.chainId);
    } catch (error) {
      // A problem here comes before any of the helper's pools: stop it, and wait until it no longer reads the file.
      await this.helper?.stop();
      throw error;
    }
    const chain = compiler.finish();
    this.clock.mark("finish");
    for (const [part, ms] of Object.entries(compiler.finishStages)) this.clock.add(`finish.${part}`, ms);
    if (file.changedSinceOpen()) throw writtenWhileRead(name);
    const compiled = finishChainFile(chain, compiler, {
      top,
      previous,
      layout,
      targets: targets ?? null,
      logoTemplate: task.logoTemplate,
      helperPools,
    });
    this.clock.mark("changes");
    return compiled;
  }

  /** Offers the helper the pools after the first `own` (HelperJob: the range, read from the same open file). */
  private offer(
    file: OpenSnapshotFile,
    name: string,
    layout: SplitSnapshot,
    own: number,
    targets: ChainPoolTargets,
    present: Uint8Array | null,
    tokens: TokenMatch | null,
  ): void {
    this.helper!.offer({
      chainId: file.chainId,
      logoTemplate: this.task.logoTemplate,
      header: layout.header,
      range: poolRange(layout, own, layout.poolCount),
      targets,
      previous: present === null ? null : this.task.previous,
      present,
      tokens,
      fd: file.fd,
      fileBytes: file.source.length,
      file: name,
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
    this.clock.mark("tokens");
    const part = await this.helper!.take();
    this.clock.mark("helper-wait");
    if (part === null) {
      compiler.continueToEnd();
      for (let i = own; i < pools.count; i++) compiler.write(pools.next());
      this.clock.mark("pools");
      return 0;
    }
    joinPoolRange(compiler, checker, part);
    this.clock.mark("join");
    return part.to - part.from;
  }
}
