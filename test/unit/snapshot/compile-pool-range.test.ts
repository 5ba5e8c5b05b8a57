/**
 * One chain built by two threads (src/snapshot/compile-pool-range.ts), run here in one thread in the order
 * the two threads meet: the chain's thread reads the top level and its pools, the helper's range is compiled
 * by the helper's function from the same bytes, and joined. Held against the one-thread build, which is the
 * reference: the same compiled chain to the byte for every split point, and for any file the same outcome,
 * a rejection with the same reason and message included (random files, random byte edits, and the cases
 * where the order of the two ranges decides which problem comes first).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SnapshotFile, SnapshotPool, SnapshotToken } from "../../../src/api/snapshot-format.js";
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../../../src/chains/chains.js";
import { arraySource } from "../../../src/snapshot/byte-source.js";
import { ChainCompiler, chainPoolTargets, compileChain } from "../../../src/snapshot/compile-chain.js";
import { compilePoolRange, joinPoolRange, ownPoolCount } from "../../../src/snapshot/compile-pool-range.js";
import { DEFAULT_TOKEN_LOGO_TEMPLATE } from "../../../src/snapshot/normalize-token.js";
import { poolRange, splitPools } from "../../../src/snapshot/pool-stream.js";
import { chainIdFromSnapshotFileName, openSnapshotBytes, openSplitSource } from "../../../src/snapshot/read-snapshot-file.js";
import { isSnapshotError } from "../../../src/snapshot/snapshot-error.js";
import type { CompiledChain } from "../../../src/tables/compiled-chain.js";
import {
  addr,
  algebraPool,
  chainFile,
  nativeToken,
  packSnapshot,
  poolId,
  poolStats,
  poolToken,
  protocol,
  token,
  v2Pool,
  v3Pool,
  v4Pool,
  wrappedNativeToken,
} from "../../support/fixtures.js";
import { prng, type Prng } from "../../support/prng.js";
import { applyByteEdits, byteEdits, comparable } from "../../support/byte-edits.js";

const CHAIN: ChainId = 8453;

function sourceOf(bytes: Uint8Array) {
  return {
    file: "chain.msgpack",
    fileBytes: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    fileMtimeMs: 0,
    logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
  };
}

type Outcome = { chain: unknown } | { rejected: { reason: string; message: string } };

function outcome(build: () => CompiledChain): Outcome {
  try {
    return { chain: comparable(build(), ["buildMs"]) };
  } catch (error) {
    if (isSnapshotError(error)) return { rejected: { reason: error.reason, message: error.message } };
    throw error; // anything else escaping is a bug
  }
}

/** The reference: one thread, every pool in order. */
function oneThread(bytes: Uint8Array, chainId: ChainId = CHAIN): Outcome {
  return outcome(() => {
    const { snapshot, pools } = openSnapshotBytes(bytes, chainId);
    return compileChain(snapshot, sourceOf(bytes), pools);
  });
}

/**
 * Two ranges, as the build worker runs them: pools [0, own) here, [own, n) by the helper's function; `own`
 * defaults to ownPoolCount. A file that does not split (or has under two pools) builds on one thread.
 */
function twoRanges(bytes: Uint8Array, chainId: ChainId = CHAIN, ownOf?: (n: number) => number, posted = false): Outcome {
  const source = arraySource(bytes);
  const layout = bytes.length === 0 ? null : splitPools(source);
  if (layout === null || layout.poolCount < 2) return oneThread(bytes, chainId);
  const count = layout.poolCount;
  const own = ownOf ? Math.min(count - 1, Math.max(1, ownOf(count))) : ownPoolCount(layout);
  const targets = chainPoolTargets(count);
  return outcome(() => {
    const opened = openSplitSource(source, layout, chainId, DEFAULT_TOKEN_LOGO_TEMPLATE);
    const compiler = new ChainCompiler(opened.snapshot, sourceOf(bytes), count, own, targets);
    for (let i = 0; i < own; i++) compiler.write(opened.pools.next());
    compiler.compileTokens();
    const job = {
      chainId,
      logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
      header: layout.header,
      range: poolRange(layout, own, count),
      targets,
    };
    const part = compilePoolRange(job, arraySource(bytes));
    // Posted from the helper's thread, the part's views are of another object over the same shared memory.
    joinPoolRange(compiler, opened.split!.checker, posted ? structuredClone(part) : part);
    return compiler.finish();
  });
}

let serial = 0;
const freshAddress = () => addr((++serial).toString(16));

function randomTokens(rng: Prng): SnapshotToken[] {
  const tokens = Array.from({ length: rng.int(2, 10) }, () => {
    const symbol = rng.pick(["USDC", "WETH", "Ünï", 'Q"uote', "AAA"]);
    return token(CHAIN, { address: freshAddress(), symbol, name: `${symbol} ${rng.int(0, 3)}`, trackedUsdPrice: rng.int(0, 5) / 2 });
  });
  if (rng.chance(0.5)) tokens.push(wrappedNativeToken(CHAIN));
  if (rng.chance(0.5)) tokens.push(nativeToken(CHAIN));
  return tokens;
}

