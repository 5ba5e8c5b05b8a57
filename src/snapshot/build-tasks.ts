/**
 * The tasks of the build workers (workers/snapshot-worker.ts dispatches them) and what they answer: the
 * contract between the loader's build pool (build-pool.ts) and the worker threads. Each task is a pure
 * function of its input; results are shared columns, so handing them back copies nothing large, and
 * failures come back as values.
 */
import type { ChainMemory } from "./chain-memory.js";
import type { BuildStages } from "./stage-clock.js";
import type { MessagePort } from "node:worker_threads";
import type { ChainId } from "../chains/chains.js";
import type { ChainTokenColumns, CompiledChain, TokenRunData } from "../tables/compiled-chain.js";
import type { ChainDiff } from "../tables/change-sets.js";
import type { RecordDigests } from "./record-digests.js";
import type { PreviousChainTables } from "./previous-chain.js";
import type { TaskSchedule } from "./thread-niceness.js";
import type { AdmissionBounds } from "./chain-admission.js";
import type { SnapshotErrorReason } from "./snapshot-error.js";
import type { PoolRangeJob } from "./compile-pool-range.js";
import type { HelperLink } from "./helper-link.js";
import type { KeptTokenIndex } from "./compile-token-index.js";

export type BuildTask = ChainTask | PoolRangeTask | TokenIndexTask;

/** One chain file to build: what the loader decides about it (the build pool adds the threads' part, ChainTask). */
export interface ChainFileInput {
  readonly path: string;
  readonly logoTemplate: string;
  /** Contents (SHA-256) already known for this name (served, or rejected before): a file with these bytes is not decoded. */
  readonly knownSha256: readonly string[];
  /** Which generatedAt the file may have (chain-admission.ts); checked before compiling. */
  readonly bounds: AdmissionBounds;
  /** Largest file read (SNAPSHOT_FILE_MAX_MB); a larger one is rejected `too-large` unread. */
  readonly maxBytes: number;
  /**
   * The tables of the chain's last accepted file (shared memory, not copied), which the new file's change set
   * is computed against (src/snapshot/diff-chain.ts); null on the chain's first load.
   */
  readonly previous: PreviousChainTables | null;
}

/** Read, decode, validate and compile one chain file (chain-file-task.ts). */
export interface ChainTask extends ChainFileInput {
  readonly kind: "chain";
  /**
   * Niceness the worker's thread should run at, one shared Int32 the build pool updates while the task runs
   * (BUILD_WORKER_NICE while the serving threads are busy, 0 while they are idle or before anything
   * serves); the worker reads it as it goes (thread-niceness.ts).
   */
  readonly nice: Int32Array;
  /**
   * A helper build thread that may build the second part of the file's pools (its PoolRangeTask was run at
   * the same time), or null: the whole file builds on this task's thread.
   */
  readonly helper: HelperLink | null;
  /**
   * Where to post the chain's token columns and run (EarlyTokens) as soon as they are compiled, before the
   * pools are done (only with a helper: the loader then builds the token index on the helper's thread while
   * this one finishes), or null.
   */
  readonly early: MessagePort | null;
}

/**
 * A chain's token data, posted by its task before it finishes (ChainTask.early); also what the loader builds a
 * token index from, one per chain (with the file's SHA-256, the content key of the snapshot it makes).
 */
export interface EarlyTokens {
  readonly chainId: ChainId;
  /** SHA-256 of the file being built: the data is this file's, and serves only if the file is accepted. */
  readonly sha256: string;
  readonly tokens: ChainTokenColumns;
  readonly run: TokenRunData;
}

/**
 * Builds the pools a chain's task offers it, if it gets to them first (helper-link.ts); it answers the chain's
 * task, not the loader (the chain's result counts the pools it built).
 */
export interface PoolRangeTask extends HelperLink {
  readonly kind: "pool-range";
  /** As ChainTask.nice. */
  readonly nice: Int32Array;
}

/** What the chain's task offers its helper: the range, with the open file to read it from (same process). */
export type HelperJob = PoolRangeJob & { readonly fd: number; readonly fileBytes: number; readonly file: string };

/** The chain's last accepted file as a build reads it (previous-chain.ts). */
export type { PreviousChainTables } from "./previous-chain.js";

/** Build the cross-chain token index (its answer: TokenIndexResult) from compiled chains. */
export interface TokenIndexTask {
  readonly kind: "token-index";
  /** As ChainTask.nice. */
  readonly nice: Int32Array;
  readonly chains: ReadonlyArray<{ chainId: ChainId; sha256: string; tokens: ChainTokenColumns; run: TokenRunData }>;
  /** The served snapshot's index as kept (shared memory): its chains whose files have the same SHA-256 are reused from it; or null. */
  readonly previous: KeptTokenIndex | null;
}

/** How a chain task ran on its thread (thread-niceness.ts), whatever it came to. */
export interface Scheduled {
  readonly schedule?: TaskSchedule;
  /** Milliseconds each stage of the task took (stage-clock.ts), in order. */
  readonly stages?: BuildStages;
}

/** A token index task's answer: the index and what the next build reuses, and how the task ran on its thread. */
export type TokenIndexResult = KeptTokenIndex & Pick<Scheduled, "schedule">;

export type ChainTaskResult = Scheduled &
  /** `diff`: the change set against the task's `previous` (every address upserted when it is null). */
  (
    | {
        readonly status: "accepted";
        readonly chain: CompiledChain;
        readonly diff: ChainDiff;
        /** Its records' digests, which the chain's next build compares its records with (null: the file was decoded whole). */
        readonly digests: RecordDigests | null;
        /** Pools built by the helper thread (0 when it built none). */
        readonly helperPools: number;
        /** Pools and tokens whose compiled data was reused (their bytes unchanged since `previous`), 0 in a full build. */
        readonly reused: { readonly pools: number; readonly tokens: number };
        /**
         * Whether the file was read against `previous` (false: read in full and diffed: no previous file, none with
         * digests, or most of its pools changed: change-sample.ts).
         */
        readonly incremental: boolean;
        /** The chain's memory, and what this build added to it (chain-memory.ts): what the batch rule counts. */
        readonly memory: ChainMemory;
      }
    /** The bytes hash to one of the task's known contents. */
    | { readonly status: "known"; readonly sha256: string }
    | {
        readonly status: "rejected";
        readonly reason: SnapshotErrorReason;
        readonly message: string;
        /** SHA-256 of the bytes, when they could be read. */
        readonly sha256: string | null;
        /** generatedAt of a file that decoded and validated. */
        readonly generatedAt: number | null;
      }
  );
