/**
 * Change sets (live.md §12): what changed in one chain when one of its files
 * started being served. The build worker computes the four sorted address
 * lists (src/snapshot/diff-chain.ts) as shared columns; the loader attaches
 * the file's identity (ChangeSetDraft); the supervisor stamps each draft when
 * it publishes the snapshot that serves it and keeps each chain's recent sets
 * (src/serving/change-history.ts). The whole retained history rides on every
 * snapshot message: small records whose lists are shared, never copied.
 */
import type { ChainId } from "../chains/chains.js";
import type { StringColumn } from "./shared-columns.js";

/**
 * The four address lists of one change set, lowercase, each sorted ascending
 * (byte order = code-unit order = string order for lowercase hex).
 * - pools: compared on their pool-details JSON (`data.pool` of GET /v1/pools/…, the pre-encoded bytes);
 * - tokens: compared on every field of their single-chain JSON (decimals, name, symbol, logoUrl,
 *   tracked TVL) plus their tracked USD price.
 * A chain's first load: every address upserted, nothing removed.
 */
export interface ChangeLists {
  readonly poolsUpserted: StringColumn;
  readonly poolsRemoved: StringColumn;
  readonly tokensUpserted: StringColumn;
  readonly tokensRemoved: StringColumn;
}

/** The lengths of the four lists. */
export interface ChangeCounts {
  readonly poolsUpserted: number;
  readonly poolsRemoved: number;
  readonly tokensUpserted: number;
  readonly tokensRemoved: number;
}

/** What the build worker answers besides the compiled chain: the lists, and how long the diff took. */
export interface ChainDiff extends ChangeLists {
  readonly counts: ChangeCounts;
  /** Milliseconds the diff took (the build-duration metric's `diff` phase). */
  readonly ms: number;
}

/** A change set as the loader makes it, when a chain file is accepted; stamped at publication. */
export interface ChangeSetDraft extends ChangeLists {
  readonly chainId: ChainId;
  /** `<generatedAt>.<first 12 hex of the file's SHA-256>` (changeSetId). */
  readonly id: string;
  /** The id of the chain file accepted before this one; null on the chain's first load. */
  readonly previous: string | null;
  readonly generatedAt: number;
  /** generatedAt of `previous`; null with it. */
  readonly previousGeneratedAt: number | null;
  readonly blockNumber: number | null;
  /** The file is older than `previous` (accepted through an allow-older marker): the chain went back in time. */
  readonly rollback: boolean;
  /**
   * The highest generatedAt this instance served on the chain before its latest rollback (this set's, or an
   * earlier one); null when the chain never went back. A position of a generatedAt up to it may name a file
   * from before the rollback, so resuming by generatedAt alone is refused for it (src/query/resume.ts).
   */
  readonly rollbackFloor: number | null;
  readonly counts: ChangeCounts;
}

/** A change set as served: the draft stamped by the supervisor when it published the snapshot serving it. */
export interface ChangeSetRecord extends ChangeSetDraft {
  /** When the supervisor published the snapshot that started serving it: ISO 8601 UTC with milliseconds. */
  readonly servedAt: string;
  /** That snapshot's version (48-bit, snapshot-version.ts). */
  readonly snapshotVersion: number;
  /** That publication's sequence number (1, 2, …; one per snapshot message): the sets a snapshot introduced have its number. */
  readonly publication: number;
  /** Unique and increasing over every set this instance served (orders the sets of a chain; GET /v1/changes cursors pin it). */
  readonly seq: number;
}

/**
 * The retained change sets carried by a snapshot message (src/server/messages.ts):
 * chains ascending, each chain's sets oldest first. Every loaded chain has at
 * least its latest set (retention never drops it), so the latest set of each
 * chain names the file it serves.
 */
export interface ChangeHistoryMessage {
  readonly sets: readonly ChangeSetRecord[];
  /** The publication this message is: its sets with this `publication` are the ones the snapshot introduced. */
  readonly publication: number;
}

/** The retained sets per loaded chain, each oldest first (what resume reads). */
export type ChangeHistory = ReadonlyMap<ChainId, readonly ChangeSetRecord[]>;

/** The id of a chain file's change set: `<generatedAt>.<first 12 hex of its SHA-256>`. */
export function changeSetId(generatedAt: number, sha256: string): string {
  return `${generatedAt}.${sha256.slice(0, 12)}`;
}

/** A history message's sets per chain (chains ascending, each oldest first). */
export function historyByChain(message: ChangeHistoryMessage): ChangeHistory {
  const byChain = new Map<ChainId, ChangeSetRecord[]>();
  for (const set of message.sets) {
    let list = byChain.get(set.chainId);
    if (list === undefined) byChain.set(set.chainId, (list = []));
    list.push(set);
  }
  for (const list of byChain.values()) list.sort((a, b) => a.seq - b.seq);
  return new Map([...byChain.entries()].sort((a, b) => a[0] - b[0]));
}
