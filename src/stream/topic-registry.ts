/**
 * A serving thread's subscribed topics: for every uWS topic with at least one
 * subscriber, how many connections hold it and which of them are SSE
 * responses (uWS publishes to its WebSockets itself; SSE connections are
 * written here). Pool and token topics are also kept by chain, so a change
 * set's fan-out walks whichever is smaller: the chain's subscribed records or
 * the set's address lists. Kept by subscribe, unsubscribe and close; the
 * topic text of an entry is shared by every connection holding it. WebSocket
 * holders are also counted by fan-out shard (StreamHub: a WebSocket holds a
 * topic as its shard's uWS topic, so a fan-out can reach one shard at a time).
 */
import type { ChainId } from "../chains/chains.js";
import type { Topic } from "./topics.js";

export interface RegistryEntry<S> {
  /** The topic text (one string per topic, whoever holds it). */
  readonly topic: Topic;
  /** Connections holding it (WebSocket and SSE). */
  count: number;
  /** The SSE connections holding it; null when none. */
  sse: Set<S> | null;
  /** WebSocket holders by shard (shards without one absent). */
  readonly shards: Map<number, number>;
}

export class TopicRegistry<S> {
  private readonly entries = new Map<string, RegistryEntry<S>>();
  /** `pool:<c>` / `token:<c>` → address → entry. */
  private readonly records = new Map<string, Map<string, RegistryEntry<S>>>();

  /** Topics with a subscriber. */
  get size(): number {
    return this.entries.size;
  }

  /** One more holder of `topic` (`sse`: the SSE connection, null for a WebSocket of shard `shard`); returns the shared topic. */
  add(topic: Topic, sse: S | null, shard = 0): Topic {
    let entry = this.entries.get(topic.text);
    if (entry === undefined) {
      entry = { topic, count: 0, sse: null, shards: new Map() };
      this.entries.set(topic.text, entry);
      if (topic.address !== null) {
        const group = groupKey(topic.kind as "pool" | "token", topic.chainId!);
        let byAddress = this.records.get(group);
        if (byAddress === undefined) this.records.set(group, (byAddress = new Map()));
        byAddress.set(topic.address, entry);
      }
    }
    entry.count++;
    if (sse !== null) (entry.sse ??= new Set()).add(sse);
    else entry.shards.set(shard, (entry.shards.get(shard) ?? 0) + 1);
    return entry.topic;
  }

  /** One holder fewer (the same `sse` and `shard` it was added with). */
  remove(topic: Topic, sse: S | null, shard = 0): void {
    const entry = this.entries.get(topic.text);
    if (entry === undefined) return;
    if (sse !== null) {
      if (entry.sse !== null) {
        entry.sse.delete(sse);
        if (entry.sse.size === 0) entry.sse = null;
      }
    } else {
      const left = (entry.shards.get(shard) ?? 0) - 1;
      if (left > 0) entry.shards.set(shard, left);
      else entry.shards.delete(shard);
    }
    if (--entry.count > 0) return;
    this.entries.delete(topic.text);
    if (topic.address !== null) {
      const group = groupKey(topic.kind as "pool" | "token", topic.chainId!);
      const byAddress = this.records.get(group);
      byAddress?.delete(topic.address);
      if (byAddress?.size === 0) this.records.delete(group);
    }
  }

  get(text: string): RegistryEntry<S> | undefined {
    return this.entries.get(text);
  }

  /** The subscribed pool or token topics of a chain, by address (undefined when none). */
  recordsOf(kind: "pool" | "token", chainId: ChainId): ReadonlyMap<string, RegistryEntry<S>> | undefined {
    return this.records.get(groupKey(kind, chainId));
  }
}

function groupKey(kind: "pool" | "token", chainId: ChainId): string {
  return `${kind}:${chainId}`;
}
