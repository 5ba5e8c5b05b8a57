import { describe, expect, it } from "vitest";
import { admissionBounds, checkAdmission } from "../../../src/snapshot/chain-admission.js";
import { SnapshotError } from "../../../src/snapshot/snapshot-error.js";

const NOW_MS = 1_760_000_000_500;
const NOW = 1_760_000_000;

function rejection(generatedAt: number, bounds: ReturnType<typeof admissionBounds>): SnapshotError {
  try {
    checkAdmission(generatedAt, bounds);
  } catch (error) {
    if (error instanceof SnapshotError) return error;
    throw error;
  }
  throw new Error(`generatedAt ${generatedAt} was admitted`);
}

describe("admissionBounds", () => {
  it("allows the skew ahead of the clock (whole seconds) and nothing older than the served file", () => {
    expect(admissionBounds(NOW_MS, 300, 1_759_999_000, false)).toEqual({ maxGeneratedAt: NOW + 300, minGeneratedAt: 1_759_999_000 });
    expect(admissionBounds(NOW_MS, 0, null, false)).toEqual({ maxGeneratedAt: NOW, minGeneratedAt: null });
  });

  it("an allow-older marker lifts the lower bound only", () => {
    expect(admissionBounds(NOW_MS, 300, 1_759_999_000, true)).toEqual({ maxGeneratedAt: NOW + 300, minGeneratedAt: null });
  });
});

describe("checkAdmission", () => {
  const bounds = admissionBounds(NOW_MS, 300, NOW - 100, false);

  it("admits the served generatedAt, newer ones and the whole skew", () => {
    for (const g of [NOW - 100, NOW - 99, NOW, NOW + 299, NOW + 300]) expect(() => checkAdmission(g, bounds)).not.toThrow();
  });

  it("rejects a generatedAt beyond the skew as future-generated-at, naming the bound and the setting", () => {
    const error = rejection(NOW + 301, bounds);
    expect(error.reason).toBe("future-generated-at");
    expect(error.path).toBe("generatedAt");
    expect(error.message).toMatch(/^generatedAt: 1760000301 \(2025-10-09T08:58:21Z\) is more than the allowed clock skew ahead/);
    expect(error.message).toContain(`latest accepted now: ${NOW + 300}`);
    expect(error.message).toContain("SNAPSHOT_MAX_FUTURE_SKEW_SECONDS");
    // the year 2126: still a clear message
    expect(rejection(4_925_000_000, bounds).reason).toBe("future-generated-at");
    // beyond what a Date can hold
    expect(rejection(Number.MAX_SAFE_INTEGER, bounds).message).toContain("beyond the representable dates");
  });

  it("rejects an older generatedAt as out-of-order, telling how to go back on purpose", () => {
    const error = rejection(NOW - 101, bounds);
    expect(error.reason).toBe("out-of-order");
    expect(error.message).toBe(
      "generatedAt: 1759999899 is older than the snapshot being served (generatedAt 1759999900); to go back on purpose: liquidity-gateway snapshots allow-older <chainId>",
    );
  });

  it("with an allow-older marker, an older file is admitted but a future one still is not", () => {
    const allowing = admissionBounds(NOW_MS, 300, NOW - 100, true);
    expect(() => checkAdmission(1, allowing)).not.toThrow();
    expect(rejection(NOW + 301, allowing).reason).toBe("future-generated-at");
  });
});
