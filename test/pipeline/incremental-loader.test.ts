/**
 * Incremental builds through the loader and the real build workers (one thread, and two threads on one chain):
 * the sample generator's series files pushed one after another (tools/samplegen/series.ts), each served as the
 * full build of its file serves it, with the change set against the file before, and most records reused; a
 * rejected file after an accepted one (the next file is read against the last accepted one); a rollback with
 * allow-older; and each build's wait and niceness reported.
 */
import { createHash } from "node:crypto";
import { pack } from "msgpackr";
import { afterEach, describe, expect, it } from "vitest";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import type { ChainId } from "../../src/chains/chains.js";
import { writeAllowOlderMarker } from "../../src/snapshot/allow-older-marker.js";
import { compileChain } from "../../src/snapshot/compile-chain.js";
import { diffChain } from "../../src/snapshot/diff-chain.js";
import { openSnapshotBytes } from "../../src/snapshot/read-snapshot-file.js";
import { isSnapshotError } from "../../src/snapshot/snapshot-error.js";
import type { CompiledChain } from "../../src/tables/compiled-chain.js";
import { buildChainSnapshot } from "../../tools/samplegen/chain-snapshot.js";
import { scaleProfile } from "../../tools/samplegen/scale.js";
import { ChainSeries } from "../../tools/samplegen/series.js";
import { buildSharedCatalog } from "../../tools/samplegen/tail-tokens.js";
import { reservedSymbols } from "../../tools/samplegen/token-factory.js";
import { comparableChain } from "../support/byte-edits.js";
import { addr } from "../support/fixtures.js";
import { harness, LOADER_LOGO_TEMPLATE, stopHarnesses, type Harness } from "../support/loader-harness.js";
import { listsOf } from "../support/reference-changes.js";

afterEach(stopHarnesses);

const CHAIN: ChainId = 8453;
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The chain's sample file and `steps` successive files of its series (each step's churn). */
function series(seed: number, churns: readonly number[]): SnapshotFile[] {
  const scale = scaleProfile("small");
  const reserved = reservedSymbols();
  const base = buildChainSnapshot({
    chainId: CHAIN,
    seed,
    scale,
    sharedCatalog: buildSharedCatalog(seed, scale, reserved),
    reservedSymbols: reserved,
  });
  const next = new ChainSeries(base, seed, { everySeconds: 300, churn: 0.05 });
  return [base, ...churns.map((c) => next.next(c))];
}

/** The reference: the file compiled in full, in this thread. */
function fullBuild(bytes: Uint8Array): CompiledChain {
  const { snapshot, pools } = openSnapshotBytes(bytes, CHAIN, LOADER_LOGO_TEMPLATE);
  const source = {
    file: `chain-${CHAIN}.msgpack`,
    fileBytes: bytes.length,
    sha256: sha(bytes),
    fileMtimeMs: 0,
    logoTemplate: LOADER_LOGO_TEMPLATE,
  };
  return compileChain(snapshot, source, pools);
}

