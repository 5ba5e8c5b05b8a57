/**
 * A serving thread's view of the snapshots: the one being served and the
 * earlier versions the supervisor still keeps for cursors. Issuing or using
 * a cursor on a version is written to the shared use table, which is what
 * keeps that version (or its pool tables) alive: see version-retention.ts.
 */
import type { ServingSnapshot } from "./serving-snapshot.js";
import { CursorKind, VersionUseTable } from "./version-retention.js";

export class SnapshotStore {
  private currentSnapshot: ServingSnapshot | null = null;
  private currentSlot = -1;
  private readonly byVersion = new Map<number, { snapshot: ServingSnapshot; slot: number }>();
  private readonly use: VersionUseTable | null;

  constructor(
    versionUse: SharedArrayBuffer | null,
    private readonly now: () => number = Date.now,
  ) {
    this.use = versionUse ? new VersionUseTable(versionUse) : null;
  }

  get current(): ServingSnapshot | null {
    return this.currentSnapshot;
  }

  /** Serves `next` from now on (one reference assignment); earlier versions stay until retired. */
  swap(next: ServingSnapshot, slot: number): void {
    this.byVersion.set(next.version, { snapshot: next, slot });
    this.currentSnapshot = next;
    this.currentSlot = slot;
  }

  retire(version: number): void {
    if (this.currentSnapshot?.version !== version) this.byVersion.delete(version);
  }

  /** Drops an earlier version's pool tables; its token lists stay available to cursors. */
  releasePools(version: number): void {
    const entry = this.byVersion.get(version);
    if (entry !== undefined && entry.snapshot !== this.currentSnapshot) entry.snapshot.releasePools();
  }

  /** The snapshot of a version while its token index is kept, recording a token-list cursor's use. */
  version(version: number): ServingSnapshot | null {
    const entry = this.byVersion.get(version);
    if (entry === undefined) return null;
    this.use?.note(entry.slot, CursorKind.Tokens, this.now());
    return entry.snapshot;
  }

  /** The snapshot of a version while its pool tables are kept, recording a pool-search cursor's use. */
  versionWithPools(version: number): ServingSnapshot | null {
    const entry = this.byVersion.get(version);
    if (entry === undefined || !entry.snapshot.hasPools) return null;
    this.use?.note(entry.slot, CursorKind.Pools, this.now());
    return entry.snapshot;
  }

  /** Records that a cursor of `kind` was issued on `snapshot` (it keeps what that cursor needs alive). */
  cursorIssued(snapshot: ServingSnapshot, kind: CursorKind): void {
    if (this.use === null) return;
    const slot = snapshot === this.currentSnapshot ? this.currentSlot : this.byVersion.get(snapshot.version)?.slot;
    if (slot !== undefined) this.use.note(slot, kind, this.now());
  }
}
