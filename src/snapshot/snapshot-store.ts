/**
 * Holds the snapshot being served and, for cursor stability (api-decisions.md
 * §3.7), recent earlier versions: each is kept while a cursor used it within
 * the retention window, up to a bounded count.
 */
import type { ServingSnapshot } from "./serving-snapshot.js";

export interface RetentionPolicy {
  /** How long a version stays available after its last use by a cursor. */
  readonly retainMs: number;
  /** At most this many earlier versions are kept. */
  readonly maxVersions: number;
}

interface Retained {
  readonly snapshot: ServingSnapshot;
  lastUsedMs: number;
}

export class SnapshotStore {
  private currentSnapshot: ServingSnapshot | null = null;
  private readonly retained = new Map<number, Retained>();

  constructor(
    private readonly policy: RetentionPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  get current(): ServingSnapshot | null {
    return this.currentSnapshot;
  }

  /** Swaps in a new snapshot; the previous one stays reachable for cursors. */
  swap(next: ServingSnapshot): void {
    const previous = this.currentSnapshot;
    this.currentSnapshot = next;
    const now = this.now();
    if (previous && previous.version !== next.version) this.retained.set(previous.version, { snapshot: previous, lastUsedMs: now });
    this.retained.delete(next.version);
    this.prune(now);
  }

  /** The snapshot of a version, if it is still kept (marks it used). */
  version(version: number): ServingSnapshot | null {
    const current = this.currentSnapshot;
    if (current && current.version === version) return current;
    const entry = this.retained.get(version);
    if (!entry) return null;
    const now = this.now();
    if (now - entry.lastUsedMs > this.policy.retainMs) {
      this.retained.delete(version);
      return null;
    }
    entry.lastUsedMs = now;
    return entry.snapshot;
  }

  /** Versions alive now, the current one first. */
  liveVersions(): number[] {
    this.prune(this.now());
    const current = this.currentSnapshot ? [this.currentSnapshot.version] : [];
    return [...current, ...this.retained.keys()];
  }

  private prune(now: number): void {
    for (const [version, entry] of this.retained) {
      if (now - entry.lastUsedMs > this.policy.retainMs) this.retained.delete(version);
    }
    while (this.retained.size > this.policy.maxVersions) {
      let oldest: number | undefined;
      let oldestUse = Infinity;
      for (const [version, entry] of this.retained) {
        if (entry.lastUsedMs < oldestUse) {
          oldestUse = entry.lastUsedMs;
          oldest = version;
        }
      }
      this.retained.delete(oldest!);
    }
  }
}
