/**
 * Resuming from a position (live.md §12, src/query/resume.ts) against the reference of
 * test/support/reference-changes.ts (full state maps per file). Random chain histories: pools and tokens
 * added, removed and changed, corrections with the same generatedAt, rollbacks (allow-older), retention by
 * count and by age, change sets batched into publications, and two instances that served different
 * subsequences of the same files. Whenever resume does not answer resync, applying the sets it returns to
 * the state the position names gives the instance's current state.
 *
 * The files model an indexer: every change writes a value never seen before, an address removed never
 * comes back and one added is never removed again (until a rollback, which starts a new era). That is the
 * world in which resuming by generatedAt (a superset of the changes) is exact; docs/decisions.md says why.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChainId } from "../../../src/chains/chains.js";
import { encodePosition, type Position } from "../../../src/query/positions.js";
import { resume, resumeChain } from "../../../src/query/resume.js";
import { ChangeHistoryKeeper } from "../../../src/serving/change-history.js";
import { ChangeSetDrafts } from "../../../src/snapshot/change-set-drafts.js";
import { changeSetId, historyByChain, type ChainDiff, type ChangeHistory, type ChangeSetRecord } from "../../../src/tables/change-sets.js";
import { encodeStringColumn } from "../../../src/tables/shared-columns.js";
import { prng, type Prng } from "../../support/prng.js";
import { applyChangeSets, listsOf, referenceDiff, sortedState, type ChainState } from "../../support/reference-changes.js";

interface ModelFile {
  readonly chainId: ChainId;
  /** Index in the chain's global sequence of files. */
  readonly index: number;
  readonly generatedAt: number;
  readonly sha256: string;
  readonly id: string;
  readonly state: ChainState;
}

const T0 = 1_700_000_000;

/** A chain's files, in push order. */
function timeline(rng: Prng, chainId: ChainId, length: number, rollbacks: boolean): ModelFile[] {
  let fresh = 0;
  const value = () => `v${fresh++}`;
  const files: ModelFile[] = [];
  const make = (generatedAt: number, pools: Map<string, string>, tokens: Map<string, string>): ModelFile => {
    const sha256 = createHash("sha256")
      .update(JSON.stringify([generatedAt, [...pools].sort(), [...tokens].sort()]))
      .digest("hex");
    return { chainId, index: files.length, generatedAt, sha256, id: changeSetId(generatedAt, sha256), state: { pools, tokens } };
  };
  const initial = (prefix: string) => new Map(Array.from({ length: rng.int(2, 6) }, (_, i) => [`${prefix}${i}`, value()] as const));
  let pools = initial("p");
  let tokens = initial("t");
  /** Addresses that may still be removed in this era (those present at its start, not removed yet). */
  let removable = new Set([...pools.keys(), ...tokens.keys()]);
  let generatedAt = T0;
  let added = 0;
  files.push(make(generatedAt, pools, tokens));
  while (files.length < length) {
    const earlier = files.filter((f) => f.generatedAt < generatedAt);
    if (rollbacks && earlier.length > 0 && rng.chance(0.15)) {
      // A rollback: an earlier file's data (its very bytes, or the same data dated a bit earlier still).
      const to = rng.pick(earlier);
      generatedAt = rng.chance(0.5) ? to.generatedAt : to.generatedAt - rng.int(1, 5);
      pools = new Map(to.state.pools);
      tokens = new Map(to.state.tokens);
      removable = new Set([...pools.keys(), ...tokens.keys()]);
      files.push(make(generatedAt, pools, tokens));
      continue;
    }
    const correction = rng.chance(0.2);
    if (!correction) generatedAt += rng.int(1, 50);
    const evolve = (map: Map<string, string>, prefix: string) => {
      const next = new Map<string, string>();
      for (const [address, v] of map) {
        if (removable.has(address) && rng.chance(0.12)) {
          removable.delete(address);
          continue;
        }
        next.set(address, rng.chance(0.3) ? value() : v);
      }
      for (let n = rng.int(0, 2); n > 0; n--) next.set(`${prefix}n${added++}`, value());
      return next;
    };
    const nextPools = evolve(pools, "p");
    const nextTokens = evolve(tokens, "t");
    // Some change always (a file with the same data and generatedAt would be the same file).
    if (nextPools.size > 0) {
      const [first] = nextPools.keys();
      if (correction || rng.chance(0.5)) nextPools.set(first!, value());
    } else nextPools.set(`pn${added++}`, value());
    pools = nextPools;
    tokens = nextTokens;
    files.push(make(generatedAt, pools, tokens));
  }
  return files;
}

