/**
 * Incremental builds (docs/decisions/013-incremental-builds.md) held against the full build, which is the
 * reference: after any random series of pushes (records edited, removed, added and reordered; tokens renamed
 * or repriced; protocols renamed, added and removed; files that fail validation; raw byte damage), the chain
 * task reading a file against the chain's last accepted file answers exactly what it answers reading the file in
 * full and diffing it (the previous file's digests withheld): the same compiled chain to the byte (served JSON,
 * CRCs, orders, pool-search and token-run columns, so the same cursors), the same change set, the same record
 * digests (so the same snapshot version and positions downstream), or the same rejection, reason and message.
 * Each file is also built in two ranges at every split point, as two build threads build it (compile-pool-range.ts).
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { writeFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SnapshotFile, SnapshotPool, SnapshotToken } from "../../../src/api/snapshot-format.js";
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../../../src/chains/chains.js";
import type { ChainTask, ChainTaskResult, PreviousChainTables } from "../../../src/snapshot/build-tasks.js";
import { arraySource } from "../../../src/snapshot/byte-source.js";
import { admissionBounds, checkAdmission } from "../../../src/snapshot/chain-admission.js";
import { buildChainFile, finishChainFile, type Compiled } from "../../../src/snapshot/chain-file-task.js";
import { mayReuse, openChainTop } from "../../../src/snapshot/chain-top.js";
import { MIN_POOLS_TO_SAMPLE } from "../../../src/snapshot/change-sample.js";
import { ChainCompiler, chainPoolTargets } from "../../../src/snapshot/compile-chain.js";
import { compilePoolRange, joinPoolRange } from "../../../src/snapshot/compile-pool-range.js";
import { DEFAULT_TOKEN_LOGO_TEMPLATE } from "../../../src/snapshot/normalize-token.js";
import { BLOCK_CLAIMED, frameTokens, type TokenMatch } from "../../../src/snapshot/reuse-tokens.js";
import { poolRange, PoolStream, splitPools } from "../../../src/snapshot/pool-stream.js";
import type { RecordDigests } from "../../../src/snapshot/record-digests.js";
import { isSnapshotError } from "../../../src/snapshot/snapshot-error.js";
import { ThreadNiceness } from "../../../src/snapshot/thread-niceness.js";
import type { CompiledChain } from "../../../src/tables/compiled-chain.js";
import { sharedArray } from "../../../src/tables/shared-columns.js";
import { MAX_BLOCKS, MAX_HELD_PER_LIVE } from "../../../src/snapshot/kept-pool-json.js";
import { applyByteEdits, byteEdits, comparable, comparableChain, type ByteEdit } from "../../support/byte-edits.js";
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
  tempDir,
  token,
  v2Pool,
  v3Pool,
  v4Pool,
  wrappedNativeToken,
} from "../../support/fixtures.js";
import { prng, type Prng } from "../../support/prng.js";

const CHAIN: ChainId = 8453;
const LOGO = DEFAULT_TOKEN_LOGO_TEMPLATE;
const NOW_S = 1_760_000_000;
const FILE = "chain-8453.msgpack";

/** The chain's last accepted file, as the loader keeps it. */
interface Accepted {
  readonly chain: CompiledChain;
  readonly digests: RecordDigests | null;
}

/** What the next build reads of it: with its digests (incremental) or without (a full build and a diff). */
function previousOf(accepted: Accepted | null, digests: boolean): PreviousChainTables | null {
  if (accepted === null) return null;
  const { pools, tokens, tokenRun, poolSearch, protocols } = accepted.chain;
  return { pools, tokens, tokenRun, poolSearch, protocols, digests: digests ? accepted.digests : null };
}

const quiet = () => new ThreadNiceness(() => undefined);
const bounds = (accepted: Accepted | null) => admissionBounds(NOW_S * 1000, 300, accepted?.chain.info.generatedAt ?? null, false);

