/**
 * A deliberately simple reference for change sets (live.md §12): a chain
 * file's state is two maps, address → value (a pool's JSON, a token's
 * fields); a change set is what differs between two such maps, sorted; and a
 * client applies change sets by dropping the removed addresses and
 * re-reading the upserted ones from the current state (as it would through
 * the REST routes).
 */
import { columnStrings, type StringColumn } from "../../src/tables/shared-columns.js";

/** A chain file's data: address → value, for pools and for tokens. */
export interface ChainState {
  readonly pools: ReadonlyMap<string, string>;
  readonly tokens: ReadonlyMap<string, string>;
}

export interface ReferenceLists {
  readonly poolsUpserted: string[];
  readonly poolsRemoved: string[];
  readonly tokensUpserted: string[];
  readonly tokensRemoved: string[];
}

function diffMap(previous: ReadonlyMap<string, string> | null, next: ReadonlyMap<string, string>): [string[], string[]] {
  const upserted = [...next.keys()].filter((a) => previous === null || previous.get(a) !== next.get(a)).sort();
  const removed = previous === null ? [] : [...previous.keys()].filter((a) => !next.has(a)).sort();
  return [upserted, removed];
}

/** What changed from `previous` (null: nothing before, a first load) to `next`. */
export function referenceDiff(previous: ChainState | null, next: ChainState): ReferenceLists {
  const [poolsUpserted, poolsRemoved] = diffMap(previous?.pools ?? null, next.pools);
  const [tokensUpserted, tokensRemoved] = diffMap(previous?.tokens ?? null, next.tokens);
  return { poolsUpserted, poolsRemoved, tokensUpserted, tokensRemoved };
}

/** The four lists of a change set record (or a diff), as arrays. */
export function listsOf(set: {
  poolsUpserted: StringColumn;
  poolsRemoved: StringColumn;
  tokensUpserted: StringColumn;
  tokensRemoved: StringColumn;
}): ReferenceLists {
  return {
    poolsUpserted: columnStrings(set.poolsUpserted),
    poolsRemoved: columnStrings(set.poolsRemoved),
    tokensUpserted: columnStrings(set.tokensUpserted),
    tokensRemoved: columnStrings(set.tokensRemoved),
  };
}

/** A value the current state does not hold (an upserted address read after it was removed). */
export const GONE = "<not in the current state>";

function applyMap(
  state: Map<string, string>,
  upserted: readonly string[],
  removed: readonly string[],
  current: ReadonlyMap<string, string>,
) {
  for (const a of removed) state.delete(a);
  for (const a of upserted) state.set(a, current.get(a) ?? GONE);
}

/**
 * A client's state after applying change sets, in order, to `state` (null: it held nothing of the chain):
 * each removed address dropped, each upserted one re-read from `current`.
 */
export function applyChangeSets(state: ChainState | null, sets: readonly ReferenceLists[], current: ChainState): ChainState {
  const pools = new Map(state?.pools ?? []);
  const tokens = new Map(state?.tokens ?? []);
  for (const set of sets) {
    applyMap(pools, set.poolsUpserted, set.poolsRemoved, current.pools);
    applyMap(tokens, set.tokensUpserted, set.tokensRemoved, current.tokens);
  }
  return { pools, tokens };
}

/** The state as sorted entry lists (for equality assertions). */
export function sortedState(state: ChainState): { pools: [string, string][]; tokens: [string, string][] } {
  const sorted = (m: ReadonlyMap<string, string>) => [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { pools: sorted(state.pools), tokens: sorted(state.tokens) };
}