interface Instance {
  /** The files it served, per chain, in order. */
  readonly served: Map<ChainId, ModelFile[]>;
  readonly history: ChangeHistory;
  readonly current: Map<ChainId, ModelFile>;
}

function diffOf(previous: ModelFile | null, next: ModelFile): ChainDiff {
  const lists = referenceDiff(previous?.state ?? null, next.state);
  return {
    poolsUpserted: encodeStringColumn(lists.poolsUpserted),
    poolsRemoved: encodeStringColumn(lists.poolsRemoved),
    tokensUpserted: encodeStringColumn(lists.tokensUpserted),
    tokensRemoved: encodeStringColumn(lists.tokensRemoved),
    counts: {
      poolsUpserted: lists.poolsUpserted.length,
      poolsRemoved: lists.poolsRemoved.length,
      tokensUpserted: lists.tokensUpserted.length,
      tokensRemoved: lists.tokensRemoved.length,
    },
    ms: 0,
  };
}

/**
 * An instance serving a subsequence of each chain's files, as the loader and the supervisor would: a file
 * with the bytes it serves makes no set, each other one is diffed against the file it served before, and
 * the sets go out in publications of one to three files, retained by count and age.
 */
function serve(rng: Prng, files: Map<ChainId, ModelFile[]>, retention: { count: number; maxAgeSeconds: number | null }): Instance {
  const keeper = new ChangeHistoryKeeper(retention);
  const drafts = new ChangeSetDrafts();
  const served = new Map<ChainId, ModelFile[]>();
  const current = new Map<ChainId, ModelFile>();
  const queues = new Map([...files].map(([chainId, list]) => [chainId, [...list]]));
  let now = Date.parse("2026-01-01T00:00:00Z");
  let message = keeper.publish([], 0, now);
  while ([...queues.values()].some((q) => q.length > 0)) {
    const batch = [];
    for (const [chainId, queue] of queues) {
      for (let n = rng.int(0, 2); n > 0 && queue.length > 0; n--) {
        const file = queue.shift()!;
        const previous = current.get(chainId) ?? null;
        if (previous?.id === file.id) continue; // the same bytes: "known", no set
        batch.push(drafts.draft({ ...file, blockNumber: null }, previous, diffOf(previous, file)));
        current.set(chainId, file);
        served.set(chainId, [...(served.get(chainId) ?? []), file]);
      }
    }
    if (batch.length === 0) continue;
    now += rng.int(1, 60) * 1000;
    message = keeper.publish(batch, rng.int(1, 2 ** 40), now);
  }
  return { served, current, history: historyByChain(message) };
}

/** A random subsequence of a chain's files (at least one): an instance that skipped some. */
function subsequence(rng: Prng, files: readonly ModelFile[]): ModelFile[] {
  const start = rng.int(0, files.length - 1);
  const kept = files.slice(start).filter((_, i) => i === 0 || rng.chance(0.6));
  return kept;
}

const CHAINS: ChainId[] = [1, 8453];

interface Tally {
  exact: number;
  superset: number;
  resync: number;
  ahead: number;
}

