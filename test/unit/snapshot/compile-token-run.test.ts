/**
 * A chain's token run built against its earlier run (src/snapshot/compile-token-run.ts, PreviousRun): the rows
 * that repeat an earlier row are copied and keep their earlier place in the address and rank orders, the changed
 * rows are sorted among themselves and merged in. Held against the run built from scratch over the same columns,
 * for random series of token lists (tokens added, removed, changed and reordered; symbols, TVLs and names that
 * tie; symbols whose UTF-8 byte order is not their UTF-16 order): the same run, column for column.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SnapshotToken } from "../../../src/api/snapshot-format.js";
import type { ChainId } from "../../../src/chains/chains.js";
import { compileTokenRun } from "../../../src/snapshot/compile-token-run.js";
import { fillTokenDefaults } from "../../../src/snapshot/normalize-token.js";
import { TokenColumnsBuilder } from "../../../src/snapshot/token-columns.js";
import type { TokenRunData } from "../../../src/tables/compiled-chain.js";
import { addr, token } from "../../support/fixtures.js";
import { comparable } from "../../support/byte-edits.js";

const CHAIN: ChainId = 8453;
/**
 * Symbols that tie, differ in case, and sort differently by UTF-8 bytes and by UTF-16 code units: U+FF21 (three
 * bytes, EF lead) sorts after U+1D400 by bytes but before it by code units (a surrogate pair, D835 DC00).
 */
const SYMBOLS = ["USDC", "usdc", "WETH", "A", "É", "\u{1d400}", "\uff21", "\u{1d400}B", "\uff21B", "\ue000", "a\ud800b", ""];
const NAMES = ["USD Coin", "usd coin", "Wrapped Ether", "", "\u{1d400} token", "\uff21 token"];
const TVLS = [0, -0, 1, 1, 2.5, 1e9];

interface Row {
  readonly tag: number;
  readonly symbol: string;
  readonly name: string;
  readonly tvl: number;
}

const rowArb: fc.Arbitrary<Row> = fc.record({
  tag: fc.integer({ min: 1, max: 60 }),
  symbol: fc.constantFrom(...SYMBOLS),
  name: fc.constantFrom(...NAMES),
  tvl: fc.constantFrom(...TVLS),
});
const listArb = fc.uniqueArray(rowArb, { selector: (t) => t.tag, minLength: 0, maxLength: 30 });

/** One push: rows changed (a new symbol, name or TVL), removed, added, and the list shuffled. */
const pushArb = fc.record({
  change: fc.array(fc.tuple(fc.nat(), rowArb), { maxLength: 6 }),
  remove: fc.array(fc.nat(), { maxLength: 4 }),
  add: listArb,
  order: fc.array(fc.nat(), { maxLength: 30 }),
});

function snapshotToken(row: Row): SnapshotToken {
  return token(CHAIN, {
    address: addr(row.tag.toString(16)),
    symbol: row.symbol,
    name: row.name,
    trackedTotalValuePooledUsd: row.tvl,
  });
}

function columnsOf(rows: readonly Row[]) {
  return TokenColumnsBuilder.of(rows.map((r) => fillTokenDefaults(snapshotToken(r), CHAIN)));
}

/** The next list: `rows` with the push applied (a changed row is a new object; an unchanged one the same). */
function pushed(rows: readonly Row[], push: fc.RecordValue<typeof pushArb>): Row[] {
  const next = rows.slice();
  for (const [at, value] of push.change) if (next.length > 0) next[at % next.length] = { ...value, tag: next[at % next.length]!.tag };
  for (const at of push.remove) if (next.length > 0) next.splice(at % next.length, 1);
  const tags = new Set(next.map((r) => r.tag));
  for (const row of push.add) if (!tags.has(row.tag)) next.push(row);
  for (let i = next.length - 1; i > 0 && push.order.length > 0; i--) {
    const j = push.order[i % push.order.length]! % (i + 1);
    [next[i], next[j]] = [next[j]!, next[i]!];
  }
  return next;
}

/** Per row of `next`: the row of `earlier` it is (the same object, so the same values in every column), or -1. */
function rowFrom(earlier: readonly Row[], next: readonly Row[]): Int32Array {
  const at = new Map(earlier.map((r, i) => [r, i]));
  return Int32Array.from(next, (r) => at.get(r) ?? -1);
}

const runOf = (run: TokenRunData) => comparable(run);

describe("a token run built against the earlier run", () => {
  it("is the run built from scratch after any series of pushes: added, removed, changed, reordered, tied (property)", () => {
    let repeated = 0;
    let changed = 0;
    fc.assert(
      fc.property(listArb, fc.array(pushArb, { minLength: 1, maxLength: 4 }), (first, pushes) => {
        let rows: Row[] = first;
        let run = compileTokenRun(CHAIN, columnsOf(rows));
        for (const push of pushes) {
          const next = pushed(rows, push);
          const columns = columnsOf(next);
          const from = rowFrom(rows, next);
          const incremental = compileTokenRun(CHAIN, columns, { run, rowFrom: from });
          expect(runOf(incremental)).toEqual(runOf(compileTokenRun(CHAIN, columns)));
          for (const f of from)
            if (f >= 0) repeated++;
            else changed++;
          rows = next;
          run = incremental;
        }
      }),
      { numRuns: 300 },
    );
    // The series mix rows copied and rows merged in (a run that always sorted afresh would pass the above).
    expect(repeated).toBeGreaterThan(2000);
    expect(changed).toBeGreaterThan(1000);
  });

  it("orders symbols by UTF-16 code units, as a sort of their strings does, where UTF-8 bytes order them otherwise", () => {
    const rows: Row[] = [
      { tag: 1, symbol: "\uff21", name: "x", tvl: 1 },
      { tag: 2, symbol: "\u{1d400}", name: "y", tvl: 1 },
    ];
    const run = compileTokenRun(CHAIN, columnsOf(rows));
    // A third token, merged in: its place among the repeated two is found from the columns' bytes.
    const next = [...rows, { tag: 3, symbol: "\ufb00", name: "z", tvl: 5 }];
    const incremental = compileTokenRun(CHAIN, columnsOf(next), { run, rowFrom: Int32Array.of(0, 1, -1) });
    // "\u{1d400}" (D835 DC00) < "\ufb00" < "\uff21" by code units.
    expect([...incremental.rank]).toEqual([1, 2, 0]);
    expect(runOf(incremental)).toEqual(runOf(compileTokenRun(CHAIN, columnsOf(next))));
  });
});