/** The production chain task on one thread, the file written first. */
async function chainTask(
  dir: string,
  bytes: Uint8Array,
  accepted: Accepted | null,
  digests: boolean,
  logo = LOGO,
): Promise<ChainTaskResult> {
  const file = path.join(dir, FILE);
  writeFileSync(file, bytes);
  const task: ChainTask = {
    kind: "chain",
    nice: new Int32Array(new SharedArrayBuffer(4)),
    path: file,
    logoTemplate: logo,
    knownSha256: [],
    maxBytes: 1 << 30,
    bounds: bounds(accepted),
    previous: previousOf(accepted, digests),
    helper: null,
    early: null,
  };
  return buildChainFile(task, quiet());
}

/** What must be equal: the chain (but its build time and the file's mtime), the change set (but its time), the digests; or the rejection. */
function summary(result: ChainTaskResult | Compiled | { rejected: { reason: string; message: string } }): unknown {
  if ("rejected" in result) return result;
  if ("status" in result && result.status !== "accepted") {
    return result.status === "rejected" ? { rejected: { reason: result.reason, message: result.message } } : result;
  }
  const { chain, diff, digests } = result as Compiled;
  return {
    chain: comparableChain(chain, ["buildMs", "fileMtimeMs", "sha256", "file"]),
    diff: comparable({ ...diff, ms: 0 }),
    digests: comparable(digests),
  };
}

/**
 * How many blocks a chain's pool JSON lies in, each used by some pool, within the bounds kept-pool-json.ts sets:
 * at most MAX_BLOCKS, and their bytes at most MAX_HELD_PER_LIVE times the pools' (the blocks of a file's JSON).
 */
function heldPoolJson(chain: CompiledChain): number {
  const { blocks, blockOf, starts, ends } = chain.pools.json;
  const used = new Set<number>();
  let live = 0;
  for (let i = 0; i < chain.pools.count; i++) {
    used.add(blockOf[i]);
    live += ends[i] - starts[i];
    expect(ends[i]).toBeLessThanOrEqual(blocks[blockOf[i]].length);
  }
  expect(used.size).toBe(blocks.length);
  expect(blocks.length).toBeLessThanOrEqual(MAX_BLOCKS);
  if (blocks.length > 1) expect(blocks.reduce((sum, b) => sum + b.length, 0)).toBeLessThanOrEqual(MAX_HELD_PER_LIVE * live);
  return blocks.length;
}

/**
 * The token records of `header` framed for both threads in blocks of 1 to 3 records, as the other thread left them
 * (chosen by `own`): untouched, or blocks claimed (the counter past them), some not yet marked claimed and some
 * stalled in (marked claimed, their digests and rows garbage): the thread reading it then matches the first at once,
 * waits a while for the others, and matches them itself. (The helper's read then finds every block matched.)
 */
function sharedTokens(header: Uint8Array, own: number): TokenMatch | null {
  const match = frameTokens(header, 1 + (own % 3));
  if (match === null || own % 4 === 0) return match;
  const count = match.blocks.length - 1;
  const claimed = own % (count + 1);
  match.blocks[0] = claimed;
  for (let b = 0; b < claimed; b++) {
    if ((own >> b) % 2 === 0) continue; // claimed, not yet marked so: the reading thread matches it at once
    match.blocks[1 + b] = BLOCK_CLAIMED;
    for (let i = b * match.blockRecords; i < Math.min(match.from.length, (b + 1) * match.blockRecords); i++) {
      match.from[i] = i % 2 === 0 ? 0 : -7;
      match.digests.fill(0xab, i * 32, i * 32 + 32);
    }
  }
  return match;
}

/**
 * The file built in two ranges (pools [0, own) on the chain's thread, the rest by the helper's function, joined),
 * read against `accepted` as the chain's task reads it: what two build threads answer, sharing the token matching
 * (sharedTokens).
 */
