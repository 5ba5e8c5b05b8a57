/**
 * The change history the supervisor keeps (src/serving/change-history.ts: stamping, retention by count and
 * age) and the pages of GET /v1/changes over it (src/query/changes-walk.ts): walking every page with any
 * limit yields exactly the resumed sets' entries in the documented order, the position is the same on every
 * page, the last page has no next; a set trimmed before the walk reaches it puts its chain in `resync`.
 */
import { describe, expect, it } from "vitest";
import type { ChainId } from "../../../src/chains/chains.js";
import { changesPage, entryOf, type ChangeEntryRef, type ChangesWalk } from "../../../src/query/changes-walk.js";
import type { Position } from "../../../src/query/positions.js";
import { resume } from "../../../src/query/resume.js";
import { ChangeHistoryKeeper, listBytes } from "../../../src/serving/change-history.js";
import { ServedChanges } from "../../../src/serving/served-changes.js";
import { historyByChain, type ChangeHistory, type ChangeSetDraft } from "../../../src/tables/change-sets.js";
import { encodeStringColumn } from "../../../src/tables/shared-columns.js";
import { prng, type Prng } from "../../support/prng.js";

let fileSerial = 0;
/** A draft of chain `chainId` following `previous` (a first load when null), with random sorted lists. */
function draft(rng: Prng, chainId: ChainId, previous: ChangeSetDraft | null, extra: Partial<ChangeSetDraft> = {}): ChangeSetDraft {
  const list = (prefix: string) =>
    [...new Set(Array.from({ length: rng.int(0, 5) }, () => `0x${prefix}${rng.int(0, 999).toString().padStart(38, "0")}`))].sort();
  const lists = [list("aa"), list("bb"), list("cc"), list("dd")];
  const generatedAt = (previous?.generatedAt ?? 1_700_000_000) + rng.int(1, 100);
  const id = `${generatedAt}.${(++fileSerial).toString(16).padStart(12, "0")}`;
  return {
    chainId,
    id,
    previous: previous?.id ?? null,
    generatedAt,
    previousGeneratedAt: previous?.generatedAt ?? null,
    blockNumber: null,
    rollback: false,
    rollbackFloor: null,
    counts: {
      poolsUpserted: lists[0]!.length,
      poolsRemoved: lists[1]!.length,
      tokensUpserted: lists[2]!.length,
      tokensRemoved: lists[3]!.length,
    },
    poolsUpserted: encodeStringColumn(lists[0]!),
    poolsRemoved: encodeStringColumn(lists[1]!),
    tokensUpserted: encodeStringColumn(lists[2]!),
    tokensRemoved: encodeStringColumn(lists[3]!),
    ...extra,
  };
}

/** Publishes `count` sets per chain, one chain's set per publication, in turn. */
function build(rng: Prng, keeper: ChangeHistoryKeeper, chains: ChainId[], count: number, last = new Map<ChainId, ChangeSetDraft>()) {
  let history: ChangeHistory = new Map();
  for (let k = 0; k < count; k++) {
    for (const chainId of chains) {
      const d = draft(rng, chainId, last.get(chainId) ?? null);
      last.set(chainId, d);
      history = historyByChain(keeper.publish([d], 1, Date.parse("2026-01-01T00:00:00Z") + k * 1000));
    }
  }
  return { history, last };
}

/** Every entry of the resumed sets, in the documented order. */
function expectedEntries(history: ChangeHistory, since: Position, scope: ChainId[]): ChangeEntryRef[] {
  const inScope = new Map([...history].filter(([c]) => scope.includes(c)));
  const out: ChangeEntryRef[] = [];
  for (const { sets } of resume(inScope, since).chains) {
    for (const set of sets ?? []) {
      const c = set.counts;
      for (let i = 0; i < c.poolsUpserted + c.poolsRemoved + c.tokensUpserted + c.tokensRemoved; i++) out.push(entryOf(set, i));
    }
  }
  return out;
}

const key = (e: ChangeEntryRef) => `${e.set.chainId}|${e.set.id}|${e.kind}|${e.change}|${e.address}`;

