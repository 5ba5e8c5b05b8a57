/**
 * A publication's events, written to a sink: per change set the snapshot
 * introduced, its `changes` event, then one event per held pool and token it
 * touched (the smaller of the chain's held records and the set's lists is
 * walked), each encoded once whoever holds it. SSE connections are written
 * each event framed once; WebSockets get the events through uWS pub/sub, one
 * fan-out shard at a time, every event of a shard's connections together, so
 * uWS writes each connection's events of the publication at once
 * (decision 008: docs/decisions/008-fan-out-in-slices-and-shards.md). The
 * steps yield what they cost, so the publication (publication.ts) can send
 * them in slices, one per turn of the event loop.
 */
import type { ChangeSetRecord } from "../tables/change-sets.js";
import { listEntry, listIncludes, listLength } from "./address-lists.js";
import { sseEvent } from "./sse.js";
import { changesEventJson, recordEventJson, type StreamEventType } from "./stream-events.js";
import { recordJson, type SwappedSnapshot } from "./swapped-snapshot.js";
import type { RegistryEntry, TopicRegistry } from "./topic-registry.js";
import { changesTopic } from "./topics.js";

/**
 * What one slice of a fan-out may cost before the rest waits for the next turn of the event loop: the bytes
 * uWS writes for its events (each event's bytes plus FANOUT_EVENT_OVERHEAD, times its holders). One event is
 * never split: a topic with more holders than the budget allows goes in a slice of its own.
 */
export const FANOUT_SLICE_COST = 1 << 20;
/**
 * WebSockets are spread over this many fan-out shards (round robin as they open); a fan-out publishes to
 * one shard's connections at a time, all their events of the publication together.
 */
export const FANOUT_SHARDS = 128;
/** What sending one event to one more holder costs beyond its bytes, counted as bytes (uWS's per-subscriber work). */
export const FANOUT_EVENT_OVERHEAD = 256;

/** The uWS topic through which the WebSockets of `shard` hold `topic`. */
export function shardTopic(topic: string, shard: number): string {
  return `${topic}#${shard}`;
}

/** Where a fan-out writes (uWS's pub/sub and the SSE channels; a recording sink in the unit tests). */
export interface FanOutSink<S> {
  /** One message to every WebSocket holding the uWS topic (a shard's: `shardTopic`). */
  publish(topic: string, message: Buffer): void;
  /** One framed event to one SSE connection. */
  write(channel: S, bytes: Buffer): void;
}

/** An event built for a shard: its holders (looked up again as the shard goes) and its bytes. */
interface ShardEvent<S> {
  readonly holders: RegistryEntry<S>;
  readonly json: Buffer;
}

export class FanOut<S> {
  constructor(
    /** The thread's subscribed topics (subscriptions.ts). */
    private readonly registry: TopicRegistry<S>,
    private readonly sink: FanOutSink<S>,
    /** STREAM_MAX_ADDRESSES: a longer list makes a `changes` event carry counts. */
    private readonly maxAddresses: number,
    /** Events enqueued, by type (the serving thread's metrics). */
    private readonly counted: (type: StreamEventType, n: number) => void,
  ) {}

  /**
   * A publication's events, one step each (yielding its cost): first each event is built once and written to
   * the SSE connections holding it; then the WebSockets get them shard after shard, every event of a shard's
   * connections in the same step (slicing by topic would split a connection's events into as many writes as
   * slices). Holders are looked up as each event goes (connections close between slices; none is added:
   * holds wait for the end).
   */
  *steps(entry: SwappedSnapshot): Generator<number, void> {
    const byShard = new Map<number, Array<ShardEvent<S>>>();
    const built = (holders: RegistryEntry<S>, type: StreamEventType, position: string, json: Buffer): number => {
      const sse = holders.sse;
      let cost = json.length;
      if (sse !== null) {
        const framed = sseEvent(type, position, json);
        for (const channel of [...sse]) this.sink.write(channel, framed);
        cost += sse.size * (framed.length + FANOUT_EVENT_OVERHEAD);
      }
      for (const shard of holders.shards.keys()) {
        let list = byShard.get(shard);
        if (list === undefined) byShard.set(shard, (list = []));
        list.push({ holders, json });
      }
      this.counted(type, holders.count);
      return cost;
    };
    for (const { set, positionText } of entry.snapshot.changes.introduced) {
      if (this.registry.size === 0) break;
      const topic = this.registry.get(changesTopic(set.chainId).text);
      if (topic !== undefined) yield built(topic, "changes", positionText, changesEventJson(set, positionText, this.maxAddresses));
      for (const kind of ["pool", "token"] as const)
        for (const [holders, isRemoved] of this.touched(kind, set)) {
          const record = isRemoved ? null : recordJson(entry, kind, set.chainId, holders.topic.address!);
          yield built(holders, kind, positionText, recordEventJson(kind, positionText, set.chainId, holders.topic.address!, record));
        }
    }
    for (const shard of [...byShard.keys()].sort((a, b) => a - b)) {
      let cost = 0;
      for (const { holders, json } of byShard.get(shard)!) {
        const n = holders.shards.get(shard);
        if (n === undefined) continue; // its holders of this shard closed meanwhile
        this.sink.publish(shardTopic(holders.topic.text, shard), json);
        cost += n * (json.length + FANOUT_EVENT_OVERHEAD);
      }
      yield cost;
    }
  }

  /** The held pool (or token) topics of the set's chain that the set touched, and whether it removed them. */
  private *touched(kind: "pool" | "token", set: ChangeSetRecord): Generator<[RegistryEntry<S>, boolean], void> {
    const held = this.registry.recordsOf(kind, set.chainId);
    if (held === undefined) return;
    const upserted = kind === "pool" ? set.poolsUpserted : set.tokensUpserted;
    const removed = kind === "pool" ? set.poolsRemoved : set.tokensRemoved;
    const still = (address: string) => this.registry.recordsOf(kind, set.chainId)?.get(address); // its last holder may have closed meanwhile
    if (held.size <= listLength(upserted) + listLength(removed)) {
      for (const address of [...held.keys()]) {
        const isRemoved = !listIncludes(upserted, address);
        if (isRemoved && !listIncludes(removed, address)) continue;
        const holders = still(address);
        if (holders !== undefined) yield [holders, isRemoved];
      }
      return;
    }
    for (let i = 0; i < listLength(upserted); i++) {
      const holders = held.has(listEntry(upserted, i)) ? still(listEntry(upserted, i)) : undefined;
      if (holders !== undefined) yield [holders, false];
    }
    for (let i = 0; i < listLength(removed); i++) {
      const holders = held.has(listEntry(removed, i)) ? still(listEntry(removed, i)) : undefined;
      if (holders !== undefined) yield [holders, true];
    }
  }
}
