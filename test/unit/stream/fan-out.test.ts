/**
 * The fan-out (src/stream/fan-out.ts) driven with a recording sink, over real
 * snapshots of the live chains: what each connection receives against a
 * deliberately simple reference (every event of every set it holds, set after
 * set, a set's `changes` before its pools and its pools before its tokens),
 * the WebSockets' events shard after shard, the costs the steps yield, and a
 * holder that closes between steps.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { listEntry, listLength } from "../../../src/stream/address-lists.js";
import { FANOUT_EVENT_OVERHEAD, FanOut, shardTopic, type FanOutSink } from "../../../src/stream/fan-out.js";
import { TopicRegistry } from "../../../src/stream/topic-registry.js";
import type { SwappedSnapshot } from "../../../src/stream/swapped-snapshot.js";
import type { Topic } from "../../../src/stream/topics.js";
import { LP, LT } from "../../support/live-fixture.js";
import { factsOf, liveSeries, seriesTopics, sseJson, swapped, topic, type EventFacts } from "../../support/stream-series.js";

const MAX_ADDRESSES = 1000;

/** Every publish and write, in order: to `<topic>#<shard>` or `sse:<channel>`. */
class RecordingSink implements FanOutSink<string> {
  readonly calls: Array<{ readonly to: string; readonly json: string }> = [];

  publish(uwsTopic: string, message: Buffer): void {
    this.calls.push({ to: uwsTopic, json: message.toString() });
  }

  write(channel: string, bytes: Buffer): void {
    this.calls.push({ to: `sse:${channel}`, json: sseJson(bytes.toString()) });
  }
}

/** A connection as the registry holds it: an SSE channel (by name) or a WebSocket of a shard. */
interface Holder {
  readonly name: string;
  readonly sse: boolean;
  readonly shard: number;
  readonly topics: readonly Topic[];
}

function registryOf(holders: readonly Holder[]): TopicRegistry<string> {
  const registry = new TopicRegistry<string>();
  for (const h of holders) for (const t of h.topics) registry.add(t, h.sse ? h.name : null, h.shard);
  return registry;
}

/** What the sink delivered to one holder, in order (uWS hands a WebSocket its shard topics' messages in publish order). */
function delivered(sink: RecordingSink, h: Holder): EventFacts[] {
  const mine = new Set(h.sse ? [`sse:${h.name}`] : h.topics.map((t) => shardTopic(t.text, h.shard)));
  return sink.calls.filter((c) => mine.has(c.to)).map((c) => factsOf(c.json));
}

/** The reference: per set the snapshot introduced, in order, its `changes` if held, then each held pool, then each held token it touched. */
function expected(entry: SwappedSnapshot, h: Holder): EventFacts[] {
  const held = new Set(h.topics.map((t) => t.text));
  const out: EventFacts[] = [];
  for (const { set, positionText: position } of entry.snapshot.changes.introduced) {
    const c = set.chainId;
    if (held.has(`changes:${c}`)) out.push({ type: "changes", chainId: c, position, address: null, removed: null });
    for (const [kind, upserted, removed] of [
      ["pool", set.poolsUpserted, set.poolsRemoved],
      ["token", set.tokensUpserted, set.tokensRemoved],
    ] as const) {
      const touched: Array<[string, boolean]> = [];
      for (let i = 0; i < listLength(upserted); i++) touched.push([listEntry(upserted, i), false]);
      for (let i = 0; i < listLength(removed); i++) touched.push([listEntry(removed, i), true]);
      for (const [address, isRemoved] of touched.sort(([a], [b]) => (a < b ? -1 : 1)))
        if (held.has(`${kind}:${c}:${address}`)) out.push({ type: kind, chainId: c, position, address, removed: isRemoved });
    }
  }
  return out;
}

/** The order the fan-out promises within one connection: set after set; in a set, changes, pools, tokens (addresses in any order). */
function orderKey(entry: SwappedSnapshot, e: EventFacts): number {
  const set = entry.snapshot.changes.introduced.findIndex((i) => i.set.chainId === e.chainId && i.positionText === e.position);
  expect(set).toBeGreaterThanOrEqual(0);
  return set * 3 + ["changes", "pool", "token"].indexOf(e.type);
}

function byOrderThenAddress(entry: SwappedSnapshot) {
  return (a: EventFacts, b: EventFacts) => orderKey(entry, a) - orderKey(entry, b) || (a.address ?? "").localeCompare(b.address ?? "");
}

/** Runs every step; returns what they yielded. */
function runAll(fanOut: FanOut<string>, entry: SwappedSnapshot): number[] {
  return [...fanOut.steps(entry)];
}

const SERIES = liveSeries(4);
/** A swap that changes pools A and D or B, tokens X and W or Z, on both chains (two sets). */
const ENTRY = swapped(SERIES[1]);

