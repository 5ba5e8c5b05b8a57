/**
 * A build worker thread following its task's niceness cell (src/snapshot/thread-niceness.ts), with a recording
 * setter in place of os.setPriority.
 */
import { describe, expect, it } from "vitest";
import { NICE_CHECK_POOLS, ThreadNiceness } from "../../../src/snapshot/thread-niceness.js";
import type { PoolSource } from "../../../src/snapshot/pool-stream.js";
import type { SnapshotPool } from "../../../src/api/snapshot-format.js";

const cell = (nice: number) => {
  const c = new Int32Array(new SharedArrayBuffer(4));
  c[0] = nice;
  return c;
};

describe("ThreadNiceness", () => {
  it("sets the thread's niceness when a task starts, only when it changes", () => {
    const set: number[] = [];
    const niceness = new ThreadNiceness((n) => void set.push(n));
    niceness.follow(cell(0));
    niceness.follow(cell(10));
    niceness.follow(cell(10));
    niceness.follow(cell(0));
    expect(set).toEqual([10, 0]);
  });

  it("looks at the cell every NICE_CHECK_POOLS pools while the task runs", () => {
    const set: number[] = [];
    const niceness = new ThreadNiceness((n) => void set.push(n));
    const wanted = cell(0);
    niceness.follow(wanted);
    let i = 0;
    const source: PoolSource = { count: 3 * NICE_CHECK_POOLS, next: () => ({ address: String(i++) }) as SnapshotPool };
    const pools = niceness.pools(source);
    expect(pools.count).toBe(source.count);
    Atomics.store(wanted, 0, 10);
    for (let p = 0; p < NICE_CHECK_POOLS - 1; p++) pools.next();
    expect(set).toEqual([]);
    expect(pools.next().address).toBe(String(NICE_CHECK_POOLS - 1));
    expect(set).toEqual([10]);
    Atomics.store(wanted, 0, 0);
    const perPool = niceness.perPool();
    for (let p = 0; p < NICE_CHECK_POOLS; p++) perPool();
    expect(set).toEqual([10, 0]);
  });

  it("keeps its niceness when the system refuses a change (raising the priority needs CAP_SYS_NICE)", () => {
    const set: number[] = [];
    const niceness = new ThreadNiceness((n) => {
      if (n < 10) throw new Error("EACCES");
      set.push(n);
    });
    niceness.follow(cell(10));
    niceness.follow(cell(0));
    niceness.follow(cell(10));
    expect(set).toEqual([10]);
  });
});