/** The full build's rejection of a bad file. */
function fullRejection(bytes: Uint8Array): { reason: string; message: string } {
  try {
    fullBuild(bytes);
  } catch (error) {
    if (isSnapshotError(error)) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error("the file was accepted");
}

const plain = (chain: CompiledChain) => comparableChain(chain, ["buildMs", "fileMtimeMs"]);

/** The chain as served last, and its change set in the last publication. */
function served(h: Harness) {
  const last = h.built[h.built.length - 1]!;
  const chain = last.chains.find((c) => c.info.chainId === CHAIN)!;
  const set = last.changes.filter((c) => c.chainId === CHAIN).at(-1)!;
  return { chain, set };
}

async function pushAndScan(h: Harness, file: SnapshotFile): Promise<Uint8Array> {
  const bytes = pack(file);
  h.clock = (file.generatedAt + 60) * 1000;
  h.pushBytes(CHAIN, bytes);
  await h.loader.scan("change");
  return bytes;
}

describe("series files through the loader's build workers", () => {
  for (const [mode, options] of [
    ["one thread", { startBuilds: 1, servingLoad: () => 0 }],
    ["two threads on the chain", { startBuilds: 2, splitFromBytes: 0, servingLoad: () => 0 }],
  ] as const) {
    it(`${mode}: each served as its full build, its change set against the file before, unchanged records reused`, async () => {
      const h = harness(options);
      const files = series(11, [0.05, 0.2, 0, 1]);
      let before: CompiledChain | null = null;
      for (const [k, file] of files.entries()) {
        const bytes = await pushAndScan(h, file);
        const reference = fullBuild(bytes);
        const { chain, set } = served(h);
        expect(plain(chain), `file ${k}`).toEqual(plain(reference));
        expect(listsOf(set), `file ${k}`).toEqual(listsOf(diffChain(before, reference)));
        before = reference;
      }
      const accepted = h.events("snapshot-accepted");
      expect(accepted).toHaveLength(files.length);
      const reused = accepted.map((e) => [e.reusedPools, e.reusedTokens] as [number, number]);
      expect(reused[0]).toEqual([0, 0]);
      const pools = files.map((f) => f.pools.length);
      // 5 %, 20 % and none changed: most pools reused; every one changed: none.
      expect(reused[1]![0]).toBeGreaterThan(pools[1]! * 0.85);
      expect(reused[2]![0]).toBeGreaterThan(pools[2]! * 0.6);
      expect(reused[3]![0]).toBe(pools[3]);
      expect(reused[4]![0]).toBeLessThan(pools[4]! * 0.05);
      if (mode !== "one thread") expect(accepted.some((e) => (e.helperPools as number) > 0)).toBe(true);
      // Each build's wait and niceness: logged and handed to the metrics (idle: niceness 0).
      expect(h.waited).toHaveLength(files.length);
      for (const e of accepted)
        expect(e).toMatchObject({ waitedMs: expect.any(Number), queuedMs: expect.any(Number), nice: 0, niceEnd: 0 });
      expect(h.waited.every((w) => w.niceness === 0 && w.seconds >= 0)).toBe(true);
    });
  }

  it("a rejected file after an accepted one: the full build's first problem; the next file is read against the last accepted", async () => {
    const h = harness({ startBuilds: 2, splitFromBytes: 0, servingLoad: () => 0 });
    const [base, first, second] = series(12, [0.05, 0.05]);
    await pushAndScan(h, base!);
    const firstBytes = await pushAndScan(h, first!);
    // A changed pool of the second file holds a token no record has, another pool keeps its bytes.
    const pools = second!.pools.slice();
    const at = Math.floor(pools.length / 2);
    pools[at] = { ...pools[at]!, tokens: [{ ...pools[at]!.tokens[0]!, address: addr("dead") }, ...pools[at]!.tokens.slice(1)] };
    const broken = { ...second!, pools };
    const brokenBytes = await pushAndScan(h, broken);
    expect(h.events("snapshot-rejected").map((e) => ({ reason: e.reason, message: e.error }))).toEqual([fullRejection(brokenBytes)]);
    expect(served(h).chain.info.sha256).toBe(sha(firstBytes));
    const secondBytes = await pushAndScan(h, { ...second!, generatedAt: second!.generatedAt + 1 });
    const { chain, set } = served(h);
    expect(plain(chain)).toEqual(plain(fullBuild(secondBytes)));
    expect(listsOf(set)).toEqual(listsOf(diffChain(fullBuild(firstBytes), fullBuild(secondBytes))));
    expect(h.events("snapshot-accepted").at(-1)!.reusedPools as number).toBeGreaterThan(second!.pools.length * 0.85);
  });

  it("a rollback with allow-older: the older file read against the newer, served as its full build, a rollback change set", async () => {
    // Busy serving threads (no load meter): builds run at BUILD_WORKER_NICE (10) when pushed, and say so.
    const h = harness({ startBuilds: 1 });
    const [base, first, second] = series(13, [0.05, 0.2]);
    await pushAndScan(h, base!);
    const firstBytes = await pushAndScan(h, first!);
    const secondBytes = await pushAndScan(h, second!);
    writeAllowOlderMarker(h.dir, CHAIN);
    h.pushBytes(CHAIN, firstBytes);
    await h.loader.scan("change");
    const { chain, set } = served(h);
    expect(plain(chain)).toEqual(plain(fullBuild(firstBytes)));
    expect(set.rollback).toBe(true);
    expect(listsOf(set)).toEqual(listsOf(diffChain(fullBuild(secondBytes), fullBuild(firstBytes))));
    expect(h.events("snapshot-accepted").at(-1)!.reusedPools as number).toBeGreaterThan(first!.pools.length * 0.6);
    const waits = h.events("snapshot-accepted").slice(1);
    expect(waits.every((e) => (e.nice as number) > 5 && (e.nice as number) <= 10)).toBe(true);
    expect(h.waited.slice(1).every((w) => w.niceness > 5)).toBe(true);
  });
});
