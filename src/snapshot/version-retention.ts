/**
 * Which snapshot versions stay alive (api-decisions.md §3.7), decided in one
 * place for all serving threads. Each live version has a slot in a shared
 * table where serving threads write the time a cursor last used it; a version
 * other than the current one is retired once it has been neither current nor
 * used for `retainMs`, or when more than `maxVersions` earlier versions exist
 * (least recently active first).
 */
export interface RetentionPolicy {
  readonly retainMs: number;
  readonly maxVersions: number;
}

interface LiveVersion {
  readonly version: number;
  readonly slot: number;
  /** When it stopped being current (Infinity while current). */
  supersededAt: number;
}

export class VersionRetention {
  private readonly lastUse: Float64Array;
  private readonly live = new Map<number, LiveVersion>();
  private readonly freeSlots: number[] = [];
  private currentVersion: number | null = null;

  constructor(
    private readonly policy: RetentionPolicy,
    versionUse: SharedArrayBuffer,
    private readonly now: () => number = Date.now,
  ) {
    this.lastUse = new Float64Array(versionUse);
    for (let s = this.lastUse.length - 1; s >= 0; s--) this.freeSlots.push(s);
  }

  /** Slots a shared use table needs for a policy. */
  static slotsFor(policy: RetentionPolicy): number {
    return policy.maxVersions + 2;
  }

  get current(): number | null {
    return this.currentVersion;
  }

  /** Makes `version` current; returns its slot and the versions to retire now. */
  promote(version: number): { slot: number; retired: number[] } {
    const now = this.now();
    if (this.currentVersion !== null) this.live.get(this.currentVersion)!.supersededAt = now;
    let entry = this.live.get(version);
    if (entry === undefined) {
      const slot = this.freeSlots.pop();
      if (slot === undefined) throw new Error("no free retention slot");
      this.lastUse[slot] = now;
      entry = { version, slot, supersededAt: Infinity };
      this.live.set(version, entry);
    }
    entry.supersededAt = Infinity;
    this.currentVersion = version;
    return { slot: entry.slot, retired: this.prune() };
  }

  /** Retires what the policy no longer keeps; returns the retired versions. */
  prune(): number[] {
    const now = this.now();
    const retired: number[] = [];
    const earlier = [...this.live.values()].filter((v) => v.version !== this.currentVersion);
    const activity = (v: LiveVersion) => Math.max(v.supersededAt, this.lastUse[v.slot]);
    earlier.sort((a, b) => activity(a) - activity(b));
    earlier.forEach((v, i) => {
      const expired = now - activity(v) > this.policy.retainMs;
      const overCount = earlier.length - i > this.policy.maxVersions;
      if (expired || overCount) {
        this.live.delete(v.version);
        this.freeSlots.push(v.slot);
        retired.push(v.version);
      }
    });
    return retired;
  }

  versions(): number[] {
    return [...this.live.keys()];
  }
}