function randomPool(rng: Prng, tokens: readonly SnapshotToken[]): SnapshotPool {
  const picked = new Set<string>();
  const size = rng.int(2, 4);
  while (picked.size < Math.min(size, tokens.length)) picked.add(rng.pick(tokens).address);
  const base = {
    protocolId: rng.pick(["proto-a", "proto-b", "proto-c"]),
    tokens: [...picked].map((a) => poolToken(a, rng.int(1, 9), rng.int(1, 9) * 10)),
    stats: poolStats(rng.int(1, 5)),
    totalValueLockedUsd: rng.int(0, 4) * 100,
  };
  switch (rng.int(0, 3)) {
    case 0:
      return v2Pool({ ...base, address: freshAddress() });
    case 1:
      return v3Pool({ ...base, address: freshAddress() });
    case 2:
      return v4Pool({ ...base, address: poolId((++serial).toString(16)) });
    default:
      return algebraPool({ ...base, address: freshAddress() });
  }
}

function randomFile(rng: Prng, pools = rng.int(2, 40)): SnapshotFile {
  const tokens = randomTokens(rng);
  return chainFile(CHAIN, {
    tokens,
    pools: Array.from({ length: pools }, () => randomPool(rng, tokens)),
    protocols: [protocol("proto-a"), protocol("proto-b"), protocol("proto-c")],
  });
}

describe("a chain built in two ranges is the chain built by one thread", () => {
  it("every split point of random files (property)", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 60 }), (seed, at) => {
        const bytes = packSnapshot(randomFile(prng(seed)));
        const reference = oneThread(bytes);
        expect("chain" in reference).toBe(true);
        expect(twoRanges(bytes, CHAIN, (n) => at % n)).toEqual(reference);
        expect(twoRanges(bytes)).toEqual(reference);
      }),
      { numRuns: 150 },
    );
  });

  it("the helper's part as posted from its thread (a clone over the same shared memory), joined in place (property)", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 60 }), (seed, at) => {
        const bytes = packSnapshot(randomFile(prng(seed)));
        expect(twoRanges(bytes, CHAIN, (n) => at % n, true)).toEqual(oneThread(bytes));
      }),
      { numRuns: 100 },
    );
    // In place: the chain's pool JSON is the targets' buffer, never a new blob the two ranges were copied into.
    const bytes = packSnapshot(randomFile(prng(11), 40));
    const source = arraySource(bytes);
    const layout = splitPools(source)!;
    const targets = chainPoolTargets(layout.poolCount);
    const opened = openSplitSource(source, layout, CHAIN, DEFAULT_TOKEN_LOGO_TEMPLATE);
    const own = ownPoolCount(layout);
    const compiler = new ChainCompiler(opened.snapshot, sourceOf(bytes), layout.poolCount, own, targets);
    for (let i = 0; i < own; i++) compiler.write(opened.pools.next());
    const job = {
      chainId: CHAIN,
      logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
      header: layout.header,
      range: poolRange(layout, own, layout.poolCount),
      targets,
    };
    const part = structuredClone(compilePoolRange(job, arraySource(bytes)));
    expect(part.json.bytes.buffer).not.toBe(targets.json);
    joinPoolRange(compiler, opened.split!.checker, part);
    const chain = compiler.finish();
    expect(chain.pools.json.blocks).toHaveLength(1);
    expect(chain.pools.json.blocks[0].buffer).toBe(targets.json);
  });

  it("the bundled sample files, split where the build worker splits them and at both ends", () => {
    const dir = "snapshots";
    const files = readdirSync(dir).filter((f) => /^chain-\d+\.msgpack$/.test(f) && f !== "chain-999.msgpack");
    expect(files.length).toBeGreaterThan(3);
    for (const name of files) {
      const bytes = readFileSync(path.join(dir, name));
      const chainId = chainIdFromSnapshotFileName(name);
      const reference = oneThread(bytes, chainId);
      expect("chain" in reference, name).toBe(true);
      for (const own of [undefined, () => 1, (n: number) => n - 1]) expect(twoRanges(bytes, chainId, own), name).toEqual(reference);
    }
  });
});