describe("fan-out", () => {
  it("gives each connection, SSE or WebSocket, exactly its events in order; WebSockets shard after shard", () => {
    const holders: Holder[] = [
      { name: "a", sse: true, shard: 0, topics: [topic("changes:8453"), topic(`pool:8453:${LP.a}`), topic(`token:8453:${LT.x}`)] },
      { name: "b", sse: false, shard: 3, topics: [topic("changes:1"), topic("changes:8453"), topic(`pool:1:${LP.b}`)] },
      { name: "c", sse: false, shard: 1, topics: [topic(`pool:8453:${LP.d}`), topic(`token:8453:${LT.z}`), topic(`pool:1:${LP.c}`)] },
      { name: "d", sse: false, shard: 1, topics: [topic("changes:8453"), topic(`pool:8453:${LP.a}`)] },
    ];
    const sink = new RecordingSink();
    const counted: Array<[string, number]> = [];
    runAll(new FanOut(registryOf(holders), sink, MAX_ADDRESSES, (type, n) => counted.push([type, n])), ENTRY);
    for (const h of holders) expect(delivered(sink, h), h.name).toEqual(expected(ENTRY, h));
    // Pool C never changes: nothing for it; B was removed on chain 1 (k=1 is odd).
    expect(delivered(sink, holders[1]).find((e) => e.address === LP.b)?.removed).toBe(true);
    expect(sink.calls.some((c) => c.to.startsWith(`pool:1:${LP.c}`))).toBe(false);
    // The SSE writes come as each event is built, before any WebSocket's; then shard 1's whole publication, then shard 3's.
    const shards = sink.calls.filter((c) => !c.to.startsWith("sse:")).map((c) => Number(c.to.split("#")[1]));
    expect(sink.calls.findIndex((c) => !c.to.startsWith("sse:"))).toBe(sink.calls.filter((c) => c.to.startsWith("sse:")).length);
    expect(shards).toEqual([...shards].sort((x, y) => x - y));
    expect(new Set(shards)).toEqual(new Set([1, 3]));
    // Each event counted once, by its number of holders.
    expect(counted.filter(([type]) => type === "changes").map(([, n]) => n)).toEqual([1, 3]);
  });

  it("any holders of any topics, any swap of the series: per connection, the reference's events in the promised order", () => {
    const all = seriesTopics();
    const holder = fc.record({
      sse: fc.boolean(),
      shard: fc.integer({ min: 0, max: 3 }),
      topics: fc.subarray(all, { minLength: 1 }),
    });
    fc.assert(
      fc.property(fc.array(holder, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: SERIES.length - 1 }), (drawn, k) => {
        const holders = drawn.map((h, i) => ({ ...h, name: `h${i}` }));
        const entry = swapped(SERIES[k]);
        const sink = new RecordingSink();
        runAll(new FanOut(registryOf(holders), sink, MAX_ADDRESSES, () => {}), entry);
        for (const h of holders) {
          const got = delivered(sink, h);
          const keys = got.map((e) => orderKey(entry, e));
          expect(keys).toEqual([...keys].sort((x, y) => x - y));
          expect([...got].sort(byOrderThenAddress(entry))).toEqual(expected(entry, h));
        }
      }),
      { numRuns: 150 },
    );
  });

  it("yields what each step costs: an event's bytes and its SSE frames, then each shard's messages", () => {
    const t = topic("changes:8453");
    const holders: Holder[] = [
      { name: "s1", sse: true, shard: 0, topics: [t] },
      { name: "s2", sse: true, shard: 0, topics: [t] },
      ...[0, 0, 2].map((shard, i) => ({ name: `w${i}`, sse: false, shard, topics: [t] })),
    ];
    const sink = new RecordingSink();
    const costs = runAll(new FanOut(registryOf(holders), sink, MAX_ADDRESSES, () => {}), ENTRY);
    const json = sink.calls.find((c) => c.to === shardTopic(t.text, 0))!.json;
    const framed = sink.calls.find((c) => c.to === "sse:s1")!;
    const frameBytes = Buffer.byteLength(`event: changes\nid: ${factsOf(json).position}\ndata: ${framed.json}\n\n`);
    // One build step (one changes event), then shard 0 (two sockets), then shard 2 (one).
    expect(costs).toEqual([
      json.length + 2 * (frameBytes + FANOUT_EVENT_OVERHEAD),
      2 * (json.length + FANOUT_EVENT_OVERHEAD),
      1 * (json.length + FANOUT_EVENT_OVERHEAD),
    ]);
  });

  it("a connection that closes between steps gets nothing more; the others still get theirs", () => {
    const holders: Holder[] = [
      { name: "gone", sse: false, shard: 5, topics: [topic("changes:8453"), topic(`pool:8453:${LP.a}`)] },
      { name: "stays", sse: false, shard: 6, topics: [topic("changes:8453"), topic(`pool:8453:${LP.a}`)] },
      { name: "sse-gone", sse: true, shard: 0, topics: [topic(`pool:8453:${LP.a}`)] },
    ];
    const registry = registryOf(holders);
    const sink = new RecordingSink();
    const steps = new FanOut(registry, sink, MAX_ADDRESSES, () => {}).steps(ENTRY);
    steps.next(); // chain 1's set: nothing held; then chain 8453's changes event is built
    for (const t of holders[0].topics) registry.remove(t, null, 5);
    registry.remove(holders[2].topics[0], "sse-gone", 0);
    while (!steps.next().done);
    expect(delivered(sink, holders[0])).toEqual([]);
    expect(delivered(sink, holders[2])).toEqual([]);
    expect(delivered(sink, holders[1])).toEqual(expected(ENTRY, holders[1]));
  });

  it("with no topic held, a publication writes nothing", () => {
    const sink = new RecordingSink();
    expect(runAll(new FanOut(new TopicRegistry<string>(), sink, MAX_ADDRESSES, () => {}), ENTRY)).toEqual([]);
    expect(sink.calls).toEqual([]);
  });
});
