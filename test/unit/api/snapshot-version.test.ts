import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../../../src/chains/chains.js";
import { snapshotContentKey, snapshotVersion, VERSION_HEX_DIGITS, versionHex } from "../../../src/api/snapshot-version.js";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("snapshot versions from content", () => {
  const chains = [
    { chainId: 8453 as ChainId, sha256: sha("base") },
    { chainId: 1 as ChainId, sha256: sha("eth") },
  ];

  it("the content key lists chain:sha256 by chain id, whatever the input order", () => {
    expect(snapshotContentKey(chains)).toBe(`1:${sha("eth")};8453:${sha("base")}`);
    expect(snapshotContentKey([...chains].reverse())).toBe(snapshotContentKey(chains));
  });

  it("the version is the first 6 bytes of the SHA-256 of the content key", () => {
    const expected = parseInt(sha(snapshotContentKey(chains)).slice(0, 12), 16);
    expect(snapshotVersion(chains)).toBe(expected);
    expect(versionHex(snapshotVersion(chains))).toBe(sha(snapshotContentKey(chains)).slice(0, 12));
  });

  it("any change of one file's bytes changes the version; the same contents give the same one", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...SUPPORTED_CHAIN_IDS_ASCENDING), { minLength: 1 }),
        fc.string(),
        fc.string(),
        (ids, a, b) => {
          const one = ids.map((chainId, i) => ({ chainId, sha256: sha(`${a}/${i}`) }));
          const same = one.map((c) => ({ ...c }));
          expect(snapshotVersion(same)).toBe(snapshotVersion(one));
          const other = one.map((c, i) => (i === 0 ? { ...c, sha256: sha(`${b}/x`) } : c));
          if (other[0]!.sha256 !== one[0]!.sha256) expect(snapshotVersion(other)).not.toBe(snapshotVersion(one));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("versions are 48-bit numbers written as 12 hex digits", () => {
    expect(VERSION_HEX_DIGITS).toBe(12);
    expect(versionHex(0)).toBe("000000000000");
    expect(versionHex(2 ** 48 - 1)).toBe("ffffffffffff");
    const v = snapshotVersion(chains);
    expect(Number.isSafeInteger(v) && v >= 0 && v < 2 ** 48).toBe(true);
    expect(versionHex(v)).toMatch(/^[0-9a-f]{12}$/);
  });
});
