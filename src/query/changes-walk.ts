/**
 * The pages of GET /v1/changes (live.md §14): the change sets served after a
 * position, one address per entry, in pages. Entries are ordered by chain id,
 * then set order, then pools before tokens, upserted before removed, address
 * ascending. The first page resumes from `since` (resume.ts) and pins the walk:
 * the position to continue from once every page is read (answered on every
 * page), the last set that existed then (`untilSeq`), and the chains that had
 * sets to walk. A later page continues after the previous page's last entry; a
 * set trimmed from the history before the walk reaches it turns its chain into
 * `resync` on that page (and the walk leaves the chain).
 */
import { SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../chains/chains.js";
import type { ChangeHistory, ChangeSetRecord } from "../tables/change-sets.js";
import { columnString, type StringColumn } from "../tables/shared-columns.js";
import type { Position } from "./positions.js";
import { resume, resumeChain } from "./resume.js";

/** Where a walk stands: pinned on its first page and carried by its cursor. */
export interface ChangesWalk {
  /** The position to answer (where to continue once every page is read). */
  readonly until: Position;
  /** Sets with a larger seq were served after the first page: not part of this walk. */
  readonly untilSeq: number;
  /** The chains left to walk (bit i: SUPPORTED_CHAIN_IDS_ASCENDING[i]). */
  readonly chains: number;
  /** The next entry: its chain, its set's seq, and its index among the set's entries. */
  readonly chainId: ChainId;
  readonly seq: number;
  readonly index: number;
}

/** One entry of a page: the address `index` of its set (pools upserted, pools removed, tokens upserted, tokens removed). */
export interface ChangeEntryRef {
  readonly set: ChangeSetRecord;
  readonly kind: "pool" | "token";
  readonly change: "upserted" | "removed";
  readonly address: string;
}

export interface ChangesPage {
  readonly entries: readonly ChangeEntryRef[];
  /** Chains answering resync on this page, ascending. */
  readonly resync: readonly ChainId[];
  /** The position to continue from once every page is read. */
  readonly until: Position;
  /** The walk after this page; null at the end. */
  readonly next: ChangesWalk | null;
}

export const chainBit = (chainId: ChainId): number => 1 << SUPPORTED_CHAIN_IDS_ASCENDING.indexOf(chainId);

/** How many entries a set has. */
function entryCount(set: ChangeSetRecord): number {
  const c = set.counts;
  return c.poolsUpserted + c.poolsRemoved + c.tokensUpserted + c.tokensRemoved;
}

/** Entry `index` of a set. */
export function entryOf(set: ChangeSetRecord, index: number): ChangeEntryRef {
  const lists: [StringColumn, "pool" | "token", "upserted" | "removed"][] = [
    [set.poolsUpserted, "pool", "upserted"],
    [set.poolsRemoved, "pool", "removed"],
    [set.tokensUpserted, "token", "upserted"],
    [set.tokensRemoved, "token", "removed"],
  ];
  let i = index;
  for (const [column, kind, change] of lists) {
    const n = column.offsets.length - 1;
    if (i < n) return { set, kind, change, address: columnString(column, i) };
    i -= n;
  }
  throw new RangeError(`entry ${index} of a set of ${entryCount(set)}`);
}

/**
 * One page.
 * @param scope the chains asked (loaded ones the key may read), ascending
 * @param from the walk's cursor; null for the first page
 */
export function changesPage(
  history: ChangeHistory,
  since: Position,
  scope: readonly ChainId[],
  limit: number,
  from: ChangesWalk | null,
): ChangesPage {
  const inScope = new Map<ChainId, readonly ChangeSetRecord[]>();
  for (const chainId of scope) {
    const sets = history.get(chainId);
    if (sets !== undefined) inScope.set(chainId, sets);
  }
  const resync: ChainId[] = [];
  /** The sets each chain still walks, in chain order; the first starts at `startIndex`. */
  const plan: { chainId: ChainId; sets: readonly ChangeSetRecord[] }[] = [];
  let until: Position;
  let untilSeq: number;
  let startIndex = 0;
  if (from === null) {
    const resumed = resume(inScope, since);
    until = resumed.position;
    untilSeq = 0;
    for (const sets of history.values()) for (const set of sets) untilSeq = Math.max(untilSeq, set.seq);
    for (const { chainId, sets } of resumed.chains) {
      if (sets === null) resync.push(chainId);
      else if (sets.length > 0) plan.push({ chainId, sets });
    }
  } else {
    until = from.until;
    untilSeq = from.untilSeq;
    for (const [chainId, sets] of inScope) {
      if ((from.chains & chainBit(chainId)) === 0 || chainId < from.chainId) continue;
      let walked: readonly ChangeSetRecord[] | null;
      if (chainId === from.chainId) {
        const at = sets.findIndex((s) => s.seq === from.seq);
        walked = at < 0 ? null : sets.slice(at);
        startIndex = from.index;
      } else {
        walked = resumeChain(sets, since.get(chainId));
      }
      if (walked === null) resync.push(chainId);
      else {
        const kept = walked.filter((s) => s.seq <= untilSeq);
        if (kept.length > 0) plan.push({ chainId, sets: kept });
      }
    }
    // The cursor's chain starts inside its first set only when that set is still there.
    if (plan.length === 0 || plan[0].chainId !== from.chainId) startIndex = 0;
  }

  const entries: ChangeEntryRef[] = [];
  let chains = 0;
  for (const { chainId } of plan) chains |= chainBit(chainId);
  for (let p = 0; p < plan.length; p++) {
    const { chainId, sets } = plan[p];
    for (let s = 0; s < sets.length; s++) {
      const set = sets[s];
      const count = entryCount(set);
      let index = p === 0 && s === 0 ? startIndex : 0;
      for (; index < count; index++) {
        if (entries.length === limit) return { entries, resync, until, next: { until, untilSeq, chains, chainId, seq: set.seq, index } };
        entries.push(entryOf(set, index));
      }
    }
  }
  return { entries, resync, until, next: null };
}
