import { describe, expect, test } from "vitest";
import type { ServingSnapshot } from "../../src/snapshot/serving-snapshot.js";
import { SnapshotStore } from "../../src/snapshot/snapshot-store.js";

const snap = (version: number) => ({ version }) as ServingSnapshot;

describe("snapshot store", () => {
  test("swaps and keeps earlier versions for cursors", () => {
    let now = 0;
    const store = new SnapshotStore({ retainMs: 1000, maxVersions: 2 }, () => now);
    store.swap(snap(1));
    store.swap(snap(2));
    expect(store.current?.version).toBe(2);
    expect(store.version(1)?.version).toBe(1);
    expect(store.version(3)).toBeNull();
  });

  test("an earlier version expires after the retention window since its last use", () => {
    let now = 0;
    const store = new SnapshotStore({ retainMs: 1000, maxVersions: 4 }, () => now);
    store.swap(snap(1));
    store.swap(snap(2));
    now = 900;
    expect(store.version(1)).not.toBeNull(); // use renews
    now = 1800;
    expect(store.version(1)).not.toBeNull();
    now = 2900;
    expect(store.version(1)).toBeNull();
  });

  test("keeps at most maxVersions earlier versions, dropping the least recently used", () => {
    let now = 0;
    const store = new SnapshotStore({ retainMs: 60_000, maxVersions: 2 }, () => now);
    for (let v = 1; v <= 4; v++) {
      now += 10;
      store.swap(snap(v));
    }
    expect(store.liveVersions().sort()).toEqual([2, 3, 4]);
  });

  test("swapping in the same version keeps one copy", () => {
    const store = new SnapshotStore({ retainMs: 1000, maxVersions: 4 });
    store.swap(snap(7));
    store.swap(snap(7));
    expect(store.liveVersions()).toEqual([7]);
  });
});