function twoRanges(bytes: Uint8Array, accepted: Accepted | null, own: number): unknown {
  const source = arraySource(bytes);
  const layout = splitPools(source);
  if (layout === null || layout.poolCount < 2) return null;
  const count = layout.poolCount;
  const at = Math.min(count - 1, Math.max(1, own % count));
  const previous = previousOf(accepted, true);
  const targets = chainPoolTargets(count);
  const present = mayReuse(previous, LOGO) ? sharedArray(Uint8Array, previous.pools.count) : null;
  const tokens = present === null ? null : sharedTokens(layout.header, own);
  try {
    const top = openChainTop(layout.header, CHAIN, LOGO, previous, present, tokens);
    checkAdmission(top.snapshot.generatedAt, bounds(accepted));
    const pools = new PoolStream(source, layout, top.checker, { digests: targets.digests, reuse: top.reuse });
    const file = { file: FILE, fileBytes: bytes.length, sha256: "", fileMtimeMs: 0, logoTemplate: LOGO };
    const compiler = new ChainCompiler(top.snapshot, file, count, at, targets, top.prepared, top.reuse);
    for (let i = 0; i < at; i++) compiler.write(pools.next());
    compiler.compileTokens();
    const job = {
      chainId: CHAIN,
      logoTemplate: LOGO,
      header: layout.header,
      range: poolRange(layout, at, count),
      targets,
      previous,
      present,
      tokens,
    };
    const part = compilePoolRange(job, arraySource(bytes));
    joinPoolRange(compiler, top.checker, part);
    const read = { top, previous, layout, targets, logoTemplate: LOGO, helperPools: part.to - part.from };
    return summary(finishChainFile(compiler.finish(), compiler, read));
  } catch (error) {
    if (isSnapshotError(error)) return { rejected: { reason: error.reason, message: error.message } };
    throw error;
  }
}

// ------------------------------------------------------------------ random files and pushes

let serial = 0;
const fresh = () => addr((++serial).toString(16));
// Also symbols whose UTF-8 byte order is not their UTF-16 order (U+1D400 against U+FF21): the token run's merge compares bytes.
const SYMBOLS = ["USDC", "WETH", "Ünï", 'Q"uote', "AAA", "BBB", "a\ud800b", "USD₮0", "\u{1d400}", "\uff21"];

function randomToken(rng: Prng, address = fresh()): SnapshotToken {
  const symbol = rng.pick(SYMBOLS);
  const t = token(CHAIN, {
    address,
    symbol,
    name: `${symbol} ${rng.int(0, 3)}`,
    trackedUsdPrice: rng.int(0, 5) / 2,
    trackedTotalValuePooledUsd: rng.int(0, 4) * 1000,
  });
  // Some tokens leave the derived fields to the gateway (normalized text, the logo from the template).
  if (rng.chance(0.3)) delete (t as Partial<SnapshotToken>).logoUrl;
  if (rng.chance(0.3)) delete (t as Partial<SnapshotToken>).normalizedSymbol;
  return t;
}

function randomPool(rng: Prng, tokens: readonly SnapshotToken[], protocols: readonly string[], address?: string): SnapshotPool {
  const picked = new Set<string>();
  const size = rng.int(2, 3);
  while (picked.size < Math.min(size, tokens.length)) picked.add(rng.pick(tokens).address);
  const base = {
    protocolId: rng.pick(protocols),
    tokens: [...picked].map((a) => poolToken(a, rng.int(1, 9), rng.int(1, 9) * 10)),
    stats: poolStats(rng.int(1, 5)),
    totalValueLockedUsd: rng.int(0, 4) * 100,
  };
  switch (rng.int(0, 3)) {
    case 0:
      return v2Pool({ ...base, address: address ?? fresh() });
    case 1:
      return v3Pool({ ...base, address: address ?? fresh() });
    case 2:
      return v4Pool({ ...base, address: address ?? poolId((++serial).toString(16)) });
    default:
      return algebraPool({ ...base, address: address ?? fresh() });
  }
}

