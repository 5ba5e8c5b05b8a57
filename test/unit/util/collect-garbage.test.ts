/** collect-garbage.ts: when a dropped snapshot's memory is collected, and that an idle thread collects it. */
import { describe, expect, it } from "vitest";
import { collectGarbageSoon, collectionStep, MAX_DEFER_MS } from "../../../src/util/collect-garbage.js";

describe("collectionStep", () => {
  it("leaves it to the thread once two full collections of its own began since the drop", () => {
    expect(collectionStep(2, 0.9, 100)).toBe("collected");
    expect(collectionStep(3, 0.0, MAX_DEFER_MS + 1)).toBe("collected");
  });

  it("forces one when the thread was idle, or when the drop has waited long enough", () => {
    expect(collectionStep(0, 0.05, 0)).toBe("collect");
    expect(collectionStep(1, 0.95, MAX_DEFER_MS)).toBe("collect");
  });

  it("waits while the thread is busy and has not collected twice", () => {
    expect(collectionStep(0, 0.5, 200)).toBe("wait");
    expect(collectionStep(1, 0.99, MAX_DEFER_MS - 1)).toBe("wait");
  });
});

describe("collectGarbageSoon", () => {
  it("on an idle thread, collects what was dropped within a few checks", async () => {
    let collected = false;
    const registry = new FinalizationRegistry(() => (collected = true));
    (() => {
      // An object only this closure holds, in the old generation's reach once dropped.
      const dropped = { bytes: new Uint8Array(new SharedArrayBuffer(1 << 20)) };
      registry.register(dropped, "dropped");
    })();
    expect(collectGarbageSoon()).toBe(true);
    const deadline = Date.now() + 5000;
    while (!collected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(collected).toBe(true);
  });
});
