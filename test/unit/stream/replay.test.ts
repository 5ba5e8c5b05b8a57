/**
 * Replay (src/stream/replay.ts) as the pure function it is, over real
 * snapshots of the live chains: a connection that saw one publication and
 * resumes at a later one gets, chain by chain, the `changes` events the
 * fan-out sent meanwhile (the same bytes but for the position, which runs
 * chain after chain from the one it gave), ending at the latest position; one current event per held record that changed; `resync` and
 * every held record of a chain its position cannot be resumed on; nothing for
 * chains it does not hold; the same answer twice.
 */
import { describe, expect, it } from "vitest";
import { parsePosition, type Position } from "../../../src/query/positions.js";
import { FanOut, type FanOutSink } from "../../../src/stream/fan-out.js";
import { replayEvents } from "../../../src/stream/replay.js";
import { TopicRegistry } from "../../../src/stream/topic-registry.js";
import { LP, LT } from "../../support/live-fixture.js";
import { factsOf, liveSeries, swapped, topic } from "../../support/stream-series.js";

const MAX_ADDRESSES = 1000;
const SERIES = liveSeries(5);
const LATEST = swapped(SERIES[4]);
const CHANGES = [topic("changes:1"), topic("changes:8453")];

function positionOf(k: number): Position {
  return parsePosition(SERIES[k].changes.positionText!);
}

/** The `changes` events the fan-out published live for publications from+1..to, to a holder of CHANGES. */
function liveChanges(from: number, to: number): string[] {
  const registry = new TopicRegistry<string>();
  for (const t of CHANGES) registry.add(t, "live");
  const out: string[] = [];
  const sink: FanOutSink<string> = { publish() {}, write: (_channel, bytes) => out.push(bytes.toString().split("\ndata: ")[1].trimEnd()) };
  const fanOut = new FanOut(registry, sink, MAX_ADDRESSES, () => {});
  for (let k = from + 1; k <= to; k++) for (const _ of fanOut.steps(swapped(SERIES[k])));
  return out;
}

/** An event's JSON but its position (replay's positions run chain after chain; the fan-out's are each publication's). */
function withoutPosition(json: string): string {
  return json.replace(/"position":"[^"]*",/, "");
}

describe("replay", () => {
  it("from any publication seen: chain by chain, the changes events the fan-out sent live since; then at the latest position", () => {
    for (let k = 0; k < 4; k++) {
      const replayed = replayEvents(LATEST, CHANGES, positionOf(k), MAX_ADDRESSES);
      expect(replayed.every((e) => e.type === "changes")).toBe(true);
      const live = liveChanges(k, 4);
      const chainOf = (json: string) => factsOf(json).chainId;
      const ascending = [1, 8453].flatMap((c) => live.filter((json) => chainOf(json) === c));
      expect(replayed.map((e) => withoutPosition(e.json.toString()))).toEqual(ascending.map(withoutPosition));
      expect(replayed.map((e) => e.position)).toEqual(replayed.map((e) => factsOf(e.json.toString()).position));
      expect(replayed.at(-1)!.position).toBe(SERIES[4].changes.positionText);
    }
    expect(replayEvents(LATEST, CHANGES, positionOf(4), MAX_ADDRESSES)).toEqual([]);
  });

  it("held records: one event each with its current state when it changed since (removed ones as removed), at the last position", () => {
    const held = [topic(`pool:8453:${LP.a}`), topic(`pool:8453:${LP.c}`), topic(`pool:8453:${LP.d}`), topic(`token:1:${LT.x}`)];
    const replayed = replayEvents(LATEST, held, positionOf(2), MAX_ADDRESSES);
    const end = SERIES[4].changes.positionText;
    // A changes every version; C never; D exists in odd versions (3), so it was removed by 4; token X changes every version.
    expect(replayed.map((e) => factsOf(e.json.toString()))).toEqual([
      { type: "pool", chainId: 8453, position: end, address: LP.a, removed: false },
      { type: "pool", chainId: 8453, position: end, address: LP.d, removed: true },
      { type: "token", chainId: 1, position: end, address: LT.x, removed: false },
    ]);
    const pool = JSON.parse(replayed[0].json.toString()) as { pool: { address: string } };
    expect(pool.pool.address).toBe(LP.a);
  });

  it("a position that cannot be resumed on a chain: resync for that chain, then every held record of it; other chains as usual", () => {
    const set = SERIES[2].changes.history.get(8453)!.find((s) => s.publication === SERIES[2].changes.publication)!;
    const since = new Map(positionOf(2));
    since.set(8453, `${set.generatedAt}.ffffffffffff`); // a file of that time that was never served
    const held = [...CHANGES, topic(`pool:8453:${LP.c}`), topic(`pool:1:${LP.c}`)];
    const facts = replayEvents(LATEST, held, since, MAX_ADDRESSES).map((e) => factsOf(e.json.toString()));
    expect(facts.map((e) => `${e.type}:${e.chainId}`)).toEqual(["changes:1", "changes:1", "resync:8453", "pool:8453"]);
    expect(facts[2].position).toBe(SERIES[4].changes.positionText);
  });

  it("is pure: chains it does not hold give nothing, the same inputs the same events, its position untouched", () => {
    const since = positionOf(1);
    const copy = new Map(since);
    expect(replayEvents(LATEST, [topic(`pool:130:${LP.a}`)], since, MAX_ADDRESSES)).toEqual([]);
    const held = [...CHANGES, topic(`pool:1:${LP.a}`)];
    const first = replayEvents(LATEST, held, since, MAX_ADDRESSES);
    expect(replayEvents(LATEST, held, since, MAX_ADDRESSES)).toEqual(first);
    expect(since).toEqual(copy);
  });
});
