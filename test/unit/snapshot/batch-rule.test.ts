/**
 * The batch rule (src/snapshot/batch-rule.ts) as the loader walks a scan: which files are served before the
 * next builds, and which is the last of its batch. A simulated re-push is held against a plain reference:
 * cut the files, in build order, into runs that each stay within a third of the served bytes (a run holds
 * at least one file), each file counted for the share of its chain's memory its build adds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  added,
  buildOrder,
  EMPTY_BATCH,
  expectedShare,
  lastOfBatch,
  passesBatch,
  publishesFirst,
  REPUSH_BATCH_SHARE,
  withBuilt,
  type OpenBatch,
} from "../../../src/snapshot/batch-rule.js";

describe("passesBatch", () => {
  it("passes only past a third of the served bytes", () => {
    expect(REPUSH_BATCH_SHARE).toBeCloseTo(1 / 3);
    expect(passesBatch(300, 900)).toBe(false);
    expect(passesBatch(301, 900)).toBe(true);
    expect(passesBatch(1, 0)).toBe(true);
  });
});

describe("buildOrder", () => {
  it("largest first, ties by name", () => {
    const files = [
      { name: "chain-1.msgpack", bytes: 10 },
      { name: "chain-8453.msgpack", bytes: 30 },
      { name: "chain-130.msgpack", bytes: 10 },
    ];
    expect(buildOrder(files).map((f) => f.name)).toEqual(["chain-8453.msgpack", "chain-1.msgpack", "chain-130.msgpack"]);
  });
});

describe("one scan's batches", () => {
  it("publishes nothing before a snapshot serves, and nothing unchanged", () => {
    const built = withBuilt(EMPTY_BATCH, 500);
    expect(publishesFirst(built, 500, 900, false)).toBe(false);
    expect(publishesFirst(EMPTY_BATCH, 5000, 900, true)).toBe(false);
    expect(publishesFirst(built, 500, 900, true)).toBe(true);
  });

  it("the last file of a scan is the last of its batch; so is one whose next file would pass the rule", () => {
    expect(lastOfBatch(EMPTY_BATCH, 100, undefined, 900)).toBe(true);
    expect(lastOfBatch(EMPTY_BATCH, 100, 200, 900)).toBe(false);
    expect(lastOfBatch(EMPTY_BATCH, 100, 201, 900)).toBe(true);
    expect(lastOfBatch(withBuilt(EMPTY_BATCH, 100), 100, 100, 900)).toBe(false);
    expect(lastOfBatch(withBuilt(EMPTY_BATCH, 100), 100, 101, 900)).toBe(true);
  });

  /** The reference: runs of files, each within the share of the served bytes unless it is one file. */
  function referenceRuns(sizes: readonly number[], servedBytes: number): number[][] {
    const runs: number[][] = [];
    let run: number[] = [];
    let bytes = 0;
    for (const size of sizes) {
      if (run.length > 0 && bytes + size > servedBytes / 3) {
        runs.push(run);
        run = [];
        bytes = 0;
      }
      run.push(size);
      bytes += size;
    }
    if (run.length > 0) runs.push(run);
    return runs;
  }

  /** The loader's walk over a re-push where every build changes its chain (the served bytes stay the same). */
  function walk(sizes: readonly number[], servedBytes: number): { runs: number[][]; lastFlags: boolean[] } {
    const runs: number[][] = [[]];
    const lastFlags: boolean[] = [];
    let batch: OpenBatch = EMPTY_BATCH;
    sizes.forEach((size, i) => {
      if (publishesFirst(batch, size, servedBytes, true)) {
        runs.push([]);
        batch = EMPTY_BATCH;
      }
      lastFlags.push(lastOfBatch(batch, size, sizes[i + 1], servedBytes));
      runs[runs.length - 1].push(size);
      batch = withBuilt(batch, size);
    });
    return { runs: runs.filter((r) => r.length > 0), lastFlags };
  }

  it("a re-push is served in the reference's runs, and each run's last file is the one flagged last (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 12 }), (unsorted) => {
        const sizes = [...unsorted].sort((a, b) => b - a);
        const servedBytes = sizes.reduce((a, b) => a + b, 0);
        const { runs, lastFlags } = walk(sizes, servedBytes);
        expect(runs).toEqual(referenceRuns(sizes, servedBytes));
        const lastOfRuns = runs.flatMap((run) => run.map((_, i) => i === run.length - 1));
        expect(lastFlags).toEqual(lastOfRuns);
      }),
    );
  });

  it("the large set's seven files re-pushed: three batches, Base alone first", () => {
    // File bytes of the large generated set (seed 7), largest first: Base, Ethereum, Unichain, HyperEVM, Monad, Scroll, Plasma.
    const sizes = [248_798_233, 192_046_770, 56_086_454, 48_300_851, 43_326_765, 37_107_135, 31_015_895];
    const { runs } = walk(
      sizes,
      sizes.reduce((a, b) => a + b, 0),
    );
    expect(runs.map((r) => r.length)).toEqual([1, 1, 5]);
  });

  /**
   * The loader's walk where each build adds `shares[i]` of its chain's memory, each file expected to add what the
   * batch's builds added at most (else all of it: `chainLast` unknown).
   */
  function walkAdding(sizes: readonly number[], shares: readonly number[], servedBytes: number): number[][] {
    const runs: number[][] = [[]];
    let batch: OpenBatch = EMPTY_BATCH;
    sizes.forEach((size, i) => {
      if (publishesFirst(batch, added(size, expectedShare(batch, undefined)), servedBytes, true)) {
        runs.push([]);
        batch = EMPTY_BATCH;
      }
      runs[runs.length - 1].push(size);
      batch = withBuilt(batch, size, shares[i]);
    });
    return runs.filter((r) => r.length > 0);
  }

  it("every file re-pushed with few records changed (each build adding a small share of its chain's memory): one batch", () => {
    const sizes = [248_798_233, 192_046_770, 56_086_454, 48_300_851, 43_326_765, 37_107_135, 31_015_895];
    const served = sizes.reduce((a, b) => a + b, 0);
    expect(
      walkAdding(
        sizes,
        sizes.map(() => 0.2),
        served,
      ).map((r) => r.length),
    ).toEqual([7]);
    // Every record changed (a full build adds all of it): the three batches above, the memory bound kept.
    expect(
      walkAdding(
        sizes,
        sizes.map(() => 1),
        served,
      ).map((r) => r.length),
    ).toEqual([1, 1, 5]);
    // A push that turns out to change more than its batch's first file: served as soon as the added memory passes.
    expect(walkAdding(sizes, [0.2, 1, 1, 1, 1, 1, 1], served).map((r) => r.length)).toEqual([2, 5]);
  });

  it("a file is expected to add what its batch's builds added at most, else its chain's last build, else all of it", () => {
    expect(expectedShare(EMPTY_BATCH, undefined)).toBe(1);
    expect(expectedShare(EMPTY_BATCH, 0.1)).toBe(0.1);
    const built = withBuilt(withBuilt(EMPTY_BATCH, 100, 0.1), 50, 0.3);
    expect(built).toEqual({ changed: true, pendingBytes: 10 + 15, share: 0.3 });
    expect(expectedShare(built, 0.05)).toBe(0.3);
    expect(added(100, 1.5)).toBe(100);
  });
});
