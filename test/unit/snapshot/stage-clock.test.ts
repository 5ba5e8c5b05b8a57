import { describe, expect, it } from "vitest";
import { StageClock } from "../../../src/snapshot/stage-clock.js";

describe("StageClock", () => {
  it("reports each stage's milliseconds since the mark before, in order, adding up a repeated name", () => {
    const times = [100, 130.4, 131, 200, 260];
    const clock = new StageClock(() => times.shift()!);
    clock.mark("hash");
    clock.mark("frame");
    clock.mark("pools");
    clock.mark("hash");
    expect(clock.report()).toEqual({ hash: 30 + 60, frame: 1, pools: 69 });
    expect(Object.keys(clock.report())).toEqual(["hash", "frame", "pools"]);
  });

  it("hands out a copy: marks after a report do not change it", () => {
    let t = 0;
    const clock = new StageClock(() => (t += 5));
    clock.mark("a");
    const first = clock.report();
    clock.mark("a");
    expect(first).toEqual({ a: 5 });
    expect(clock.report()).toEqual({ a: 10 });
  });

  it("adds a part timed elsewhere without ending the running stage", () => {
    const times = [0, 10, 25];
    const clock = new StageClock(() => times.shift()!);
    clock.mark("pools");
    clock.add("finish.orders", 4.4);
    clock.mark("finish");
    clock.add("finish.orders", 1);
    expect(clock.report()).toEqual({ pools: 10, "finish.orders": 5, finish: 15 });
  });
});
