/**
 * Resuming from a position (live.md §12; docs/decisions.md "Live data"): for
 * each chain of the history, either the change sets to apply, in order, to the
 * state the position names, or `resync` (the sets are not known here; the
 * client re-reads the chain through the REST routes). Pure; the same rules
 * serve GET /v1/changes and the stream's replay.
 *
 * For a chain c with retained sets S (oldest first) and position entry p:
 * 1. p absent: S[0].previous null (S reaches back to the chain's first load) → all of S; else resync.
 * 2. p is the id of a set of S (its last occurrence: equal ids are equal bytes) → the sets after it;
 *    p is S[0].previous → all of S.
 * 3. else p's generatedAt equals that of a set of S, or of S[0].previous (two different files with one
 *    generatedAt: they diverged) → resync.
 * 4. else when no set of S is a rollback, p's generatedAt is above the chain's rollback floor, and it is not
 *    older than the oldest state S knows (S[0].previous, or S[0] itself on a first load) → every set of S
 *    with a larger generatedAt (a superset of what changed since p: applying is idempotent). None when the
 *    position is ahead of this instance: the entry is then kept as it is.
 * 5. else → resync.
 * Chains of the position that the history does not hold (not loaded here) keep their entries.
 */
import type { ChainId } from "../chains/chains.js";
import type { ChangeHistory, ChangeSetRecord } from "../tables/change-sets.js";
import { generatedAtOfId, type Position } from "./positions.js";

/** One chain's answer: its sets to apply in order (possibly none), or null for resync. */
export interface ChainResume {
  readonly chainId: ChainId;
  readonly sets: readonly ChangeSetRecord[] | null;
}

export interface ResumeResult {
  /** One entry per chain of the history, ascending. */
  readonly chains: readonly ChainResume[];
  /**
   * Where to continue once the answer is applied: per chain of the history, its last set's id (or, for
   * resync, the chain's current id; with no set, the position's entry unchanged); the position's other
   * chains as they are.
   */
  readonly position: Position;
}

/** The sets of one chain after position entry `entry` (undefined: the chain is absent), or null for resync. */
export function resumeChain(sets: readonly ChangeSetRecord[], entry: string | undefined): readonly ChangeSetRecord[] | null {
  if (sets.length === 0) return entry === undefined ? null : [];
  const oldest = sets[0];
  if (entry === undefined) return oldest.previous === null ? sets : null;
  for (let i = sets.length - 1; i >= 0; i--) if (sets[i].id === entry) return sets.slice(i + 1);
  if (oldest.previous === entry) return sets;
  const generatedAt = generatedAtOfId(entry);
  if (oldest.previousGeneratedAt === generatedAt) return null;
  let rollback = false;
  for (const set of sets) {
    if (set.generatedAt === generatedAt) return null;
    if (set.rollback) rollback = true;
  }
  if (rollback) return null;
  const floor = sets[sets.length - 1].rollbackFloor;
  if (floor !== null && generatedAt <= floor) return null;
  const earliest = oldest.previousGeneratedAt ?? oldest.generatedAt;
  if (generatedAt < earliest) return null;
  return sets.filter((set) => set.generatedAt > generatedAt);
}

export function resume(history: ChangeHistory, position: Position): ResumeResult {
  const chains: ChainResume[] = [];
  const next = new Map(position);
  for (const [chainId, sets] of history) {
    const found = resumeChain(sets, position.get(chainId));
    chains.push({ chainId, sets: found });
    if (found === null) {
      if (sets.length > 0) next.set(chainId, sets[sets.length - 1].id);
    } else if (found.length > 0) next.set(chainId, found[found.length - 1].id);
  }
  chains.sort((a, b) => a.chainId - b.chainId);
  return { chains, position: next };
}
