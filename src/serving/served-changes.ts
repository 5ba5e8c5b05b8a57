/**
 * The change sets a served snapshot carries (live.md §12): the retained
 * history of every loaded chain, the position the snapshot serves, and the
 * sets it introduced with the position after each. Built once per snapshot
 * message in each serving thread; immutable.
 */
import type { ChainId } from "../chains/chains.js";
import { encodePosition, type Position } from "../query/positions.js";
import { historyByChain, type ChangeHistory, type ChangeHistoryMessage, type ChangeSetRecord } from "../tables/change-sets.js";

/** A change set the snapshot introduced, with the position after it. */
export interface IntroducedChange {
  readonly set: ChangeSetRecord;
  /**
   * The position after this set: the position before the snapshot (basePosition) with the entries of the
   * sets introduced before it and of this one replaced, in the order of `introduced` (chain ascending,
   * then set order).
   */
  readonly position: Position;
  readonly positionText: string;
}

const EMPTY: ChangeHistoryMessage = { sets: [], publication: 0 };

/** The position a history serves (every chain's latest set), encoded; null when no chain has a set. */
export function servedPosition(message: ChangeHistoryMessage): string | null {
  const position = new Map<ChainId, string>();
  for (const [chainId, list] of historyByChain(message)) position.set(chainId, list[list.length - 1].id);
  return position.size === 0 ? null : encodePosition(position);
}

export class ServedChanges {
  /** The retained sets per loaded chain, chains ascending, each oldest first (resume reads it). */
  readonly history: ChangeHistory;
  /** The publication of the snapshot message (0: none, e.g. a snapshot built without a history). */
  readonly publication: number;
  /** Every chain's latest set id: the position this snapshot serves. */
  readonly position: Position;
  /** `position` encoded; null when no chain has a set. */
  readonly positionText: string | null;
  /** The position before this snapshot's sets (what the previous publication served). */
  readonly basePosition: Position;
  /** `basePosition` encoded; null when empty. */
  readonly basePositionText: string | null;
  /** The sets this snapshot introduced, chain ascending then set order, each with the position after it. */
  readonly introduced: readonly IntroducedChange[];

  constructor(message: ChangeHistoryMessage | null) {
    const { sets, publication } = message ?? EMPTY;
    this.publication = publication;
    this.history = historyByChain({ sets, publication });
    const position = new Map<ChainId, string>();
    const base = new Map<ChainId, string>();
    for (const [chainId, list] of this.history) {
      position.set(chainId, list[list.length - 1].id);
      // Before this publication: the chain's entry before its first introduced set (absent when that set is a first load).
      const first = list.find((s) => s.publication === publication);
      if (first === undefined) base.set(chainId, list[list.length - 1].id);
      else if (first.previous !== null) base.set(chainId, first.previous);
    }
    this.position = position;
    this.positionText = position.size === 0 ? null : encodePosition(position);
    this.basePosition = base;
    this.basePositionText = base.size === 0 ? null : encodePosition(base);
    const introduced: IntroducedChange[] = [];
    let running: Map<ChainId, string> = new Map(base);
    for (const list of this.history.values()) {
      for (const set of list) {
        if (set.publication !== publication || publication === 0) continue;
        running = new Map(running);
        running.set(set.chainId, set.id);
        introduced.push({ set, position: running, positionText: encodePosition(running) });
      }
    }
    this.introduced = introduced;
  }

  /** The latest (served) set of a chain; undefined when the chain has none. */
  latest(chainId: ChainId): ChangeSetRecord | undefined {
    const list = this.history.get(chainId);
    return list === undefined ? undefined : list[list.length - 1];
  }

  /** The position over some chains only (those of `chainIds` that have a set); null when none has. */
  positionOf(chainIds: readonly ChainId[]): { position: Position; text: string } | null {
    const position = new Map<ChainId, string>();
    for (const chainId of chainIds) {
      const id = this.position.get(chainId);
      if (id !== undefined) position.set(chainId, id);
    }
    return position.size === 0 ? null : { position, text: encodePosition(position) };
  }
}