describe("the change history", () => {
  it("stamps sets, keeps at most `count` per chain and drops old ones by age, never a chain's latest", () => {
    const rng = prng(1);
    const keeper = new ChangeHistoryKeeper({ count: 3, maxAgeSeconds: 10 });
    const t0 = Date.parse("2026-01-01T00:00:00Z");
    const a1 = draft(rng, 1, null);
    const b1 = draft(rng, 8453, null);
    let message = keeper.publish([b1, a1], 0xabc, t0);
    expect(message.publication).toBe(1);
    expect(message.sets.map((s) => [s.chainId, s.id, s.seq, s.publication, s.servedAt, s.snapshotVersion])).toEqual([
      [1, a1.id, 1, 1, "2026-01-01T00:00:00.000Z", 0xabc],
      [8453, b1.id, 2, 1, "2026-01-01T00:00:00.000Z", 0xabc],
    ]);
    let previous = a1;
    for (let k = 1; k <= 4; k++) {
      const next = draft(rng, 1, previous);
      message = keeper.publish([next], 1, t0 + k * 1000);
      previous = next;
    }
    const history = historyByChain(message);
    expect(history.get(1)!.map((s) => s.publication)).toEqual([3, 4, 5]); // count 3
    // 20 s later: only each chain's latest set is young enough, and a chain's latest always stays.
    message = keeper.publish([], 1, t0 + 25_000);
    expect(
      historyByChain(message)
        .get(1)!
        .map((s) => s.id),
    ).toEqual([previous.id]);
    expect(
      historyByChain(message)
        .get(8453)!
        .map((s) => s.id),
    ).toEqual([b1.id]);
  });

  it("keeps the lists within maxBytes: the oldest sets of any chain go first, never a chain's latest", () => {
    const rng = prng(3);
    const t0 = Date.parse("2026-01-01T00:00:00Z");
    const drafts: ChangeSetDraft[] = [];
    const last = new Map<ChainId, ChangeSetDraft>();
    for (let k = 0; k < 12; k++) {
      const chainId: ChainId = k % 3 === 0 ? 8453 : 1;
      const d = draft(rng, chainId, last.get(chainId) ?? null);
      last.set(chainId, d);
      drafts.push(d);
    }
    // A budget that holds about half of the lists.
    const maxBytes = Math.floor(drafts.reduce((n, d) => n + listBytes(d), 0) / 2);
    const keeper = new ChangeHistoryKeeper({ count: 64, maxAgeSeconds: null, maxBytes });
    let message = keeper.publish([], 1, t0);
    drafts.forEach((d, k) => (message = keeper.publish([d], 1, t0 + k)));
    const kept = message.sets;
    expect(keeper.bytes).toBeLessThanOrEqual(maxBytes);
    expect(keeper.bytes).toBe(kept.reduce((n, s) => n + listBytes(s), 0));
    // What was dropped is exactly the oldest sets (by publication order), and each chain's latest stays.
    const keptIds = new Set(kept.map((s) => s.id));
    const order = drafts.map((d) => d.id);
    const firstKept = order.findIndex((id) => keptIds.has(id));
    for (const [i, id] of order.entries()) {
      const latest = last.get(drafts[i]!.chainId)!.id === id;
      expect(keptIds.has(id), id).toBe(latest || i >= firstKept);
    }
    // A budget smaller than any set keeps only each chain's latest.
    const tiny = new ChangeHistoryKeeper({ count: 64, maxAgeSeconds: null, maxBytes: 1 });
    drafts.forEach((d, k) => (message = tiny.publish([d], 1, t0 + k)));
    expect(message.sets.map((s) => s.id).sort()).toEqual([last.get(1)!.id, last.get(8453)!.id].sort());
  });

  it("the served changes: position, the position before, and the sets a publication introduced with the position after each", () => {
    const rng = prng(2);
    const keeper = new ChangeHistoryKeeper();
    const a1 = draft(rng, 1, null);
    const b1 = draft(rng, 8453, null);
    keeper.publish([a1, b1], 1, 0);
    const a2 = draft(rng, 1, a1);
    const a3 = draft(rng, 1, a2);
    const c1 = draft(rng, 130, null);
    const served = new ServedChanges(keeper.publish([c1, a2, a3], 2, 1000));
    expect(served.position).toEqual(
      new Map([
        [1, a3.id],
        [130, c1.id],
        [8453, b1.id],
      ]),
    );
    expect(served.basePosition).toEqual(
      new Map([
        [1, a1.id],
        [8453, b1.id],
      ]),
    );
    expect(served.introduced.map((i) => i.set.id)).toEqual([a2.id, a3.id, c1.id]);
    expect(served.introduced.map((i) => [...i.position].sort((x, y) => x[0] - y[0]))).toEqual([
      [
        [1, a2.id],
        [8453, b1.id],
      ],
      [
        [1, a3.id],
        [8453, b1.id],
      ],
      [
        [1, a3.id],
        [130, c1.id],
        [8453, b1.id],
      ],
    ]);
    expect(served.introduced[2]!.positionText).toBe(served.positionText);
    expect(new ServedChanges(null).positionText).toBeNull();
  });
});