describe("a file the two ranges reject is rejected as one thread rejects it: the first problem in file order", () => {
  const rng = prng(7);
  const base = randomFile(rng, 12);
  const at = (i: number) => (n: number) => (n > i ? i : n - 1);

  function withPools(change: (pools: SnapshotPool[]) => void): Uint8Array {
    const pools = base.pools.map((p) => ({ ...p }));
    change(pools);
    return packSnapshot({ ...base, pools });
  }

  it("a helper's pool that repeats an address of the chain thread's range", () => {
    const bytes = withPools((pools) => (pools[9] = { ...pools[9], address: pools[2].address }));
    const reference = oneThread(bytes);
    expect(reference).toEqual({
      rejected: { reason: "duplicate", message: expect.stringContaining("pools[9].address: duplicate of pools[2]") },
    });
    expect(twoRanges(bytes, CHAIN, at(6))).toEqual(reference);
  });

  it("a repeat across the ranges before the helper's own problem comes first; after it, the helper's problem does", () => {
    const before = withPools((pools) => {
      pools[8] = { ...pools[8], address: pools[1].address };
      pools[10] = { ...pools[10], protocolId: "nowhere" };
    });
    expect(oneThread(before)).toMatchObject({ rejected: { reason: "duplicate" } });
    expect(twoRanges(before, CHAIN, at(6))).toEqual(oneThread(before));
    const after = withPools((pools) => {
      pools[10] = { ...pools[10], address: pools[1].address };
      pools[8] = { ...pools[8], protocolId: "nowhere" };
    });
    expect(oneThread(after)).toMatchObject({ rejected: { reason: "reference", message: expect.stringContaining("pools[8].protocolId") } });
    expect(twoRanges(after, CHAIN, at(6))).toEqual(oneThread(after));
  });

  it("a repeat inside the helper's range, and a problem in each range (the chain thread's comes first)", () => {
    const inside = withPools((pools) => (pools[11] = { ...pools[11], address: pools[7].address }));
    expect(twoRanges(inside, CHAIN, at(6))).toEqual(oneThread(inside));
    expect(oneThread(inside)).toMatchObject({ rejected: { message: expect.stringContaining("pools[11].address: duplicate of pools[7]") } });
    const both = withPools((pools) => {
      pools[3] = { ...pools[3], tokens: [poolToken(addr("dead"), 1, 1), ...pools[3].tokens] };
      (pools[9] as { type: string }).type = "V9";
    });
    expect(oneThread(both)).toMatchObject({ rejected: { reason: "reference", message: expect.stringContaining("pools[3].tokens[0]") } });
    expect(twoRanges(both, CHAIN, at(6))).toEqual(oneThread(both));
  });

  it("random byte changes, cuts and insertions of a valid file, split anywhere (property)", () => {
    const valid = packSnapshot(randomFile(prng(11), 8));
    fc.assert(
      fc.property(byteEdits(valid.length), fc.integer({ min: 1, max: 8 }), (edits, own) => {
        const bytes = applyByteEdits(valid, edits);
        expect(twoRanges(bytes, CHAIN, () => own)).toEqual(oneThread(bytes));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("ownPoolCount: where the chain's thread hands over", () => {
  const layout = (header: number, sizes: number[]) => {
    const poolEnds = new Float64Array(sizes.length);
    let end = 100;
    sizes.forEach((s, i) => (poolEnds[i] = end += s));
    return { header: new Uint8Array(header), poolsAt: 100, poolCount: sizes.length, poolEnds };
  };

  it("splits the pools' bytes in half when the top level is small, whatever the pools' sizes", () => {
    expect(ownPoolCount(layout(0, [10, 10, 10, 10]))).toBe(2);
    expect(ownPoolCount(layout(0, [70, 10, 10, 10]))).toBe(1);
    expect(ownPoolCount(layout(0, [10, 10, 10, 70]))).toBe(3);
  });

  it("keeps fewer pools for the chain's thread as the top level (its token work) grows, one pool each at least", () => {
    const sizes = Array.from({ length: 100 }, () => 1000);
    const counts = [0, 20_000, 60_000, 200_000].map((h) => ownPoolCount(layout(h, sizes)));
    expect(counts[0]).toBe(50);
    for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeLessThan(counts[i - 1]);
    expect(counts[3]).toBe(1);
    expect(ownPoolCount(layout(0, [5, 5]))).toBe(1);
    expect(ownPoolCount(layout(10 ** 9, [5, 5, 5]))).toBe(1);
  });
});

describe("the chain's data is the same whatever the wrapped native token and the pool types", () => {
  it("a chain whose pools hold the wrapped native token in several places", () => {
    const tokens = [nativeToken(CHAIN), wrappedNativeToken(CHAIN), token(CHAIN, { address: addr("a1"), symbol: "A" })];
    const wrapped = CHAINS[CHAIN].wrappedNative;
    const pools = Array.from({ length: 9 }, (_, i) =>
      v3Pool({
        address: addr(`c${i + 1}`),
        protocolId: "p",
        tokens: [poolToken(wrapped, i + 1, 2), poolToken(i % 2 ? NATIVE_ADDRESS : addr("a1"), 3, 4)],
        stats: poolStats(i + 1),
      }),
    );
    const bytes = packSnapshot(chainFile(CHAIN, { tokens, pools, protocols: [protocol("p")] }));
    for (let own = 1; own < 9; own++) expect(twoRanges(bytes, CHAIN, () => own)).toEqual(oneThread(bytes));
  });
});
