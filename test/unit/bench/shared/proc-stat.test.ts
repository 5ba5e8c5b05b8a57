import { describe, expect, test } from "vitest";
import { cpuSecondsOf, parseProcStat, readProcessCpu } from "../../../../bench/shared/proc-stat.js";

// A real line (wrk at the end of a run): utime 12, stime 35 ticks, 1 thread.
const WRK_STAT =
  "6751 (wrk) R 6735 6735 3209 0 -1 4194304 498 0 2 0 12 35 0 0 20 0 1 0 82594 181460992 1259 18446744073709551615 94813620178944 94813620218093 140725566304496 0 0 0 0 4096 2 0 0 0 17 1 0 0 0 0 0 94813620237872 94813620241112 94813621334016 140725566310887 140725566310953 140725566310953 140725566312427 0";

describe("parseProcStat", () => {
  test("reads pid, command, state, CPU ticks and threads by position", () => {
    expect(parseProcStat(WRK_STAT)).toEqual({
      pid: 6751,
      comm: "wrk",
      state: "R",
      utimeTicks: 12,
      stimeTicks: 35,
      cutimeTicks: 0,
      cstimeTicks: 0,
      numThreads: 1,
    });
  });

  test("a command name with spaces and parentheses does not shift the fields", () => {
    const line = "42 (node (worker) x) S 1 42 42 0 -1 0 10 0 0 0 1500 250 7 9 20 0 12 0 100 1000 100";
    const stat = parseProcStat(line);
    expect(stat.comm).toBe("node (worker) x");
    expect([stat.utimeTicks, stat.stimeTicks, stat.cutimeTicks, stat.cstimeTicks, stat.numThreads]).toEqual([1500, 250, 7, 9, 12]);
  });

  test("CPU seconds are (utime + stime) / ticks per second", () => {
    expect(cpuSecondsOf(parseProcStat(WRK_STAT), 100)).toBeCloseTo(0.47, 10);
    expect(cpuSecondsOf(parseProcStat(WRK_STAT), 1000)).toBeCloseTo(0.047, 10);
  });

  test("a line that is not a stat line, or is cut short, is an error", () => {
    expect(() => parseProcStat("")).toThrow(/not a \/proc/);
    expect(() => parseProcStat("12 (x) S 1 2 3")).toThrow(/field 14/);
    expect(() => parseProcStat("12 (x) S 1 2 3 0 -1 0 10 0 0 0 abc 250 0 0 20 0 1")).toThrow(/field 14/);
  });

  test.runIf(process.platform === "linux")("this process's own reading agrees with process.cpuUsage()", () => {
    let x = 0;
    const until = performance.now() + 150;
    while (performance.now() < until) x += Math.sqrt(x + 1); // some CPU time to read
    const usage = process.cpuUsage();
    const own = (usage.user + usage.system) / 1e6;
    const fromStat = readProcessCpu(process.pid);
    expect(x).toBeGreaterThan(0);
    expect(Math.abs(fromStat - own)).toBeLessThan(0.1 + own * 0.1);
  });

  test("a process that is gone reads as NaN", () => {
    expect(readProcessCpu(2 ** 30)).toBeNaN();
  });
});
