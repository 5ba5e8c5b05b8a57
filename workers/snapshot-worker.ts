/**
 * Piscina build worker. Three tasks, each a pure function of its input:
 * - `chain`: read, decode, validate and compile one chain file, and diff it
 *   against the chain's last accepted file (its change set); given a helper,
 *   the second part of the file's pools is built by the helper's thread
 *   (src/snapshot/compile-pool-range.ts);
 * - `pool-range`: that helper;
 * - `token-index`: build the cross-chain token index from compiled chains.
 * Results are shared columns, so handing them back copies nothing large.
 * Failures are returned as values (a SnapshotError's reason and message),
 * never thrown, so the caller can log and count them.
 */
import { once } from "node:events";
import { setPriority } from "node:os";
import { basename } from "node:path";
import type { MessagePort } from "node:worker_threads";
import {
  HELPER_RANGE_KEPT,
  HELPER_RANGE_OPEN,
  HELPER_RANGE_TAKEN,
  type BuildHelperLink,
  type ChainTask,
  type ChainTaskResult,
  type EarlyTokens,
  type HelperJobMessage,
  type HelperReply,
  type PoolRangeTask,
  type TokenIndexTask,
} from "../src/snapshot/build-tasks.js";
import { checkAdmission } from "../src/snapshot/chain-admission.js";
import { ChainCompiler, chainPoolTargets } from "../src/snapshot/compile-chain.js";
import { compilePoolRange, joinPoolRange, ownPoolCount, type PoolRangeResult } from "../src/snapshot/compile-pool-range.js";
import { compileTokenIndex } from "../src/snapshot/compile-token-index.js";
import { diffChain } from "../src/snapshot/diff-chain.js";
import { isSnapshotError, SnapshotError } from "../src/snapshot/snapshot-error.js";
import { openSnapshotFile, openSplitSource } from "../src/snapshot/read-snapshot-file.js";
import { FileSource } from "../src/snapshot/byte-source.js";
import { poolRange, splitPools, type PoolSource } from "../src/snapshot/pool-stream.js";
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

export default function run(task: ChainTask | PoolRangeTask | TokenIndexTask): Promise<ChainTaskResult> | Promise<void> | TokenIndexData {
  wanted = task.nice;
  followNiceness();
  switch (task.kind) {
    case "chain":
      return buildChain(task);
    case "pool-range":
      return buildPoolRange(task);
    case "token-index":
      return compileTokenIndex(task.chains);
  }
}

async function buildChain(task: ChainTask): Promise<ChainTaskResult> {
  let sha256: string | null = null;
  let generatedAt: number | null = null;
  const helper = task.helper === null ? null : new HelperEnd(task.helper);
  try {
    // Hashed in a first pass; then read again through a window as the pools are taken, so the
    // build holds neither the whole file nor its whole decoded value (several times its size).
    const file = openSnapshotFile(task.path, task.maxBytes);
    let chain;
    let compiler: ChainCompiler;
    let helperPools = 0;
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
      const layout = file.source.length === 0 ? null : splitPools(file.source);
      const targets = layout === null ? undefined : chainPoolTargets(layout.poolCount);
      // With a helper, the pools after the first `own` are offered to it before the top level is read here, so
      // both threads read it at once (a file decoded whole, layout null, has no pools to offer). null: none offered.
      const own = helper !== null && layout !== null && layout.poolCount >= 2 ? ownPoolCount(layout) : null;
      try {
        if (own !== null) {
          helper!.offer({
            chainId: file.chainId,
            logoTemplate: task.logoTemplate,
            header: layout!.header,
            range: poolRange(layout!, own, layout!.poolCount),
            targets: targets!,
            fd: file.fd,
            fileBytes: file.source.length,
            file: source.file,
          });
        }
        const opened = openSplitSource(file.source, layout, file.chainId, task.logoTemplate);
        const { snapshot, split } = opened;
        generatedAt = snapshot.generatedAt;
        checkAdmission(snapshot.generatedAt, task.bounds);
        const pools = followingNiceness(opened.pools);
        compiler = new ChainCompiler(snapshot, source, pools.count, own ?? pools.count, targets);
        for (let i = 0; i < (own ?? pools.count); i++) compiler.write(pools.next());
        if (own !== null) {
          // While the helper finishes: the token columns need no pools. Posted at once, so the loader can build the
          // token index on the helper's thread while this one joins and finishes (build-tasks.ts, EarlyTokens).
          const { columns, run } = compiler.compileTokens();
          task.early?.postMessage({ chainId: file.chainId, sha256, tokens: columns, run } satisfies EarlyTokens);
          const part = await helper!.take();
          if (part === null) {
            compiler.continueToEnd();
            for (let i = own; i < pools.count; i++) compiler.write(pools.next());
          } else {
            joinPoolRange(compiler, split!.checker, part);
            helperPools = part.to - part.from;
          }
        }
      } catch (error) {
        // A problem here comes before any of the helper's pools: stop it, and wait until it no longer reads the file.
        await helper?.stop();
        throw error;
      }
      chain = compiler.finish();
      if (file.changedSinceOpen()) {
        throw new SnapshotError(
          "io",
          `${source.file}: the file was written while it was read (its size or times changed); it is read again on the next scan`,
        );
      }
    } finally {
      // Before the diff: a helper offered nothing is let go at once (it holds a build thread while it waits).
      helper?.close();
      file.close();
    }
    // The change set against the chain's last accepted file (live.md §12), timed as its own build phase.
    return { status: "accepted", chain, diff: diffChain(task.previous, chain), helperPools };
  } catch (error) {
    if (isSnapshotError(error)) return { status: "rejected", reason: error.reason, message: error.message, sha256, generatedAt };
    throw error;
  } finally {
    // Also when the file could not be opened (close is idempotent).
    helper?.close();
    task.early?.close();
  }
}