describe("pages of the changes", () => {
  it("every page with any limit: exactly the resumed entries, in order, the same position, null next at the end", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rng = prng(seed);
      const keeper = new ChangeHistoryKeeper({ count: 6, maxAgeSeconds: null });
      const chains: ChainId[] = [1, 130, 8453];
      const { history } = build(rng, keeper, chains, rng.int(1, 9));
      // Positions: nothing seen, or some chains at some set.
      const since = new Map<ChainId, string>();
      for (const chainId of chains) {
        const sets = history.get(chainId)!;
        if (rng.chance(0.7)) since.set(chainId, rng.chance(0.2) ? "1600000000.000000000000" : rng.pick(sets).id);
      }
      const scope = chains.filter(() => rng.chance(0.8));
      const expected = expectedEntries(history, since, scope);
      const limit = rng.int(1, 12);
      const walked: ChangeEntryRef[] = [];
      let from: ChangesWalk | null = null;
      let firstPosition: Position | null = null;
      let resync: ChainId[] | null = null;
      for (let page = 0; page < 1000; page++) {
        const result = changesPage(history, since, scope, limit, from);
        firstPosition ??= result.until;
        resync ??= [...result.resync];
        if (page > 0) expect(result.resync).toEqual([]);
        expect(result.until).toEqual(firstPosition);
        expect(result.entries.length).toBeLessThanOrEqual(limit);
        walked.push(...result.entries);
        if (result.next === null) break;
        expect(result.entries.length).toBe(limit);
        from = result.next;
      }
      expect(walked.map(key)).toEqual(expected.map(key));
      const inScope = new Map([...history].filter(([c]) => scope.includes(c)));
      const resumed = resume(inScope, since);
      expect(firstPosition).toEqual(resumed.position);
      expect(resync).toEqual(resumed.chains.filter((c) => c.sets === null).map((c) => c.chainId));
    }
  });

  it("sets served after the first page are not part of the walk; a set trimmed before the walk reaches it puts its chain in resync", () => {
    const rng = prng(99);
    const keeper = new ChangeHistoryKeeper({ count: 4, maxAgeSeconds: null });
    const { history, last } = build(rng, keeper, [1, 8453], 3);
    const since: Position = new Map();
    const all = expectedEntries(history, since, [1, 8453]);
    const chain1 = all.filter((e) => e.set.chainId === 1).length;
    expect(chain1).toBeGreaterThan(2);
    const first = changesPage(history, since, [1, 8453], 2, null);
    expect(first.next).not.toBeNull();
    // Three more sets per chain: chain 1's first sets are trimmed (count 4), chain 8453's too.
    const later = build(rng, keeper, [1, 8453], 3, last).history;
    const second = changesPage(later, since, [1, 8453], 1000, first.next);
    expect(second.resync).toEqual([1, 8453]);
    expect(second.entries).toEqual([]);
    expect(second.next).toBeNull();
    expect(second.until).toEqual(first.until);

    // Without trimming, later sets stay out of the walk.
    const keeper2 = new ChangeHistoryKeeper({ count: 100, maxAgeSeconds: null });
    const h2 = build(rng, keeper2, [1], 2);
    const walkFirst = changesPage(h2.history, since, [1], 1, null);
    const grown = build(rng, keeper2, [1], 2, h2.last).history;
    const rest: ChangeEntryRef[] = [...walkFirst.entries];
    let from = walkFirst.next;
    while (from !== null) {
      const page = changesPage(grown, since, [1], 3, from);
      expect(page.resync).toEqual([]);
      rest.push(...page.entries);
      from = page.next;
    }
    expect(rest.map(key)).toEqual(expectedEntries(h2.history, since, [1]).map(key));
  });
});
