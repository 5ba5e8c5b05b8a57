/**
 * Which snapshot versions stay alive (api-decisions.md §3.7), decided in one
 * place for all serving threads.
 *
 * A version that is no longer current is kept only for the cursors issued on
 * it: each live version has a slot in a shared table where serving threads
 * write when a cursor of each kind (token lists; pool search) was last issued
 * on it or used. Token-list cursors need only the version's token index;
 * pool-search cursors also need its pool tables, which are most of a
 * snapshot's memory. So an earlier version
 * - keeps everything for GRACE_MS after it stopped being current (requests
 *   that started on it may still issue cursors);
 * - then keeps its pool tables while a pool-search cursor was issued or used
 *   on it within `retainMs`, its token index while a token-list cursor was;
 * - and is retired when neither is, or when more than `maxVersions` earlier
 *   versions exist (least recently active first).
 * A version nobody paged through is released seconds after a swap, so a full
 * re-push does not keep the previous data set for the retention period.
 */
export interface RetentionPolicy {
  readonly retainMs: number;
  readonly maxVersions: number;
}

/** What a cursor needs of its version. */
export const CursorKind = {
  /** Token lists: the token index. */
  Tokens: 0,
  /** Pool search: the token index and the pool tables. */
  Pools: 1,
} as const;
export type CursorKind = (typeof CursorKind)[keyof typeof CursorKind];
const CURSOR_KINDS = 2;

/** How long a version that stopped being current is kept whole, whatever its cursors. */
export const GRACE_MS = 1000;

/** A retention table: the last cursor activity (epoch ms) of each kind, per slot. */
export class VersionUseTable {
  private readonly lastUse: Float64Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.lastUse = new Float64Array(buffer);
  }

  static create(slots: number): VersionUseTable {
    return new VersionUseTable(new SharedArrayBuffer(slots * CURSOR_KINDS * Float64Array.BYTES_PER_ELEMENT));
  }

  get slots(): number {
    return this.lastUse.length / CURSOR_KINDS;
  }

  note(slot: number, kind: CursorKind, nowMs: number): void {
    this.lastUse[slot * CURSOR_KINDS + kind] = nowMs;
  }

  last(slot: number, kind: CursorKind): number {
    return this.lastUse[slot * CURSOR_KINDS + kind];
  }

  clear(slot: number): void {
    for (let k = 0; k < CURSOR_KINDS; k++) this.lastUse[slot * CURSOR_KINDS + k] = -Infinity;
  }
}

interface LiveVersion {
  readonly version: number;
  readonly slot: number;
  /** When it stopped being current (Infinity while current). */
  supersededAt: number;
  poolsReleased: boolean;
}

/** What a prune decided: versions to drop entirely, and versions to keep without their pool tables. */
export interface RetentionChanges {
  readonly retired: number[];
  readonly poolsReleased: number[];
}

export class VersionRetention {
  private readonly live = new Map<number, LiveVersion>();
  private readonly freeSlots: number[] = [];
  private currentVersion: number | null = null;

  constructor(
    private readonly policy: RetentionPolicy,
    private readonly use: VersionUseTable,
    private readonly now: () => number = Date.now,
  ) {
    for (let s = use.slots - 1; s >= 0; s--) this.freeSlots.push(s);
  }

  /** Slots a use table needs for a policy. */
  static slotsFor(policy: RetentionPolicy): number {
    return policy.maxVersions + 2;
  }

  get current(): number | null {
    return this.currentVersion;
  }

  /** Makes `version` current; returns its slot and what to release now. */
  promote(version: number): { slot: number } & RetentionChanges {
    const now = this.now();
    if (this.currentVersion !== null) this.live.get(this.currentVersion)!.supersededAt = now;
    let entry = this.live.get(version);
    if (entry === undefined) {
      const slot = this.freeSlots.pop();
      if (slot === undefined) throw new Error("no free retention slot");
      this.use.clear(slot);
      entry = { version, slot, supersededAt: Infinity, poolsReleased: false };
      this.live.set(version, entry);
    }
    // A version made current again needs its pool tables: the caller publishes it whole.
    entry.poolsReleased = false;
    entry.supersededAt = Infinity;
    this.currentVersion = version;
    return { slot: entry.slot, ...this.prune() };
  }

  /** Applies the policy now; returns what changed. */
  prune(): RetentionChanges {
    const now = this.now();
    const retired: number[] = [];
    const poolsReleased: number[] = [];
    const { retainMs, maxVersions } = this.policy;
    const activity = (v: LiveVersion) =>
      Math.max(v.supersededAt, this.use.last(v.slot, CursorKind.Tokens), this.use.last(v.slot, CursorKind.Pools));
    const earlier = [...this.live.values()].filter((v) => v.version !== this.currentVersion).sort((a, b) => activity(a) - activity(b));
    earlier.forEach((v, i) => {
      if (now - v.supersededAt < GRACE_MS && earlier.length - i <= maxVersions) return;
      const tokensWanted = now - this.use.last(v.slot, CursorKind.Tokens) <= retainMs;
      const poolsWanted = now - this.use.last(v.slot, CursorKind.Pools) <= retainMs;
      if ((!tokensWanted && !poolsWanted) || earlier.length - i > maxVersions) {
        this.live.delete(v.version);
        this.freeSlots.push(v.slot);
        retired.push(v.version);
      } else if (!poolsWanted && !v.poolsReleased) {
        v.poolsReleased = true;
        poolsReleased.push(v.version);
      }
    });
    return { retired, poolsReleased };
  }

  versions(): number[] {
    return [...this.live.keys()];
  }
}
