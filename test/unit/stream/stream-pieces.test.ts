/**
 * The pure pieces of GET /v1/stream: the topic grammar and what a topic stands
 * for, SSE framing, the topic registry, lookups in a change set's address
 * lists, event encoding (truncation included), per-key stream counts, and the
 * Accept rule.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChainId } from "../../../src/chains/chains.js";
import { SUPPORTED_CHAIN_IDS_ASCENDING } from "../../../src/chains/chains.js";
import { acceptsEventStream } from "../../../src/http/stream-input.js";
import { chainMask } from "../../../src/query/token-query.js";
import type { ChangeSetRecord } from "../../../src/tables/change-sets.js";
import { encodeStringColumn } from "../../../src/tables/shared-columns.js";
import { listEntry, listIncludes, listLength } from "../../../src/stream/address-lists.js";
import { createStreamCounters, KeyStreams, UNCOUNTED } from "../../../src/stream/key-streams.js";
import { sseEvent } from "../../../src/stream/sse.js";
import {
  addressArrayJson,
  changesEventJson,
  recordEventJson,
  resyncEventJson,
  subscribedEventJson,
} from "../../../src/stream/stream-events.js";
import { TopicRegistry } from "../../../src/stream/topic-registry.js";
import { changesTopic, isTopic, parseTopic, uwsTopics, type Topic } from "../../../src/stream/topics.js";

const A40 = "0x" + "ab".repeat(20);
const A64 = "0x" + "cd".repeat(32);

function topic(text: string): Topic {
  const parsed = parseTopic(text);
  if (!isTopic(parsed)) throw new Error(`not a topic: ${text}`);
  return parsed;
}

describe("topics", () => {
  it("parses the four forms, any letter case, into canonical lowercase text", () => {
    expect(parseTopic("changes")).toEqual({ text: "changes", kind: "changes", chainId: null, address: null });
    expect(parseTopic("CHANGES:8453")).toEqual({ text: "changes:8453", kind: "changes", chainId: 8453, address: null });
    expect(parseTopic(`Pool:1:${A40.toUpperCase().replace("0X", "0x")}`)).toEqual({
      text: `pool:1:${A40}`,
      kind: "pool",
      chainId: 1,
      address: A40,
    });
    expect(parseTopic(`pool:130:${A64}`)).toEqual({ text: `pool:130:${A64}`, kind: "pool", chainId: 130, address: A64 });
    expect(parseTopic(`TOKEN:534352:${A40}`)).toEqual({ text: `token:534352:${A40}`, kind: "token", chainId: 534352, address: A40 });
  });

  it("refuses malformed topics and names unsupported chains", () => {
    for (const bad of [
      "",
      "change",
      "changes:",
      "changes:08453",
      "changes:-1",
      "changes:1.0",
      `changes:1:${A40}`,
      "pool:1",
      `pool:${A40}`,
      `pool:1:${A40}:x`,
      `pool:1:0x${"a".repeat(39)}`,
      `pool:1:0x${"a".repeat(41)}`,
      `token:1:${A64}`,
      `token:1:0x${"g".repeat(40)}`,
      ` changes`,
      "changes:1 ",
      "x".repeat(101),
      `pool:1:${A40}`.repeat(2),
    ])
      expect(parseTopic(bad), bad).toEqual({ fault: "malformed" });
    expect(parseTopic("changes:5")).toEqual({ fault: "unsupported-chain", chainId: 5 });
    expect(parseTopic(`token:10:${A40}`)).toEqual({ fault: "unsupported-chain", chainId: 10 });
    expect(parseTopic("changes:999999999999999")).toEqual({ fault: "unsupported-chain", chainId: 999999999999999 });
  });

  it("any string: a topic whose text parses to itself, or a fault; never a throw", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (text) => {
        const parsed = parseTopic(text);
        if (isTopic(parsed)) {
          expect(parsed.text).toBe(text.toLowerCase());
          expect(parseTopic(parsed.text)).toEqual(parsed);
        } else expect(["malformed", "unsupported-chain"]).toContain(parsed.fault);
      }),
    );
  });

  it("`changes` stands for the changes:<c> of the key's chains; repeats collapse, first-seen order kept", () => {
    const all = chainMask(SUPPORTED_CHAIN_IDS_ASCENDING);
    expect(uwsTopics([topic("changes")], all).map((t) => t.text)).toEqual(SUPPORTED_CHAIN_IDS_ASCENDING.map((c) => `changes:${c}`));
    expect(uwsTopics([topic(`pool:1:${A40}`), topic("changes"), topic("changes:999")], chainMask([999, 1])).map((t) => t.text)).toEqual([
      `pool:1:${A40}`,
      "changes:1",
      "changes:999",
    ]);
    expect(uwsTopics([topic("changes")], 0)).toEqual([]);
    expect(changesTopic(8453)).toBe(changesTopic(8453));
  });
});

describe("SSE framing", () => {
  it("event, id (when there is one) and one data line, then a blank line", () => {
    expect(sseEvent("changes", "AQ", Buffer.from('{"a":1}')).toString()).toBe('event: changes\nid: AQ\ndata: {"a":1}\n\n');
    expect(sseEvent("error", null, Buffer.from("{}")).toString()).toBe("event: error\ndata: {}\n\n");
  });
});

describe("the topic registry", () => {
  it("counts holders per topic, keeps SSE holders apart, shares one topic object, and indexes records by chain", () => {
    const registry = new TopicRegistry<string>();
    const first = registry.add(topic(`pool:8453:${A40}`), null);
    const second = registry.add(topic(`POOL:8453:${A40}`), "sse-1");
    expect(second).toBe(first);
    registry.add(topic("changes:8453"), "sse-1");
    registry.add(topic(`token:8453:${A40}`), null);
    expect(registry.get(`pool:8453:${A40}`)).toMatchObject({ count: 2, sse: new Set(["sse-1"]) });
    expect([...registry.recordsOf("pool", 8453)!.keys()]).toEqual([A40]);
    expect([...registry.recordsOf("token", 8453)!.keys()]).toEqual([A40]);
    expect(registry.recordsOf("pool", 1)).toBeUndefined();

    registry.remove(topic(`pool:8453:${A40}`), "sse-1");
    expect(registry.get(`pool:8453:${A40}`)).toMatchObject({ count: 1, sse: null });
    registry.remove(topic(`pool:8453:${A40}`), null);
    expect(registry.get(`pool:8453:${A40}`)).toBeUndefined();
    expect(registry.recordsOf("pool", 8453)).toBeUndefined();
    expect(registry.size).toBe(2);
    registry.remove(topic("changes:1"), null); // not held: nothing happens
    expect(registry.size).toBe(2);
  });

  it("counts WebSocket holders per fan-out shard (SSE holders apart), dropping a shard with none left", () => {
    const registry = new TopicRegistry<string>();
    registry.add(topic("changes:8453"), null, 3);
    registry.add(topic("changes:8453"), null, 3);
    registry.add(topic("changes:8453"), null, 5);
    registry.add(topic("changes:8453"), "sse-1", 7);
    expect(registry.get("changes:8453")).toMatchObject({
      count: 4,
      shards: new Map([
        [3, 2],
        [5, 1],
      ]),
    });
    registry.remove(topic("changes:8453"), null, 5);
    registry.remove(topic("changes:8453"), "sse-1", 7);
    registry.remove(topic("changes:8453"), null, 3);
    expect(registry.get("changes:8453")).toMatchObject({ count: 1, sse: null, shards: new Map([[3, 1]]) });
  });

  it("after any sequence of adds and removes, counts equal the holders left", () => {
    const texts = ["changes:1", `pool:1:${A40}`, `token:1:${A40}`, `pool:8453:${A64}`];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.nat(3), fc.option(fc.constantFrom("s1", "s2"), { nil: null })), { maxLength: 60 }),
        (ops) => {
          const registry = new TopicRegistry<string>();
          const held = new Map<string, Array<string | null>>();
          for (const [add, i, sse] of ops) {
            const text = texts[i]!;
            const list = held.get(text) ?? [];
            if (add) {
              if (sse !== null && list.includes(sse)) continue; // a connection holds a topic once (the hub diffs its topics)
              registry.add(topic(text), sse);
              list.push(sse);
            } else {
              const at = list.indexOf(sse);
              if (at < 0) continue; // only what is held is removed
              registry.remove(topic(text), sse);
              list.splice(at, 1);
            }
            held.set(text, list);
          }
          for (const text of texts) {
            const list = held.get(text) ?? [];
            const entry = registry.get(text);
            if (list.length === 0) expect(entry).toBeUndefined();
            else {
              expect(entry!.count).toBe(list.length);
              const sse = new Set(list.filter((s): s is string => s !== null));
              expect(entry!.sse === null ? new Set() : entry!.sse).toEqual(sse);
            }
          }
        },
      ),
    );
  });
});

describe("address lists", () => {
  it("binary search over a sorted column agrees with Array.includes", () => {
    const hex = fc.stringMatching(/^[0-9a-f]{40}$/).map((h) => `0x${h}`);
    fc.assert(
      fc.property(fc.uniqueArray(hex, { maxLength: 40 }), hex, (addresses, probe) => {
        const sorted = [...addresses].sort();
        const column = encodeStringColumn(sorted);
        expect(listLength(column)).toBe(sorted.length);
        sorted.forEach((a, i) => {
          expect(listEntry(column, i)).toBe(a);
          expect(listIncludes(column, a)).toBe(true);
        });
        expect(listIncludes(column, probe)).toBe(sorted.includes(probe));
        expect(listIncludes(column, `${probe}00`)).toBe(false);
        expect(listIncludes(column, probe.slice(0, 20))).toBe(false);
      }),
    );
  });
});

function record(lists: {
  poolsUpserted?: string[];
  poolsRemoved?: string[];
  tokensUpserted?: string[];
  tokensRemoved?: string[];
}): ChangeSetRecord {
  const pu = lists.poolsUpserted ?? [];
  const pr = lists.poolsRemoved ?? [];
  const tu = lists.tokensUpserted ?? [];
  const tr = lists.tokensRemoved ?? [];
  return {
    chainId: 8453 as ChainId,
    id: "1760000000.0123456789ab",
    previous: null,
    generatedAt: 1_760_000_000,
    previousGeneratedAt: null,
    blockNumber: null,
    rollback: false,
    rollbackFloor: null,
    poolsUpserted: encodeStringColumn(pu),
    poolsRemoved: encodeStringColumn(pr),
    tokensUpserted: encodeStringColumn(tu),
    tokensRemoved: encodeStringColumn(tr),
    counts: { poolsUpserted: pu.length, poolsRemoved: pr.length, tokensUpserted: tu.length, tokensRemoved: tr.length },
    servedAt: "2026-01-01T00:00:00.000Z",
    snapshotVersion: 0xabcdef012345,
    publication: 1,
    seq: 1,
  };
}

describe("events", () => {
  it("an address list is the JSON array JSON.stringify writes", () => {
    for (const list of [[], [A40], [A40, A64]]) expect(addressArrayJson(encodeStringColumn(list)).toString()).toBe(JSON.stringify(list));
  });

  it("a changes event: the wire type's keys in order; lists when within STREAM_MAX_ADDRESSES", () => {
    const event = JSON.parse(changesEventJson(record({ poolsUpserted: [A40], tokensRemoved: [A40] }), "AQ", 1).toString());
    expect(event).toEqual({
      type: "changes",
      position: "AQ",
      chainId: 8453,
      id: "1760000000.0123456789ab",
      previous: null,
      generatedAt: 1_760_000_000,
      blockNumber: null,
      servedAt: "2026-01-01T00:00:00.000Z",
      snapshotVersion: "abcdef012345",
      pools: { upserted: [A40], removed: [] },
      tokens: { upserted: [], removed: [A40] },
      truncated: false,
    });
    expect(Object.keys(event)).toEqual([
      "type",
      "position",
      "chainId",
      "id",
      "previous",
      "generatedAt",
      "blockNumber",
      "servedAt",
      "snapshotVersion",
      "pools",
      "tokens",
      "truncated",
    ]);
  });

  it("a list longer than STREAM_MAX_ADDRESSES: every list empty, the four counts, truncated", () => {
    const event = JSON.parse(changesEventJson(record({ poolsUpserted: [A40, A64], tokensUpserted: [A40] }), "AQ", 1).toString());
    expect(event).toMatchObject({
      pools: { upserted: [], removed: [] },
      tokens: { upserted: [], removed: [] },
      poolsUpserted: 2,
      poolsRemoved: 0,
      tokensUpserted: 1,
      tokensRemoved: 0,
      truncated: true,
    });
    expect(Object.keys(event).slice(-6)).toEqual([
      "tokens",
      "poolsUpserted",
      "poolsRemoved",
      "tokensUpserted",
      "tokensRemoved",
      "truncated",
    ]);
  });

  it("pool, token, resync and subscribed events", () => {
    const pool = Buffer.from('{"chainId":8453,"address":"x"}');
    expect(JSON.parse(recordEventJson("pool", "AQ", 8453, A40, [pool]).toString())).toEqual({
      type: "pool",
      position: "AQ",
      chainId: 8453,
      address: A40,
      pool: { chainId: 8453, address: "x" },
      removed: false,
    });
    expect(JSON.parse(recordEventJson("token", "AQ", 1, A40, null).toString())).toEqual({
      type: "token",
      position: "AQ",
      chainId: 1,
      address: A40,
      token: null,
      removed: true,
    });
    expect(JSON.parse(resyncEventJson(1, "AQ"))).toEqual({ type: "resync", chainId: 1, position: "AQ" });
    expect(JSON.parse(subscribedEventJson(["changes"], "AQ"))).toEqual({ type: "subscribed", topics: ["changes"], position: "AQ" });
  });
});

describe("open streams per key", () => {
  it("a key takes at most `max` places; a freed place can be taken again; keys without a slot are not counted", () => {
    const counters = createStreamCounters(4);
    const streams = new KeyStreams(counters, { a: 0, b: 3 }, 2);
    const other = new KeyStreams(counters, { a: 0, b: 3 }, 2); // another thread, same memory
    expect(streams.take("a")).toBe(0);
    expect(other.take("a")).toBe(0);
    expect(() => streams.take("a")).toThrow(expect.objectContaining({ code: "RATE_LIMIT_EXCEEDED", headers: { "retry-after": "5" } }));
    expect(streams.count(0)).toBe(2);
    expect(streams.take("b")).toBe(3);
    other.release(0);
    expect(streams.take("a")).toBe(0);
    expect(streams.take("nobody")).toBe(UNCOUNTED);
    streams.release(UNCOUNTED);
    expect(streams.count(0)).toBe(2);
  });

  it("an open stream's place moves with its key to the slot of the key's new id; never refused, UNCOUNTED on either side", () => {
    const counters = createStreamCounters(4);
    const streams = new KeyStreams(counters, { a: 0, b: 1 }, 2);
    const held = [streams.take("a"), streams.take("a")];
    streams.setSlots({ b: 0, a: 1 }); // a reload swapped the two keys' ids
    expect(streams.slotOf("b")).toBe(0);
    for (const slot of held) streams.move(slot, streams.slotOf("b"));
    expect([streams.count(0), streams.count(1)]).toEqual([2, 0]);
    streams.setSlots({ c: 2, a: 1 });
    for (const slot of held) streams.move(slot, streams.slotOf("c"));
    expect([streams.count(0), streams.count(2)]).toEqual([0, 2]);
    streams.move(2, streams.slotOf("gone"));
    expect(streams.count(2)).toBe(1);
    streams.move(UNCOUNTED, 2);
    streams.move(UNCOUNTED, 2); // past the limit: an open stream is never refused
    expect(streams.count(2)).toBe(3);
  });
});

describe("Accept", () => {
  it("asks for SSE when a text/event-stream range has a non-zero q", () => {
    expect(acceptsEventStream("text/event-stream")).toBe(true);
    expect(acceptsEventStream("application/json, TEXT/Event-Stream; charset=utf-8")).toBe(true);
    expect(acceptsEventStream("text/event-stream;q=0.5")).toBe(true);
    expect(acceptsEventStream("text/event-stream;q=0")).toBe(false);
    expect(acceptsEventStream("*/*")).toBe(false);
    expect(acceptsEventStream("text/*")).toBe(false);
    expect(acceptsEventStream("")).toBe(false);
  });
});