function randomFile(rng: Prng): SnapshotFile {
  const tokens = Array.from({ length: rng.int(3, 9) }, () => randomToken(rng));
  tokens.push(wrappedNativeToken(CHAIN));
  if (rng.chance(0.6)) tokens.push(nativeToken(CHAIN));
  const protocols = [protocol("proto-a"), protocol("proto-b"), protocol("proto-c")];
  const pools = Array.from({ length: rng.int(2, 24) }, () => randomPool(rng, tokens, ["proto-a", "proto-b", "proto-c"]));
  return chainFile(CHAIN, { tokens, pools, protocols, generatedAt: NOW_S - 100_000 });
}

const EDITS = [
  "pool-values",
  "pool-hidden-value",
  "pool-unknown-field",
  "pool-remove",
  "pool-add",
  "pool-reorder",
  "pool-duplicate",
  "pool-bad-structure",
  "pool-missing-token",
  "token-price",
  "token-rename",
  "token-decimals",
  "token-remove",
  "token-add",
  "token-reorder",
  "token-duplicate",
  "token-copy",
  "token-bad-structure",
  "token-logo",
  "protocol-rename",
  "protocol-remove",
  "protocol-add",
  "protocol-reorder",
] as const;
type Edit = (typeof EDITS)[number];

function shuffle<T>(rng: Prng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** `file` with one edit (a copy: records are copied before they change). */
function edit(file: SnapshotFile, kind: Edit, rng: Prng): SnapshotFile {
  const pools = file.pools.slice();
  const tokens = file.tokens.slice();
  const protocols = file.protocols.slice();
  const somePool = () => rng.int(0, pools.length - 1);
  const someToken = () => rng.int(0, tokens.length - 1);
  const ids = () => protocols.map((p) => p.id);
  switch (kind) {
    case "pool-values": {
      for (let k = rng.int(1, 3); k > 0 && pools.length > 0; k--) {
        const i = somePool();
        pools[i] = { ...pools[i]!, totalValueLockedUsd: rng.int(0, 9) * 50, stats: poolStats(rng.int(1, 9)) } as SnapshotPool;
      }
      break;
    }
    case "pool-hidden-value": {
      // Bytes change, the pool-details JSON does not (the tracked TVL is a sort key only).
      if (pools.length > 0) {
        const i = somePool();
        pools[i] = { ...pools[i]!, trackedTotalValueLockedUsd: rng.int(0, 9) * 10 } as SnapshotPool;
      }
      break;
    }
    case "pool-unknown-field":
      if (pools.length > 0) {
        const i = somePool();
        pools[i] = { ...pools[i]!, operatorNote: rng.int(0, 9) } as SnapshotPool;
      }
      break;
    case "pool-remove":
      for (let k = rng.int(1, 3); k > 0 && pools.length > 1; k--) pools.splice(somePool(), 1);
      break;
    case "pool-add":
      for (let k = rng.int(1, 3); k > 0; k--) pools.splice(rng.int(0, pools.length), 0, randomPool(rng, tokens, ids()));
      break;
    case "pool-reorder":
      shuffle(rng, pools);
      break;
    case "pool-duplicate":
      // A changed pool takes the address of another pool, unchanged, before or after it.
      if (pools.length > 1) {
        const i = somePool();
        const j = somePool();
        if (i !== j) pools[i] = { ...pools[i]!, address: pools[j]!.address, totalValueLockedUsd: 1 } as SnapshotPool;
      }
      break;
    case "pool-bad-structure":
      if (pools.length > 0) {
        const i = somePool();
        pools[i] = rng.chance(0.5)
          ? ({ ...pools[i]!, type: "V9" } as unknown as SnapshotPool)
          : ({ ...pools[i]!, feeTierPercentage: "x" } as unknown as SnapshotPool);
      }
      break;
    case "pool-missing-token":
      if (pools.length > 0) {
        const i = somePool();
        const p = pools[i]!;
        pools[i] = { ...p, tokens: [...p.tokens, poolToken(addr("dead"), 1, 1)] } as SnapshotPool;
      }
      break;
    case "token-price":
      for (let k = rng.int(1, 3); k > 0; k--) {
        const i = someToken();
        tokens[i] = { ...tokens[i]!, trackedUsdPrice: rng.int(0, 9) / 4, trackedTotalValuePooledUsd: rng.int(0, 9) * 100 };
      }
      break;
    case "token-rename": {
      const i = someToken();
      const symbol = rng.pick(SYMBOLS);
      tokens[i] = { ...tokens[i]!, symbol, name: `${symbol} ${rng.int(0, 3)}` };
      break;
    }
    case "token-decimals": {
      const i = someToken();
      tokens[i] = { ...tokens[i]!, decimals: rng.int(0, 24) };
      break;
    }
    case "token-remove":
      // Held by a pool or not: a removed token a pool still holds is the pool's reference problem.
      if (tokens.length > 1) tokens.splice(someToken(), 1);
      break;
    case "token-add":
      for (let k = rng.int(1, 2); k > 0; k--) tokens.splice(rng.int(0, tokens.length), 0, randomToken(rng));
      break;
    case "token-reorder":
      shuffle(rng, tokens);
      break;
    case "token-duplicate":
      if (tokens.length > 1) tokens.splice(rng.int(0, tokens.length), 0, randomToken(rng, rng.pick(tokens).address));
      break;
    case "token-copy":
      // The same record twice (unchanged bytes both times): a duplicate address between two unchanged tokens.
      if (tokens.length > 0) tokens.splice(rng.int(0, tokens.length), 0, tokens[someToken()]!);
      break;
    case "token-bad-structure": {
      const i = someToken();
      tokens[i] = { ...tokens[i]!, decimals: rng.chance(0.5) ? 300 : -1 };
      break;
    }
    case "token-logo": {
      const i = someToken();
      const t = { ...tokens[i]! };
      if (t.logoUrl === undefined) t.logoUrl = `https://logo.test/${rng.int(0, 9)}.png`;
      else delete (t as Partial<SnapshotToken>).logoUrl;
      tokens[i] = t;
      break;
    }
    case "protocol-rename": {
      const i = rng.int(0, protocols.length - 1);
      if (protocols.length > 0) protocols[i] = { ...protocols[i]!, name: `Renamed ${rng.int(0, 9)}` };
      break;
    }
    case "protocol-remove":
      if (protocols.length > 1) protocols.splice(rng.int(0, protocols.length - 1), 1);
      break;
    case "protocol-add":
      protocols.splice(rng.int(0, protocols.length), 0, protocol(rng.pick(["proto-0", "proto-b2", "proto-z"])));
      break;
    case "protocol-reorder":
      shuffle(rng, protocols);
      break;
  }
  return { ...file, pools, tokens, protocols };
}

/** One push: some edits, a later generatedAt, and sometimes raw byte damage. */
interface Push {
  readonly seed: number;
  readonly edits: readonly Edit[];
  readonly damage: readonly ByteEdit[] | null;
}

/** Edits that make a file fail validation (most of the time: a removed token may be held by no pool). */
const FAILING: readonly Edit[] = [
  "pool-duplicate",
  "pool-bad-structure",
  "pool-missing-token",
  "token-remove",
  "token-duplicate",
  "token-copy",
  "token-bad-structure",
  "protocol-remove",
];

const push: fc.Arbitrary<Push> = fc.record({
  seed: fc.integer(),
  edits: fc.array(
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...EDITS.filter((e) => !FAILING.includes(e))) },
      { weight: 1, arbitrary: fc.constantFrom(...FAILING) },
    ),
    { minLength: 0, maxLength: 4 },
  ),
  damage: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: byteEdits(4096) }),
});

