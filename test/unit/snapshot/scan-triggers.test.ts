/**
 * When the loader scans (src/snapshot/scan-triggers.ts): one scan at a time, a request during a scan queues
 * exactly one more, a queued tick stays a tick, nothing after stop; directory changes are debounced, except a
 * complete file renamed over a chain file's name.
 */
import { renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { RENAME_SETTLE_MS, ScanTriggers } from "../../../src/snapshot/scan-triggers.js";
import { tempDir } from "../../support/fixtures.js";

/** A recording scan: each call is held until the test releases it. */
function recordingScan() {
  const calls: boolean[] = [];
  const held: Array<() => void> = [];
  return {
    calls,
    scan: (tick: boolean) => {
      calls.push(tick);
      return new Promise<void>((resolve) => held.push(resolve));
    },
    release: () => held.shift()?.(),
  };
}

const started: ScanTriggers[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((t) => t.stop()));
});

function triggers(scan: (tick: boolean) => Promise<void>, dir = tempDir("lgw-scan-"), debounceMs = 20): ScanTriggers {
  const t = new ScanTriggers(scan, { dir, debounceMs, cron: "0 0 1 1 *" }, pino({ level: "silent" }));
  started.push(t);
  return t;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("ScanTriggers", () => {
  it("runs one scan at a time; requests during a scan queue one more, which the callers share", async () => {
    const r = recordingScan();
    const t = triggers(r.scan);
    const first = t.scan("start");
    const second = t.scan("change");
    const third = t.scan("change");
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(r.calls).toEqual([false]);
    r.release();
    await turn();
    expect(r.calls).toEqual([false, false]);
    r.release();
    await first;
    expect(t.current).toBeNull();
    expect(r.calls).toHaveLength(2);
  });

  it("a tick queued behind other requests makes the next scan a tick, once", async () => {
    const r = recordingScan();
    const t = triggers(r.scan);
    const done = t.scan("change");
    void t.scan("tick"); // joins the running scan: the same promise as `done`, awaited below
    void t.scan("change"); // the same
    r.release();
    await turn();
    r.release();
    await done;
    const next = t.scan("change");
    r.release();
    await next;
    expect(r.calls).toEqual([false, true, false]);
  });

  it("no scan starts after stop, and a queued one is not run", async () => {
    const r = recordingScan();
    const t = triggers(r.scan);
    const running = t.scan("start");
    void t.scan("change"); // joins the running scan: the same promise as `running`, awaited below
    await t.stop();
    r.release();
    await running;
    await t.scan("tick");
    expect(r.calls).toEqual([false]);
  });

  it("changes in the directory, close together, start one scan after the debounce", async () => {
    const calls: boolean[] = [];
    const dir = tempDir("lgw-scan-");
    const t = triggers(async (tick) => void calls.push(tick), dir, 100);
    t.watch();
    writeFileSync(path.join(dir, "chain-1.msgpack"), "a");
    writeFileSync(path.join(dir, "chain-8453.msgpack"), "b");
    for (let i = 0; i < 200 && calls.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toEqual([false]);
  });

  it("a scan the watch started that fails is logged, and the next change scans again", async () => {
    const dir = tempDir("lgw-scan-");
    const logs: Record<string, unknown>[] = [];
    const log = pino({ level: "error" }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
    let calls = 0;
    const t = new ScanTriggers(
      async () => {
        calls++;
        throw new Error("scan broke");
      },
      { dir, debounceMs: 20, cron: "0 0 1 1 *" },
      log,
    );
    started.push(t);
    t.watch();
    writeFileSync(path.join(dir, "chain-1.msgpack"), "a");
    for (let i = 0; i < 200 && logs.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(logs.map((l) => [l.event, l.trigger, (l.err as { message?: string } | undefined)?.message])).toEqual([
      ["scan-failed", "change", "scan broke"],
    ]);
    writeFileSync(path.join(dir, "chain-1.msgpack"), "b");
    for (let i = 0; i < 200 && calls < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toBe(2);
  });

  it("files renamed over chain files' names scan without waiting out the debounce, in one scan", async () => {
    const calls: number[] = [];
    const dir = tempDir("lgw-scan-");
    const t = triggers(async () => void calls.push(performance.now()), dir, 60_000);
    t.watch();
    const chains = [8453, 1, 130];
    for (const chain of chains) writeFileSync(path.join(dir, `.chain-${chain}.tmp`), "complete");
    const renamedAt = performance.now();
    for (const chain of chains) renameSync(path.join(dir, `.chain-${chain}.tmp`), path.join(dir, `chain-${chain}.msgpack`));
    for (let i = 0; i < 500 && calls.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls).toHaveLength(1);
    // Not the debounce (a minute): the settle time, and however late this busy machine ran the timer.
    expect(calls[0] - renamedAt).toBeGreaterThanOrEqual(RENAME_SETTLE_MS - 1);
    expect(calls[0] - renamedAt).toBeLessThan(5_000);
  });

  it("a file created in place (a rename event, then its writes) and a rename to another name wait for the debounce", async () => {
    const calls: number[] = [];
    const dir = tempDir("lgw-scan-");
    const t = triggers(async () => void calls.push(performance.now()), dir, 1_500);
    t.watch();
    const writtenAt = performance.now();
    writeFileSync(path.join(dir, "chain-1.msgpack"), "being written");
    writeFileSync(path.join(dir, ".chain-130.tmp"), "x");
    renameSync(path.join(dir, ".chain-130.tmp"), path.join(dir, "chain-130.tmp"));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(calls).toEqual([]);
    for (let i = 0; i < 500 && calls.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toHaveLength(1);
    expect(calls[0] - writtenAt).toBeGreaterThanOrEqual(1_500 - 1);
  });
});
