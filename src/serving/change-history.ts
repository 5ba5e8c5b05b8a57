/**
 * The change sets the gateway keeps (live.md §12, CHANGES_RETENTION): the
 * supervisor stamps the loader's drafts when it publishes the snapshot that
 * serves them (servedAt, version, publication, sequence), appends them to
 * their chain's history and trims every chain on every publication: at most
 * `count` sets per chain and, with `maxAgeSeconds`, none served longer ago;
 * then, while the lists of the kept sets take more than `maxBytes`, the
 * oldest set of any chain goes. A chain's latest set always stays (it names
 * the file the chain serves).
 */
import type { ChainId } from "../chains/chains.js";
import type { ChangeHistoryMessage, ChangeLists, ChangeSetDraft, ChangeSetRecord } from "../tables/change-sets.js";

/** CHANGES_RETENTION: `<count>[/<maxAgeSeconds>]`. */
export interface ChangesRetention {
  /** Most sets kept per chain (at least MIN_CHANGES_RETENTION). */
  readonly count: number;
  /** Sets served longer ago than this are dropped (a chain's latest set stays); null: no age limit. */
  readonly maxAgeSeconds: number | null;
  /**
   * Most bytes the kept sets' address lists may take together (CHANGES_MAX_MB): past it the oldest sets
   * go first, whatever their chain (a chain's latest set stays). Bounds the history when pushes change
   * most records of large chains (about 50 bytes an address).
   */
  readonly maxBytes: number;
}

export const DEFAULT_CHANGES_MAX_MB = 256;
export const DEFAULT_CHANGES_RETENTION: ChangesRetention = {
  count: 64,
  maxAgeSeconds: null,
  maxBytes: DEFAULT_CHANGES_MAX_MB * 1024 * 1024,
};
/** Fewest sets per chain an operator may keep (live.md §12: a documented default of at least 32). */
export const MIN_CHANGES_RETENTION = 32;

export class ChangeHistoryKeeper {
  private readonly byChain = new Map<ChainId, ChangeSetRecord[]>();
  private publication = 0;
  private seq = 0;

  constructor(private readonly retention: ChangesRetention = DEFAULT_CHANGES_RETENTION) {}

  /**
   * Publishes a snapshot: stamps its drafts (in the order given: per chain, the order they were accepted),
   * appends them, trims, and returns what the snapshot message carries.
   */
  publish(drafts: readonly ChangeSetDraft[], snapshotVersion: number, nowMs: number): ChangeHistoryMessage {
    const publication = ++this.publication;
    const servedAt = new Date(nowMs).toISOString();
    const ordered = [...drafts].sort((a, b) => a.chainId - b.chainId); // stable: a chain's drafts keep their order
    for (const draft of ordered) {
      const record: ChangeSetRecord = { ...draft, servedAt, snapshotVersion, publication, seq: ++this.seq };
      let list = this.byChain.get(draft.chainId);
      if (list === undefined) this.byChain.set(draft.chainId, (list = []));
      list.push(record);
    }
    this.trim(nowMs);
    return { sets: this.sets(), publication };
  }

  /** Every retained set: chains ascending, each oldest first. */
  sets(): ChangeSetRecord[] {
    return [...this.byChain.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, list]) => list);
  }

  /** Bytes the kept sets' lists take (what `maxBytes` bounds). */
  get bytes(): number {
    let total = 0;
    for (const list of this.byChain.values()) for (const set of list) total += listBytes(set);
    return total;
  }

  private trim(nowMs: number): void {
    const { count, maxAgeSeconds, maxBytes } = this.retention;
    const oldestKept = maxAgeSeconds === null ? null : nowMs - maxAgeSeconds * 1000;
    for (const list of this.byChain.values()) {
      let drop = Math.max(0, list.length - count);
      if (oldestKept !== null) while (drop < list.length - 1 && Date.parse(list[drop].servedAt) < oldestKept) drop++;
      if (drop > 0) list.splice(0, drop);
    }
    let total = this.bytes;
    while (total > maxBytes) {
      // The oldest set served (lowest seq) among those that are not their chain's latest.
      let oldest: ChangeSetRecord[] | null = null;
      for (const list of this.byChain.values()) if (list.length > 1 && (oldest === null || list[0].seq < oldest[0].seq)) oldest = list;
      if (oldest === null) break;
      total -= listBytes(oldest.shift()!);
    }
  }
}

/** Bytes of a set's four address lists (UTF-8 bytes and offsets). */
export function listBytes(set: ChangeLists): number {
  let bytes = 0;
  for (const column of [set.poolsUpserted, set.poolsRemoved, set.tokensUpserted, set.tokensRemoved])
    bytes += column.bytes.byteLength + column.offsets.byteLength;
  return bytes;
}
