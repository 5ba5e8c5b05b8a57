/** Staging an object (hashed as it arrives, cut off past its size) and the local copy (atomic, verified at start). */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { LocalFiles, readLocalCopy, writeLocalCopy, writeState } from "../../../src/origin/local-copy.js";
import { removeStaleStaging, stageObject, StagingError, STAGING_PREFIX } from "../../../src/origin/staging.js";
import { fleetData, type FleetEntry } from "../../../src/origin/fleet-view.js";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

function chunks(data: Buffer, size: number, fail?: Error): Readable {
  async function* gen() {
    for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
    if (fail) throw fail;
  }
  return Readable.from(gen());
}

async function stagingError(body: Readable, target: { sha256: string; size: number }, dir: string): Promise<StagingError> {
  try {
    await stageObject(body, { livePath: path.join(dir, "chain-1.msgpack"), what: "chain 1", ...target }, () => {});
  } catch (error) {
    return error as StagingError;
  }
  throw new Error("staged");
}

describe("stageObject", () => {
  const data = Buffer.from("x".repeat(100_000) + "end");

  it("streams a body into a staging file beside the live path, hashing it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lgw-stage-"));
    let counted = 0;
    const staged = await stageObject(
      chunks(data, 4096),
      { livePath: path.join(dir, "chain-1.msgpack"), sha256: sha(data), size: data.length, what: "c" },
      (n) => (counted += n),
    );
    expect(path.basename(staged.path).startsWith(STAGING_PREFIX)).toBe(true);
    expect(readFileSync(staged.path).equals(data)).toBe(true);
    expect(counted).toBe(data.length);
  });

  it("refuses a wrong hash, a longer or shorter body and a cut-off one, leaving no staging file", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lgw-stage-"));
    const wrong = Buffer.from(data);
    wrong[5] = 0x79;
    expect((await stagingError(chunks(wrong, 1000), { sha256: sha(data), size: data.length }, dir)).code).toBe("object-hash-mismatch");
    expect((await stagingError(chunks(data, 1000), { sha256: sha(data), size: data.length - 1 }, dir)).code).toBe("object-too-large");
    expect((await stagingError(chunks(data.subarray(0, 50), 10), { sha256: sha(data), size: data.length }, dir)).code).toBe(
      "object-truncated",
    );
    expect(
      (await stagingError(chunks(data.subarray(0, 50), 10, new Error("aborted")), { sha256: sha(data), size: data.length }, dir)).code,
    ).toBe("body");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("removes staging files a crash left behind", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lgw-stage-"));
    writeFileSync(path.join(dir, `${STAGING_PREFIX}chain-1.msgpack-abc`), "x");
    writeFileSync(path.join(dir, "chain-1.msgpack"), "y");
    await removeStaleStaging(dir);
    expect(readdirSync(dir)).toEqual(["chain-1.msgpack"]);
  });
});

describe("the local copy", () => {
  it("saves and reads back the manifest, signature and state; refuses a manifest that does not match its state", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lgw-copy-"));
    expect(await readLocalCopy(dir)).toBeNull();
    const manifest = Buffer.from('{"m":1}');
    const state = {
      schema: 1 as const,
      generation: 4,
      manifestSha256: sha(manifest),
      etag: '"e"',
      lastModified: null,
      acceptedAt: new Date().toISOString(),
    };
    await writeLocalCopy(dir, { state, manifest, signature: Buffer.from("sig") });
    expect(await readLocalCopy(dir)).toEqual({ state, manifest, signature: Buffer.from("sig") });
    await writeState(dir, { ...state, etag: null });
    expect((await readLocalCopy(dir))?.state.etag).toBeNull();
    writeFileSync(path.join(dir, ".origin", "manifest.json"), '{"m":2}');
    await expect(readLocalCopy(dir)).rejects.toThrow(/does not match/);
    writeFileSync(path.join(dir, ".origin", "state.json"), '{"schema":1}');
    await expect(readLocalCopy(dir)).rejects.toThrow(/not a state/);
  });

  it("LocalFiles trusts a verified file only while it is unchanged", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lgw-copy-"));
    const file = path.join(dir, "chain-1.msgpack");
    writeFileSync(file, "abc");
    const files = new LocalFiles();
    expect(await files.verify(file, sha(Buffer.from("abd")))).toBe(false);
    expect(await files.verify(file, sha(Buffer.from("abc")))).toBe(true);
    expect(await files.holds(file, sha(Buffer.from("abc")))).toBe(true);
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(await files.holds(file, sha(Buffer.from("abc")))).toBe(false);
  });
});

describe("fleetData", () => {
  const entry = (instanceId: string, generation: number | null, position: string | null): FleetEntry => ({
    instanceId,
    generation,
    position,
    appliedAt: null,
    lastError: null,
    reportedAt: "2026-03-01T00:00:00.000Z",
  });
  it("lists instances by id, how far each is behind, the skew and whether positions agree", () => {
    const data = fleetData([entry("b", 7, "P2"), entry("a", 5, "P1"), entry("c", 7, "P2")]);
    expect(data.instances.map((i) => [i.instanceId, i.behind])).toEqual([
      ["a", 2],
      ["b", 0],
      ["c", 0],
    ]);
    expect(data).toMatchObject({ newestGeneration: 7, generationSkew: 2, samePosition: false });
    expect(fleetData([entry("a", 7, "P"), entry("b", 7, "P")])).toMatchObject({ generationSkew: 0, samePosition: true });
    expect(fleetData([])).toEqual({ newestGeneration: null, generationSkew: 0, samePosition: true, instances: [] });
  });
});