function pushed(file: SnapshotFile, step: Push, index: number): { file: SnapshotFile; bytes: Uint8Array } {
  const rng = prng(step.seed);
  let next: SnapshotFile = { ...file, generatedAt: file.generatedAt + 10 + index };
  for (const kind of step.edits) next = edit(next, kind, rng);
  const packed = packSnapshot(next);
  return { file: next, bytes: step.damage === null ? packed : applyByteEdits(packed, step.damage) };
}

describe("an incremental build is the full build of the same file", () => {
  it("after any random series of pushes: accepted to the byte, rejected with the same first problem (property)", async () => {
    const dir = tempDir("lgw-incremental-");
    let reusedPools = 0;
    let reusedTokens = 0;
    let rejected = 0;
    let keptInPlace = 0;
    await fc.assert(
      // `sorted`: the previous file's pool orders withheld (RecordDigests.poolOrders null): the orders are sorted anew.
      fc.asyncProperty(
        fc.integer(),
        fc.array(push, { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.boolean(),
        async (seed, pushes, own, sorted) => {
          let file = randomFile(prng(seed));
          let accepted: Accepted | null = null;
          for (const [index, step] of [{ seed, edits: [], damage: null } satisfies Push, ...pushes].entries()) {
            const next = index === 0 ? { file, bytes: packSnapshot(file) } : pushed(file, step, index);
            const reference = await chainTask(dir, next.bytes, accepted, false);
            const incremental = await chainTask(dir, next.bytes, accepted, true);
            expect(summary(incremental)).toEqual(summary(reference));
            if (reference.status === "rejected")
              expect({ ...incremental, schedule: null, stages: null }).toEqual({ ...reference, schedule: null, stages: null });
            const split = twoRanges(next.bytes, accepted, own + index);
            if (split !== null) expect(split).toEqual(summary(reference));
            if (incremental.status === "accepted") {
              reusedPools += incremental.reused.pools;
              reusedTokens += incremental.reused.tokens;
              if (heldPoolJson(incremental.chain) > 1) keptInPlace++;
              const digests = sorted && incremental.digests !== null ? { ...incremental.digests, poolOrders: null } : incremental.digests;
              accepted = { chain: incremental.chain, digests };
              file = next.file;
            } else rejected++;
          }
        },
      ),
      { numRuns: 100 },
    );
    // The series exercise reuse and rejections both (a build that always read in full would pass the above).
    expect(reusedPools).toBeGreaterThan(1000);
    expect(reusedTokens).toBeGreaterThan(500);
    expect(rejected).toBeGreaterThan(50);
    // Pools kept their JSON in an earlier build's blocks, and the blocks were written into one again past their bounds.
    expect(keptInPlace).toBeGreaterThan(50);
  }, 120_000);
});

describe("what an incremental build reads", () => {
  const base = () => {
    const tokens = [
      nativeToken(CHAIN),
      wrappedNativeToken(CHAIN),
      token(CHAIN, { address: addr("a1"), symbol: "AAA" }),
      token(CHAIN, { address: addr("b2"), symbol: "BBB" }),
      token(CHAIN, { address: addr("c3"), symbol: "CCC" }),
    ];
    const wrapped = CHAINS[CHAIN].wrappedNative;
    const pools = Array.from({ length: 12 }, (_, i) =>
      v3Pool({
        address: addr(`f${i + 1}`),
        protocolId: i % 2 === 0 ? "p" : "q",
        tokens: [poolToken(i % 3 === 0 ? wrapped : addr("a1"), i + 1, 2), poolToken(i % 4 === 0 ? addr("c3") : addr("b2"), 3, 4)],
        stats: poolStats(i + 1),
      }),
    );
    return chainFile(CHAIN, { tokens, pools, protocols: [protocol("p"), protocol("q")], generatedAt: NOW_S - 1000 });
  };

  async function series(...files: SnapshotFile[]): Promise<ChainTaskResult[]> {
    const dir = tempDir("lgw-incremental-");
    let accepted: Accepted | null = null;
    const results: ChainTaskResult[] = [];
    for (const file of files) {
      const bytes = packSnapshot(file);
      const result = await chainTask(dir, bytes, accepted, true);
      expect(summary(result)).toEqual(summary(await chainTask(dir, bytes, accepted, false)));
      results.push(result);
      if (result.status === "accepted") accepted = { chain: result.chain, digests: result.digests };
    }
    return results;
  }

  const accepted = (r: ChainTaskResult) => {
    if (r.status !== "accepted") throw new Error(`not accepted: ${JSON.stringify(r)}`);
    return r;
  };

  it("decodes only the changed records: one pool's values changed, one token repriced", async () => {
    const first = base();
    const second = edit(edit({ ...first, generatedAt: first.generatedAt + 1 }, "pool-values", prng(1)), "token-price", prng(2));
    const [a, b] = await series(first, second);
    expect(accepted(a!).reused).toEqual({ pools: 0, tokens: 0 });
    const changedPools = second.pools.filter((p, i) => JSON.stringify(p) !== JSON.stringify(first.pools[i])).length;
    const changedTokens = second.tokens.filter((t, i) => JSON.stringify(t) !== JSON.stringify(first.tokens[i])).length;
    expect(changedPools).toBeGreaterThan(0);
    expect(changedTokens).toBeGreaterThan(0);
    expect(accepted(b!).reused).toEqual({ pools: 12 - changedPools, tokens: 5 - changedTokens });
  });

  it("re-encodes the pools that show a renamed token or protocol, and only those", async () => {
    const first = base();
    const renamed = {
      ...first,
      generatedAt: first.generatedAt + 1,
      tokens: first.tokens.map((t) => (t.address === addr("c3") ? { ...t, name: "Cee" } : t)),
    };
    const [, b] = await series(first, renamed);
    const holding = first.pools.filter((p) => p.tokens.some((t) => t.address === addr("c3"))).length;
    expect(accepted(b!).reused).toEqual({ pools: 12 - holding, tokens: 4 });
    expect(accepted(b!).diff.counts).toMatchObject({ poolsUpserted: holding, tokensUpserted: 1 });
    const protocolRenamed = { ...renamed, generatedAt: renamed.generatedAt + 1, protocols: [protocol("p"), protocol("q", { name: "Q2" })] };
    const [, , c] = await series(first, renamed, protocolRenamed);
    expect(accepted(c!).reused.pools).toBe(6);
  });

  it("a token removed that an unchanged pool holds: rejected at that pool, as a full read rejects it", async () => {
    const first = base();
    const removed = { ...first, generatedAt: first.generatedAt + 1, tokens: first.tokens.filter((t) => t.address !== addr("c3")) };
    const [, b] = await series(first, removed);
    expect(b).toMatchObject({
      status: "rejected",
      reason: "reference",
      message: expect.stringContaining("pools[0].tokens[1].address: not in tokens"),
    });
  });

  it("reads a file with most pools changed in full, answering the same (change-sample.ts)", async () => {
    // Just over MIN_POOLS_TO_SAMPLE pools; a share of them gets new stats in each push (every tenth pool, by
    // its position, `changed` out of ten, against the first file), so the evenly spread sample sees about that share changed.
    const count = MIN_POOLS_TO_SAMPLE + 100;
    const tokens = [
      nativeToken(CHAIN),
      wrappedNativeToken(CHAIN),
      token(CHAIN, { address: addr("a1"), symbol: "AAA" }),
      token(CHAIN, { address: addr("b2"), symbol: "BBB" }),
    ];
    const pools = (push: number, changed: number) =>
      Array.from({ length: count }, (_, i) =>
        v3Pool({
          address: addr((0x100000 + i).toString(16)),
          protocolId: "p",
          tokens: [poolToken(addr("a1"), 1, 2), poolToken(addr("b2"), 3, 4)],
          stats: poolStats(1 + (i % 10 < changed ? push : 0) + (i % 7)),
        }),
      );
    const file = (push: number, changed: number) =>
      chainFile(CHAIN, { tokens, pools: pools(push, changed), protocols: [protocol("p")], generatedAt: NOW_S - 1000 + push });
    // series() holds each build equal to the full build of the same file (the digests withheld).
    const pushed = async (changed: number) => accepted((await series(file(0, 0), file(1, changed)))[1]!);
    const [most, some, all] = [await pushed(8), await pushed(6), await pushed(10)];
    expect(most).toMatchObject({ incremental: false, reused: { pools: 0, tokens: 0 } });
    expect(most.diff.counts.poolsUpserted).toBeGreaterThan(count * 0.75);
    expect(some.incremental).toBe(true);
    expect(some.reused.pools).toBeGreaterThan(count * 0.35);
    expect(all).toMatchObject({ incremental: false, reused: { pools: 0, tokens: 0 } });
    expect(all.diff.counts.poolsUpserted).toBe(count);
  }, 60_000);

  it("merges the changed pools into the previous orders: removals, additions, keys tying with their neighbours", async () => {
    const first = base();
    // TVL in four values: every pool ties with others, broken by address.
    const one = { ...first, pools: first.pools.map((p, i) => ({ ...p, totalValueLockedUsd: (i % 4) * 100 }) as SnapshotPool) };
    const pools = one.pools.filter((_, i) => i !== 3).map((p, i) => (i === 5 ? ({ ...p, totalValueLockedUsd: 300 } as SnapshotPool) : p));
    const tokens = [poolToken(addr("a1"), 1, 1), poolToken(addr("b2"), 1, 1)];
    pools.splice(2, 0, v3Pool({ address: addr("f0"), protocolId: "p", tokens, stats: poolStats(3), totalValueLockedUsd: 100 }));
    pools.push(v3Pool({ address: addr("fa"), protocolId: "q", tokens, stats: poolStats(3), totalValueLockedUsd: 300 }));
    const two = { ...one, generatedAt: one.generatedAt + 1, pools };
    const [, b] = await series(one, two);
    // 12 pools, one removed, one changed (decoded), two added.
    expect(accepted(b!).reused.pools).toBe(10);
    const tvl = (p: SnapshotPool) => p.trackedTotalValueLockedUsd ?? p.totalValueLockedUsd;
    const reference = pools
      .map((_, i) => i)
      .sort((x, y) => tvl(pools[y]!) - tvl(pools[x]!) || (pools[x]!.address < pools[y]!.address ? -1 : 1));
    expect(Array.from(accepted(b!).digests!.poolOrders!.subarray(0, pools.length))).toEqual(reference);
  });

  it("another logo template: the file is read in full (its tokens' logos may come from it)", async () => {
    const dir = tempDir("lgw-incremental-");
    const first = base();
    const bytes = packSnapshot(first);
    const a = accepted(await chainTask(dir, bytes, null, true));
    const second = packSnapshot(edit({ ...first, generatedAt: first.generatedAt + 1 }, "pool-values", prng(3)));
    const other = accepted(await chainTask(dir, second, { chain: a.chain, digests: a.digests }, true, "https://other/{chainId}/{address}"));
    expect(other.reused).toEqual({ pools: 0, tokens: 0 });
    const same = accepted(await chainTask(dir, second, { chain: a.chain, digests: a.digests }, true));
    expect(same.reused.pools).toBeGreaterThan(0);
  });

  it("the same file's digests whether it was built in full or incrementally, and a hash of the record bytes", async () => {
    const first = base();
    const [a] = await series(first);
    const bytes = packSnapshot(first.pools[0]);
    const digest = createHash("sha256").update(bytes).digest();
    expect(Buffer.from(accepted(a!).digests!.pools.subarray(0, 32)).equals(digest)).toBe(true);
    expect(accepted(a!).digests!.tokens.length).toBe(32 * first.tokens.length);
    expect(NATIVE_ADDRESS).toBe(first.tokens[0]!.address);
  });
});
