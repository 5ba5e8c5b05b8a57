/**
 * A batch's token index started early (src/snapshot/early-index.ts): used only for exactly the contents it
 * was started for, once; a failed early build is no index (the loader then builds one as usual).
 */
import { describe, expect, it } from "vitest";
import { snapshotContentKey } from "../../../src/api/snapshot-version.js";
import type { EarlyTokens } from "../../../src/snapshot/build-tasks.js";
import { EarlyIndex } from "../../../src/snapshot/early-index.js";
import type { KeptTokenIndex } from "../../../src/snapshot/compile-token-index.js";

const inputs = (sha: string): EarlyTokens[] => [{ chainId: 1, sha256: sha.repeat(64), tokens: null!, run: null! }];
const index = (n: number) => ({ reusedChains: n }) as KeptTokenIndex;

describe("EarlyIndex", () => {
  it("hands the index to the batch with the same contents, once", async () => {
    const built: EarlyTokens[][] = [];
    const early = new EarlyIndex(async (i) => (built.push([...i]), index(7)));
    early.start(inputs("a"));
    expect(built).toEqual([inputs("a")]);
    expect(await early.take(snapshotContentKey(inputs("a")))).toEqual(index(7));
    expect(await early.take(snapshotContentKey(inputs("a")))).toBeNull();
  });

  it("other contents, a dropped start or a failed build give none", async () => {
    const early = new EarlyIndex(async () => index(1));
    early.start(inputs("a"));
    expect(await early.take(snapshotContentKey(inputs("b")))).toBeNull();
    early.start(inputs("a"));
    early.drop();
    expect(await early.take(snapshotContentKey(inputs("a")))).toBeNull();
    const failing = new EarlyIndex(() => Promise.reject(new Error("worker died")));
    failing.start(inputs("a"));
    expect(await failing.take(snapshotContentKey(inputs("a")))).toBeNull();
  });
});
