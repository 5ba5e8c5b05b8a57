/**
 * What a chain task's result records for its file (src/snapshot/build-outcome.ts), which decides when a scan
 * builds the file again (file-attempts.ts).
 */
import { describe, expect, it } from "vitest";
import type { ChainTaskResult } from "../../../src/snapshot/build-tasks.js";
import { attemptOutcome, BUILD_FAILED, outsideContent, type OutcomeContext } from "../../../src/snapshot/build-outcome.js";
import type { CompiledChain } from "../../../src/tables/compiled-chain.js";
import type { ChainDiff } from "../../../src/tables/change-sets.js";

const SHA_A = "a".repeat(64);
const SHA_B = "b".repeat(64);
const fresh: OutcomeContext = { servedSha256: null, previous: undefined, maxFutureSkewSeconds: 300 };
const rejected = (
  reason: "structure" | "io" | "not-a-file" | "future-generated-at",
  generatedAt: number | null = null,
): ChainTaskResult => ({
  status: "rejected",
  reason,
  message: "m",
  sha256: SHA_B,
  generatedAt,
});

describe("attemptOutcome", () => {
  it("an accepted file is served with its content", () => {
    const chain = { info: { sha256: SHA_A } } as CompiledChain;
    const result: ChainTaskResult = { status: "accepted", chain, diff: {} as ChainDiff, helperPools: 0 };
    expect(attemptOutcome(result, fresh)).toEqual({ kind: "served", sha256: SHA_A });
  });

  it("the served bytes again are served; bytes rejected before keep their rejection", () => {
    const known: ChainTaskResult = { status: "known", sha256: SHA_A };
    const before = { kind: "rejected", reason: "structure", message: "m", sha256: SHA_A, retryAtMs: null } as const;
    expect(attemptOutcome(known, { ...fresh, servedSha256: SHA_A, previous: before })).toEqual({ kind: "served", sha256: SHA_A });
    expect(attemptOutcome(known, { ...fresh, servedSha256: SHA_B, previous: before })).toBe(before);
    expect(attemptOutcome(known, { ...fresh, servedSha256: SHA_B })).toEqual({ kind: "served", sha256: SHA_A });
  });

  it("a rejection for the content is recorded with its bytes; one outside it (I/O, not a file) is a failure", () => {
    expect(attemptOutcome(rejected("structure"), fresh)).toEqual({
      kind: "rejected",
      reason: "structure",
      message: "m",
      sha256: SHA_B,
      retryAtMs: null,
    });
    expect(attemptOutcome(rejected("io"), fresh)).toBe(BUILD_FAILED);
    expect(attemptOutcome(rejected("not-a-file"), fresh)).toBe(BUILD_FAILED);
    expect(outsideContent("io") && outsideContent("not-a-file") && !outsideContent("decode")).toBe(true);
  });

  it("a future generatedAt is retried once the clock allows it (less the skew)", () => {
    expect(attemptOutcome(rejected("future-generated-at", 2_000_000_000), fresh)).toEqual({
      kind: "rejected",
      reason: "future-generated-at",
      message: "m",
      sha256: SHA_B,
      retryAtMs: (2_000_000_000 - 300) * 1000,
    });
    expect(attemptOutcome(rejected("future-generated-at"), fresh)).toMatchObject({ retryAtMs: null });
  });
});
