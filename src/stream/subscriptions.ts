/**
 * What a thread's streams hold: the registry of subscribed topics
 * (topic-registry.ts: holders per uWS topic, by shard and SSE channel) and,
 * for each connection, its uWS topics following it. One topic diff serves the
 * three ways a connection's holding changes: it subscribes (its start, a
 * subscribe or unsubscribe message, nothing left for a slow consumer), its
 * key's chains change (`changes` stands for other chains: re-scope), and it
 * closes (drop). Topics a change keeps are not touched; added ones are held,
 * then the others let go of, in that order.
 */
import { NO_TOPICS, type StreamConnection } from "./stream-connection.js";
import type { SseChannel } from "./sse-channel.js";
import { TopicRegistry } from "./topic-registry.js";
import { uwsTopics, type Topic } from "./topics.js";

export class Subscriptions {
  readonly registry = new TopicRegistry<SseChannel>();

  /**
   * The connection holds `next` from now on: its `held` and `topics` become `next` with each topic replaced by
   * the registry's shared one (one object per topic, whoever holds it).
   */
  hold(conn: StreamConnection, next: readonly Topic[]): void {
    const shared = this.diff(conn, uwsTopics(conn.held, conn.readable), uwsTopics(next, conn.readable), true);
    conn.held = conn.topics = next.map((t) => shared.get(t.text) ?? t);
  }

  /** `changes` of the connection now stands for the chains of `readable` (a chainMask): its uWS topics follow. */
  rescope(conn: StreamConnection, readable: number): void {
    const before = uwsTopics(conn.held, conn.readable);
    conn.readable = readable;
    this.diff(conn, before, uwsTopics(conn.held, readable), true);
  }

  /** The connection closed: the registry lets go of its topics (uWS drops a closed socket's own). */
  drop(conn: StreamConnection): void {
    this.diff(conn, uwsTopics(conn.held, conn.readable), NO_TOPICS, false);
  }

  /**
   * The one diff: holds what `after` has and `before` has not, then lets go of what only `before` had, in the
   * registry and (`socket`) in uWS. Returns the registry's topic for each topic of `after`.
   */
  private diff(conn: StreamConnection, before: readonly Topic[], after: readonly Topic[], socket: boolean): Map<string, Topic> {
    const outlet = conn.outlet;
    const channel = outlet?.channel ?? null;
    const shard = outlet?.shard ?? 0;
    const was = new Map(before.map((t) => [t.text, t]));
    const shared = new Map<string, Topic>();
    for (const topic of after) {
      if (was.delete(topic.text)) {
        shared.set(topic.text, this.registry.get(topic.text)?.topic ?? topic);
        continue;
      }
      shared.set(topic.text, this.registry.add(topic, channel, shard));
      if (socket) outlet?.subscribe(topic.text);
    }
    for (const topic of was.values()) {
      this.registry.remove(topic, channel, shard);
      if (socket) outlet?.unsubscribe(topic.text);
    }
    return shared;
  }
}
