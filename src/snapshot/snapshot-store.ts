/**
 * A serving thread's view of the snapshots: the one being served and the
 * earlier versions the supervisor still keeps for cursors. A cursor's use of
 * a version is written to the shared use table, which is what keeps that
 * version alive (see version-retention.ts).
 */
import type { ServingSnapshot } from "./serving-snapshot.js";

export class SnapshotStore {
  private currentSnapshot: ServingSnapshot | null = null;
  private readonly byVersion = new Map<number, { snapshot: ServingSnapshot; slot: number }>();
  private readonly lastUse: Float64Array | null;

  constructor(versionUse: SharedArrayBuffer | null, private readonly now: () => number = Date.now) {
    this.lastUse = versionUse ? new Float64Array(versionUse) : null;
  }

  get current(): ServingSnapshot | null {
    return this.currentSnapshot;
  }

  /** Serves `next` from now on (one reference assignment); earlier versions stay until retired. */
  swap(next: ServingSnapshot, slot: number): void {
    this.byVersion.set(next.version, { snapshot: next, slot });
    this.currentSnapshot = next;
  }

  retire(version: number): void {
    if (this.currentSnapshot?.version !== version) this.byVersion.delete(version);
  }

  /** The snapshot of a version while it is alive, recording the cursor's use. */
  version(version: number): ServingSnapshot | null {
    const entry = this.byVersion.get(version);
    if (!entry) return null;
    if (this.lastUse) this.lastUse[entry.slot] = this.now();
    return entry.snapshot;
  }
}