/** The chain task's end of a helper link (see BuildHelperLink). */
class HelperEnd {
  private offered = false;
  private closed = false;
  private reply: Promise<HelperReply> | null = null;

  constructor(private readonly link: BuildHelperLink) {}

  offer(job: NonNullable<HelperJobMessage["job"]>): void {
    this.offered = true;
    this.reply = nextReply(this.link.port);
    this.link.port.postMessage({ job } satisfies HelperJobMessage);
  }

  /**
   * The helper's pools: null when this thread got to them first (it builds them itself); throws when the helper
   * failed other than by rejecting the file.
   */
  async take(): Promise<PoolRangeResult | null> {
    if (this.keep()) return null;
    const reply = await this.reply!;
    if ("failed" in reply) throw new Error(`the helper build thread failed: ${reply.failed}`);
    return reply.result;
  }

  /** Stops the helper and waits until it no longer reads the file. */
  async stop(): Promise<void> {
    if (!this.offered) return;
    Atomics.store(this.link.claim, 1, 1);
    if (!this.keep()) await this.reply;
  }

  /** Claims the offered pools for this thread; false when the helper took them first. */
  private keep(): boolean {
    return Atomics.compareExchange(this.link.claim, 0, HELPER_RANGE_OPEN, HELPER_RANGE_KEPT) === HELPER_RANGE_OPEN;
  }

  /** Tells a helper that was offered nothing so, and closes the link. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.offered) this.link.port.postMessage({ job: null } satisfies HelperJobMessage);
    else Atomics.store(this.link.claim, 1, 1);
    this.link.port.close();
  }
}

/** The next message on `port`, or a failure when the other end closes first (its thread ended). */
function nextReply(port: MessagePort): Promise<HelperReply> {
  return new Promise((resolve) => {
    const onMessage = (reply: HelperReply) => {
      port.off("close", onClose);
      resolve(reply);
    };
    const onClose = () => {
      port.off("message", onMessage);
      resolve({ failed: "its thread stopped before it answered" });
    };
    port.once("message", onMessage);
    port.once("close", onClose);
  });
}

/** The helper: takes the offered pools unless the chain's thread got to them first, builds them, answers. */
async function buildPoolRange(task: PoolRangeTask): Promise<void> {
  const port = task.port;
  try {
    const [message] = (await Promise.race([once(port, "message"), once(port, "close").then(() => [{ job: null }])])) as [HelperJobMessage];
    const job = message.job;
    if (job === null || Atomics.compareExchange(task.claim, 0, HELPER_RANGE_OPEN, HELPER_RANGE_TAKEN) !== HELPER_RANGE_OPEN) return;
    let reply: HelperReply;
    try {
      let taken = 0;
      const stop = () => {
        if (++taken % NICE_CHECK_POOLS === 0) followNiceness();
        return Atomics.load(task.claim, 1) !== 0;
      };
      reply = { result: compilePoolRange(job, new FileSource(job.fd, job.fileBytes, job.file), stop) };
    } catch (error) {
      reply = { failed: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  } finally {
    port.close();
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
