/**
 * The chains the loader holds: each chain's last accepted file (served, or in the batch about to be), the
 * change sets accepted since the last publication, and what was last published. Pure bookkeeping: no I/O,
 * no threads. A batch is published when `nextBatch` names new contents; `published` hands over its change
 * sets (where an observer of each served chain's change sets would look).
 */
import { isSupportedChainId, type ChainId } from "../chains/chains.js";
import type { ChangeSetDraft, ChainDiff } from "../tables/change-sets.js";
import type { ChainSnapshotInfo, CompiledChain } from "../tables/compiled-chain.js";
import { snapshotContentKey, snapshotVersion } from "../api/snapshot-version.js";
import type { EarlyTokens } from "./build-tasks.js";
import type { PreviousChainTables } from "./previous-chain.js";
import type { RecordDigests } from "./record-digests.js";
import { ChangeSetDrafts } from "./change-set-drafts.js";

/** A snapshot to publish: every last-good chain. */
export interface Batch {
  readonly chains: readonly CompiledChain[];
  readonly infos: readonly ChainSnapshotInfo[];
  /** Chain ids and file hashes: it alone decides whether a snapshot changed. */
  readonly contentKey: string;
  readonly version: number;
}

export class AcceptedChains {
  private readonly lastGood = new Map<ChainId, CompiledChain>();
  /** The record digests of each last-good chain's file (what its next build compares with), when it kept them. */
  private readonly digests = new Map<ChainId, RecordDigests>();
  private readonly removedNoticed = new Set<ChainId>();
  private readonly drafts = new ChangeSetDrafts();
  /** Change sets of the files accepted since the last publication (a failed publication keeps them for the next). */
  private pendingChanges: ChangeSetDraft[] = [];
  private last: Batch | null = null;

  /** Whether a snapshot was published. */
  get serving(): boolean {
    return this.last !== null;
  }

  /** The version last published. */
  get version(): number | null {
    return this.last?.version ?? null;
  }

  chainIds(): ChainId[] {
    return [...this.lastGood.keys()];
  }

  /** The chain's last accepted file (none for an unsupported chain id). */
  chain(chainId: number): CompiledChain | undefined {
    return isSupportedChainId(chainId) ? this.lastGood.get(chainId) : undefined;
  }

  /** The chain's last accepted file as its next build reads it (null: none accepted yet). */
  previous(chainId: number): PreviousChainTables | null {
    const chain = this.chain(chainId);
    if (chain === undefined) return null;
    const { pools, tokens, tokenRun, poolSearch, protocols } = chain;
    return { pools, tokens, tokenRun, poolSearch, protocols, digests: this.digests.get(chain.info.chainId) ?? null };
  }

  /** A chain file accepted, with its change set against the chain's last accepted file and its record digests (or null). */
  accept(chain: CompiledChain, diff: ChainDiff, digests: RecordDigests | null = null): void {
    const { info } = chain;
    this.pendingChanges.push(this.drafts.draft(info, this.lastGood.get(info.chainId)?.info ?? null, diff));
    this.lastGood.set(info.chainId, chain);
    if (digests === null) this.digests.delete(info.chainId);
    else this.digests.set(info.chainId, digests);
    this.removedNoticed.delete(info.chainId);
  }

  /** File bytes of the chains the last published snapshot was built from. */
  servedBytes(): number {
    let bytes = 0;
    for (const info of this.last?.infos ?? []) bytes += info.fileBytes;
    return bytes;
  }

  /** What a token index is built from: every last-good chain (with `replacing` in its chain's place, or added). */
  indexInputs(replacing: EarlyTokens | null = null): EarlyTokens[] {
    const inputs: EarlyTokens[] = [];
    for (const c of this.lastGood.values()) {
      const mine = c.info.chainId === replacing?.chainId;
      inputs.push(mine ? replacing : { chainId: c.info.chainId, sha256: c.info.sha256, tokens: c.tokens, run: c.tokenRun });
    }
    if (replacing !== null && !this.lastGood.has(replacing.chainId)) inputs.push(replacing);
    return inputs;
  }

  /**
   * The batch to publish, or null when the chains are what was published: then the pending change sets (each
   * chain back at its served file, e.g. A → B → A) add up to no change at all and are dropped.
   */
  nextBatch(): Batch | null {
    const chains = [...this.lastGood.values()];
    const infos = chains.map((c) => c.info);
    const contentKey = snapshotContentKey(infos);
    if (contentKey === this.last?.contentKey) {
      this.pendingChanges = [];
      return null;
    }
    return { chains, infos, contentKey, version: snapshotVersion(infos) };
  }

  /** The batch is published: its change sets (in the order accepted), handed over once. */
  published(batch: Batch): readonly ChangeSetDraft[] {
    this.last = batch;
    const changes = this.pendingChanges;
    this.pendingChanges = [];
    return changes;
  }

  /** The chains whose files are no longer present, each reported once (until it is accepted again). */
  removedSince(present: ReadonlySet<ChainId>): ChainId[] {
    const removed: ChainId[] = [];
    for (const chainId of this.lastGood.keys()) {
      if (present.has(chainId) || this.removedNoticed.has(chainId)) continue;
      this.removedNoticed.add(chainId);
      removed.push(chainId);
    }
    return removed;
  }
}