/** Checks every chain of a resume of `position` (whose entries name `files`) on `instance`. */
function checkResume(instance: Instance, position: Position, files: Map<ChainId, ModelFile | null>, tally: Tally): void {
  const result = resume(instance.history, position);
  expect(result.chains.map((c) => c.chainId)).toEqual([...instance.history.keys()].sort((a, b) => a - b));
  for (const [chainId, id] of position) if (!instance.history.has(chainId)) expect(result.position.get(chainId)).toBe(id);
  for (const { chainId, sets } of result.chains) {
    const current = instance.current.get(chainId)!;
    const from = files.get(chainId) ?? null;
    const retained = instance.history.get(chainId)!;
    const inHistory = from !== null && (retained.some((s) => s.id === from.id) || retained[0]!.previous === from.id);
    if (inHistory) expect(sets, "a position in the history never resyncs").not.toBeNull();
    if (from === null && retained[0]!.previous === null) expect(sets, "the history reaches the first load").not.toBeNull();
    if (sets === null) {
      tally.resync++;
      expect(result.position.get(chainId)).toBe(current.id);
      continue;
    }
    if (from !== null && from.index > current.index) {
      // A position ahead of this instance: nothing to apply, and the position keeps its entry.
      tally.ahead++;
      expect(sets).toEqual([]);
      expect(result.position.get(chainId)).toBe(from.id);
      continue;
    }
    if (inHistory) tally.exact++;
    else if (sets.length > 0) tally.superset++;
    const applied = applyChangeSets(from?.state ?? null, sets.map(listsOf), current.state);
    expect(sortedState(applied), `chain ${chainId} from ${from?.id ?? "nothing"}`).toEqual(sortedState(current.state));
    expect(result.position.get(chainId)).toBe(sets.length > 0 ? sets[sets.length - 1]!.id : from?.id);
  }
}

/** Random positions over the given files (per chain: one of them, or absent), plus a chain this history lacks. */
function positions(rng: Prng, candidates: Map<ChainId, ModelFile[]>, count: number): [Position, Map<ChainId, ModelFile | null>][] {
  const out: [Position, Map<ChainId, ModelFile | null>][] = [];
  for (let k = 0; k < count; k++) {
    const position = new Map<ChainId, string>();
    const files = new Map<ChainId, ModelFile | null>();
    for (const chainId of CHAINS) {
      const list = candidates.get(chainId) ?? [];
      const file = list.length > 0 && rng.chance(0.9) ? rng.pick(list) : null;
      files.set(chainId, file);
      if (file !== null) position.set(chainId, file.id);
    }
    if (rng.chance(0.3)) position.set(999, "1700000123.00000000abcd");
    expect(encodePosition(position).length).toBeGreaterThan(1);
    out.push([position, files]);
  }
  return out;
}

describe("resume against the reference", () => {
  it("one instance with rollbacks, corrections and retention: its own positions resume exactly or resync", () => {
    const tally: Tally = { exact: 0, superset: 0, resync: 0, ahead: 0 };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const rng = prng(seed);
        const files = new Map(CHAINS.map((c) => [c, timeline(rng, c, rng.int(1, 14), true)] as const));
        const retention = { count: rng.int(1, 8), maxAgeSeconds: rng.chance(0.3) ? rng.int(30, 300) : null };
        const instance = serve(rng, files, retention);
        for (const [position, named] of positions(rng, instance.served, 12)) checkResume(instance, position, named, tally);
      }),
      { numRuns: 300 },
    );
    expect(tally.exact).toBeGreaterThan(100);
    expect(tally.resync).toBeGreaterThan(10);
    expect(tally.superset).toBeGreaterThan(0);
  });

  it("two instances that served different files of the same pushes accept each other's positions", () => {
    const tally: Tally = { exact: 0, superset: 0, resync: 0, ahead: 0 };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const rng = prng(seed);
        const files = new Map(CHAINS.map((c) => [c, timeline(rng, c, rng.int(2, 14), false)] as const));
        const retention = () => ({ count: rng.int(1, 8), maxAgeSeconds: rng.chance(0.2) ? rng.int(30, 300) : null });
        const a = serve(rng, new Map([...files].map(([c, list]) => [c, subsequence(rng, list)])), retention());
        const b = serve(rng, new Map([...files].map(([c, list]) => [c, subsequence(rng, list)])), retention());
        const all = new Map(CHAINS.map((c) => [c, [...(a.served.get(c) ?? []), ...(b.served.get(c) ?? [])]] as const));
        for (const [position, named] of positions(rng, all, 16)) {
          checkResume(a, position, named, tally);
          checkResume(b, position, named, tally);
        }
      }),
      { numRuns: 300 },
    );
    // Positions of skipped files do move between the instances (not everything is resync).
    expect(tally.superset).toBeGreaterThan(50);
    expect(tally.exact).toBeGreaterThan(100);
    expect(tally.ahead).toBeGreaterThan(0);
    expect(tally.resync).toBeGreaterThan(0);
  });
});

