import { describe, expect, test } from "vitest";
import type { ServingSnapshot } from "../../src/snapshot/serving-snapshot.js";
import { SnapshotStore } from "../../src/snapshot/snapshot-store.js";
import { VersionRetention } from "../../src/snapshot/version-retention.js";

const snap = (version: number) => ({ version }) as ServingSnapshot;

describe("version retention (supervisor) with the serving threads' stores", () => {
  function setup(policy = { retainMs: 1000, maxVersions: 2 }) {
    let now = 0;
    const clock = () => now;
    const use = new SharedArrayBuffer(VersionRetention.slotsFor(policy) * 8);
    const retention = new VersionRetention(policy, use, clock);
    const stores = [new SnapshotStore(use, clock), new SnapshotStore(use, clock)];
    const push = (version: number) => {
      const { slot, retired } = retention.promote(version);
      for (const store of stores) {
        store.swap(snap(version), slot);
        for (const v of retired) store.retire(v);
      }
      return retired;
    };
    const tick = (ms: number) => {
      now += ms;
      const retired = retention.prune();
      for (const store of stores) for (const v of retired) store.retire(v);
      return retired;
    };
    return { retention, stores, push, tick };
  }

  test("every thread serves the new version and keeps the previous one", () => {
    const { stores, push } = setup();
    push(1);
    push(2);
    for (const store of stores) {
      expect(store.current?.version).toBe(2);
      expect(store.version(1)?.version).toBe(1);
      expect(store.version(3)).toBeNull();
    }
  });

  test("a cursor's use on ANY thread keeps a version alive for everyone", () => {
    const { stores, push, tick } = setup();
    push(1);
    push(2);
    tick(900);
    expect(stores[0].version(1)).not.toBeNull(); // use on thread 0
    expect(tick(900)).toEqual([]);
    expect(stores[1].version(1)).not.toBeNull(); // still alive on thread 1
    expect(tick(1100)).toEqual([1]);
    for (const store of stores) expect(store.version(1)).toBeNull();
  });

  test("at most maxVersions earlier versions, the least recently active retired first", () => {
    const { retention, push, stores, tick } = setup({ retainMs: 60_000, maxVersions: 2 });
    push(1);
    tick(10);
    push(2);
    tick(10);
    push(3);
    tick(10);
    stores[0].version(1); // 1 is now more recently active than 2
    tick(10);
    expect(push(4)).toEqual([2]);
    expect(retention.versions().sort()).toEqual([1, 3, 4]);
  });

  test("the current version is never retired, and re-promoting a live version reuses it", () => {
    const { retention, push, tick } = setup({ retainMs: 100, maxVersions: 1 });
    push(7);
    tick(10_000);
    expect(retention.versions()).toEqual([7]);
    push(8);
    push(7);
    expect(retention.current).toBe(7);
    expect(retention.versions().sort()).toEqual([7, 8]);
  });
});
