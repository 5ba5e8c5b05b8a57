import { describe, expect, test } from "vitest";
import type { ServingSnapshot } from "../../../src/serving/serving-snapshot.js";
import { SnapshotStore } from "../../../src/serving/snapshot-store.js";
import { CursorKind, GRACE_MS, VersionRetention, VersionUseTable, type RetentionChanges } from "../../../src/serving/version-retention.js";

/** A stand-in for a thread's ServingSnapshot: a version that can let its pool tables go. */
function snap(version: number): ServingSnapshot {
  const s = { version, hasPools: true, releasePools: () => (s.hasPools = false) };
  return s as unknown as ServingSnapshot;
}

describe("version retention (supervisor) with the serving threads' stores", () => {
  function setup(policy = { retainMs: 60_000, maxVersions: 2 }) {
    let now = 1_000_000;
    const clock = () => now;
    const use = VersionUseTable.create(VersionRetention.slotsFor(policy));
    const retention = new VersionRetention(policy, use, clock);
    const stores = [new SnapshotStore(use.buffer, clock), new SnapshotStore(use.buffer, clock)];
    const apply = (changes: RetentionChanges) => {
      for (const store of stores) {
        for (const v of changes.retired) store.retire(v);
        for (const v of changes.poolsReleased) store.releasePools(v);
      }
      return changes;
    };
    const push = (version: number) => {
      const { slot, ...changes } = retention.promote(version);
      for (const store of stores) store.swap(snap(version), slot);
      return apply(changes);
    };
    const tick = (ms: number) => {
      now += ms;
      return apply(retention.prune());
    };
    return { retention, stores, push, tick };
  }

  test("every thread serves the new version and keeps the previous one whole for the grace period", () => {
    const { stores, push, tick } = setup();
    push(1);
    push(2);
    expect(tick(GRACE_MS - 1)).toEqual({ retired: [], poolsReleased: [] });
    for (const store of stores) {
      expect(store.current?.version).toBe(2);
      expect(store.versionWithPools(1)?.version).toBe(1);
      expect(store.version(3)).toBeNull();
    }
  });

  test("a version no cursor was issued on is retired once the grace period ends", () => {
    const { retention, stores, push, tick } = setup();
    push(1);
    push(2);
    expect(tick(GRACE_MS + 1).retired).toEqual([1]);
    expect(retention.versions()).toEqual([2]);
    for (const store of stores) expect(store.version(1)).toBeNull();
  });

  test("a token-list cursor issued on ANY thread keeps the version's token index, without its pool tables", () => {
    const { stores, push, tick } = setup();
    push(1);
    stores[1].cursorIssued(stores[1].current!, CursorKind.Tokens);
    push(2);
    expect(tick(GRACE_MS + 1)).toEqual({ retired: [], poolsReleased: [1] });
    for (const store of stores) {
      expect(store.versionWithPools(1)).toBeNull();
      expect(store.version(1)?.version).toBe(1); // a use: kept another retainMs from now
    }
    expect(tick(59_000).retired).toEqual([]);
    expect(tick(1_001).retired).toEqual([1]);
    for (const store of stores) expect(store.version(1)).toBeNull();
  });

  test("a pool-search cursor keeps the version whole, for retainMs after its last use", () => {
    const { stores, push, tick } = setup();
    push(1);
    stores[0].cursorIssued(stores[0].current!, CursorKind.Pools);
    push(2);
    expect(tick(30_000)).toEqual({ retired: [], poolsReleased: [] });
    expect(stores[1].versionWithPools(1)?.version).toBe(1); // used: retainMs from now
    expect(tick(59_000)).toEqual({ retired: [], poolsReleased: [] });
    expect(tick(1_001)).toEqual({ retired: [1], poolsReleased: [] });
  });

  test("a cursor issued on an earlier version (a walk continuing on it) counts like one issued while it was current", () => {
    const { stores, push, tick } = setup();
    push(1);
    stores[0].cursorIssued(stores[0].current!, CursorKind.Pools);
    push(2);
    tick(50_000);
    const kept = stores[0].versionWithPools(1)!;
    tick(50_000);
    stores[0].cursorIssued(kept, CursorKind.Pools);
    expect(tick(50_000).retired).toEqual([]);
  });

  test("at most maxVersions earlier versions, the least recently active retired first, even within the grace period", () => {
    const { retention, push, stores, tick } = setup({ retainMs: 60_000, maxVersions: 2 });
    for (const v of [1, 2, 3]) {
      push(v);
      stores[0].cursorIssued(stores[0].current!, CursorKind.Tokens);
      tick(10);
    }
    stores[0].version(1); // 1 is now more recently active than 2
    tick(10);
    expect(push(4).retired).toEqual([2]);
    expect(retention.versions().sort()).toEqual([1, 3, 4]);
  });

  test("the current version is never retired, and re-promoting a live version reuses its slot", () => {
    const { retention, push, tick } = setup({ retainMs: 100, maxVersions: 1 });
    push(7);
    tick(10_000);
    expect(retention.versions()).toEqual([7]);
    push(8);
    push(7);
    expect(retention.current).toBe(7);
    expect(retention.versions().sort()).toEqual([7, 8]);
    tick(GRACE_MS + 1);
    expect(retention.versions()).toEqual([7]);
  });
});
