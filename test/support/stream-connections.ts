/**
 * Stream connections for the stream's unit tests: a StreamConnection of a key
 * (all chains, or some), and an outlet that records what the hub's parts do to
 * its socket instead of a uWS WebSocket.
 */
import { KeyStore, type KeyEntry } from "../../src/access/key-store.js";
import { parseKeysFile } from "../../src/access/keys-file.js";
import { StreamConnection, type StreamOpening } from "../../src/stream/stream-connection.js";
import type { StreamOutlet } from "../../src/stream/stream-outlet.js";
import type { StreamEventType } from "../../src/stream/stream-events.js";
import type { Topic } from "../../src/stream/topics.js";

/** A key's entry (its chains: `chainIds`, or every chain). */
export function keyEntry(id = "holder", chainIds?: number[]): KeyEntry {
  const record = {
    id,
    name: id,
    sha256: KeyStore.hashKey(`lgw_${id}_0123456789abcdef`),
    status: "active",
    ...(chainIds ? { chainIds } : {}),
  };
  return new KeyStore(parseKeysFile(JSON.stringify({ keys: [record] }), "keys.json")).getById(id)!;
}

/** A WebSocket's outlet that records its calls: `+topic`, `-topic`, `send:<json>`, `end:<code>`, `cut`. */
export class RecordingOutlet implements StreamOutlet {
  readonly channel = null;
  readonly calls: string[] = [];

  constructor(readonly shard = 0) {}

  send(_type: StreamEventType, _position: string | null, json: Buffer | string): void {
    this.calls.push(`send:${json.toString()}`);
  }
  subscribe(topic: string): void {
    this.calls.push(`+${topic}`);
  }
  unsubscribe(topic: string): void {
    this.calls.push(`-${topic}`);
  }
  cork(sends: () => void): void {
    sends();
  }
  buffered(): number {
    return 0;
  }
  heartbeat(): void {}
  end(code: number): void {
    this.calls.push(`end:${code}`);
  }
  cut(): void {
    this.calls.push("cut");
  }

  /** The topics its socket holds now, from its subscribe and unsubscribe calls. */
  held(): Set<string> {
    const held = new Set<string>();
    for (const call of this.calls)
      if (call.startsWith("+")) held.add(call.slice(1));
      else if (call.startsWith("-")) held.delete(call.slice(1));
    return held;
  }
}

/** A WebSocket stream of `key` opened on a recording outlet (phase `waiting`, as the hub leaves it when its transport opens). */
export function openConnection(topics: readonly Topic[], key = keyEntry(), shard = 0): { conn: StreamConnection; outlet: RecordingOutlet } {
  const opening: StreamOpening = { topics, since: null };
  const conn = new StreamConnection("websocket", key, "lgw_…", 0, opening);
  const outlet = new RecordingOutlet(shard);
  conn.outlet = outlet;
  conn.phase = "waiting";
  return { conn, outlet };
}
