/**
 * The change-set drafts of accepted chain files (live.md §12): each file's
 * identity (`<generatedAt>.<12 hex of its SHA-256>`), the file it follows,
 * whether the chain went back in time (an allow-older rollback), the chain's
 * rollback floor, and the diff's lists. One instance per loader: it remembers
 * per chain the highest generatedAt accepted and the floor.
 */
import type { ChainId } from "../chains/chains.js";
import { changeSetId, type ChainDiff, type ChangeSetDraft } from "../tables/change-sets.js";

/** What a draft needs of a chain file. */
export interface ChainFileIdentity {
  readonly chainId: ChainId;
  readonly generatedAt: number;
  readonly sha256: string;
  readonly blockNumber: number | null;
}

export class ChangeSetDrafts {
  /** Per chain: the highest generatedAt accepted, and the highest accepted before its latest rollback. */
  private readonly marks = new Map<ChainId, { max: number; rollbackFloor: number | null }>();

  /** The draft of an accepted file, diffed against `previous` (the chain's file accepted before it; null on a first load). */
  draft(file: ChainFileIdentity, previous: ChainFileIdentity | null, diff: ChainDiff): ChangeSetDraft {
    const rollback = previous !== null && file.generatedAt < previous.generatedAt;
    const marks = this.marks.get(file.chainId) ?? { max: file.generatedAt, rollbackFloor: null };
    if (rollback) marks.rollbackFloor = marks.max;
    marks.max = Math.max(marks.max, file.generatedAt);
    this.marks.set(file.chainId, marks);
    return {
      chainId: file.chainId,
      id: changeSetId(file.generatedAt, file.sha256),
      previous: previous === null ? null : changeSetId(previous.generatedAt, previous.sha256),
      generatedAt: file.generatedAt,
      previousGeneratedAt: previous?.generatedAt ?? null,
      blockNumber: file.blockNumber,
      rollback,
      rollbackFloor: marks.rollbackFloor,
      counts: diff.counts,
      poolsUpserted: diff.poolsUpserted,
      poolsRemoved: diff.poolsRemoved,
      tokensUpserted: diff.tokensUpserted,
      tokensRemoved: diff.tokensRemoved,
    };
  }
}
