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

  it("where a lowered thread could not come back, never lowers it: stays at 0 and yields 1.25^nice - 1 of each stretch of work", () => {
    const set: number[] = [];
    const slept: number[] = [];
    let clock = 0;
    const niceness = new ThreadNiceness((n) => void set.push(n), {
      canRaisePriority: false,
      now: () => clock,
      sleep: (ms) => void (slept.push(ms), (clock += ms)),
      threadCpuMs: () => clock / 2,
    });
    const wanted = cell(10);
    niceness.follow(wanted);
    expect(set).toEqual([]);
    clock += 8; // a stretch of work
    niceness.check();
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeCloseTo(8 * (1.25 ** 10 - 1), 6);
    Atomics.store(wanted, 0, 0);
    clock += 8;
    niceness.check();
    expect(slept).toHaveLength(1); // at 0 it runs flat out
    clock += 1000;
    niceness.check();
    expect(slept[0]).toBeLessThanOrEqual(250);
    expect(set).toEqual([]);
    const report = niceness.taskReport();
    expect(report.yieldedMs).toBe(slept[0]);
    expect(report.wallMs).toBe(clock);
    expect(report.cpuMs).toBe(clock / 2);
    // Niceness 10 until the look that found 0 (two stretches of 8 ms and the sleep between), 0 since.
    expect(report.meanNice).toBeCloseTo((10 * (16 + slept[0]!)) / clock, 6);
    expect(report.lastNice).toBe(0);
  });

  it("reports a task's schedule: its niceness averaged over its wall time, its thread's CPU time", () => {
    let clock = 100;
    let cpu = 40;
    const niceness = new ThreadNiceness(() => undefined, { now: () => clock, threadCpuMs: () => cpu });
    const wanted = cell(6);
    niceness.follow(wanted);
    clock += 300;
    cpu += 100;
    Atomics.store(wanted, 0, 2);
    niceness.check();
    clock += 100;
    cpu += 100;
    expect(niceness.taskReport()).toEqual({ wallMs: 400, cpuMs: 200, meanNice: (6 * 300 + 2 * 100) / 400, lastNice: 2, yieldedMs: 0 });
    niceness.follow(cell(0));
    clock += 10;
    expect(niceness.taskReport()).toMatchObject({ wallMs: 10, meanNice: 0, lastNice: 0 });
  });
});