describe("resume rules", () => {
  let seq = 0;
  const set = (id: string, previous: string | null, extra: Partial<ChangeSetRecord> = {}): ChangeSetRecord => {
    const empty = encodeStringColumn([]);
    return {
      chainId: 1,
      id,
      previous,
      generatedAt: Number(id.split(".")[0]),
      previousGeneratedAt: previous === null ? null : Number(previous.split(".")[0]),
      blockNumber: null,
      rollback: false,
      rollbackFloor: null,
      counts: { poolsUpserted: 0, poolsRemoved: 0, tokensUpserted: 0, tokensRemoved: 0 },
      poolsUpserted: empty,
      poolsRemoved: empty,
      tokensUpserted: empty,
      tokensRemoved: empty,
      servedAt: "2026-01-01T00:00:00.000Z",
      snapshotVersion: 1,
      publication: 1,
      seq: ++seq,
      ...extra,
    };
  };
  const A = "100.aaaaaaaaaaaa";
  const B = "200.bbbbbbbbbbbb";
  const C = "300.cccccccccccc";
  const D = "400.dddddddddddd";
  const ids = (sets: readonly ChangeSetRecord[] | null) => (sets === null ? null : sets.map((s) => s.id));

  it("a chain the position lacks: every set when the history reaches the first load, else resync", () => {
    expect(ids(resumeChain([set(A, null), set(B, A)], undefined))).toEqual([A, B]);
    expect(resumeChain([set(B, A), set(C, B)], undefined)).toBeNull();
  });

  it("an id in the history (its last occurrence), or the oldest set's previous: the sets after it", () => {
    expect(ids(resumeChain([set(B, A), set(C, B)], B))).toEqual([C]);
    expect(ids(resumeChain([set(B, A), set(C, B)], C))).toEqual([]);
    expect(ids(resumeChain([set(B, A), set(C, B)], A))).toEqual([B, C]);
    // A → B → A again (a rollback to the same bytes): the state at A is the same whichever A it was.
    expect(ids(resumeChain([set(A, null), set(B, A), set(A, B, { rollback: true }), set(C, A)], A))).toEqual([C]);
  });

  it("a position of a file not kept: by generatedAt, unless files diverged, rolled back, or the position is too old", () => {
    const history = [set(C, B), set(D, C)];
    expect(ids(resumeChain(history, "250.eeeeeeeeeeee"))).toEqual([C, D]);
    expect(ids(resumeChain(history, "350.eeeeeeeeeeee"))).toEqual([D]);
    expect(ids(resumeChain(history, "450.eeeeeeeeeeee"))).toEqual([]); // ahead of this instance
    expect(resumeChain(history, "150.eeeeeeeeeeee")).toBeNull(); // older than what the history knows
    expect(resumeChain(history, "300.eeeeeeeeeeee")).toBeNull(); // another file with C's generatedAt
    expect(resumeChain(history, "200.eeeeeeeeeeee")).toBeNull(); // another file with B's generatedAt
    expect(resumeChain([set(C, B), set("150.ffffffffffff", C, { rollback: true })], "250.eeeeeeeeeeee")).toBeNull();
    // A rollback no longer kept still guards the generatedAts it made ambiguous.
    expect(resumeChain([set(C, B, { rollbackFloor: 500 }), set(D, C, { rollbackFloor: 500 })], "350.eeeeeeeeeeee")).toBeNull();
    expect(ids(resumeChain([set(C, B, { rollbackFloor: 220 }), set(D, C, { rollbackFloor: 220 })], "250.eeeeeeeeeeee"))).toEqual([C, D]);
    // From a first load: the position must be after it.
    expect(ids(resumeChain([set(B, null), set(D, B)], "300.eeeeeeeeeeee"))).toEqual([D]);
    expect(resumeChain([set(B, null), set(D, B)], "150.eeeeeeeeeeee")).toBeNull();
  });
});
