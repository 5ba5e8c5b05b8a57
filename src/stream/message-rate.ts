/**
 * How many messages a WebSocket client of GET /v1/stream may send: two leaky
 * buckets, each draining at its rate per second and holding one second's
 * worth, per connection (STREAM_MAX_MESSAGES_PER_SECOND = r: past r refused,
 * past 2r the connection closed) and per key on this thread
 * (STREAM_MAX_KEY_MESSAGES_PER_SECOND = k: past k refused; it outlives the
 * key's connections until drained). Why and what a client sees: decision 010
 * (docs/decisions/010-message-rates.md), docs/stream.md "Message rate". A few
 * arithmetic operations per message; one record per connection and per key
 * with a bucket not yet drained (drained ones dropped as new keys arrive).
 */

/** What to do with one message. */
export type MessageVerdict = "take" | "refuse-connection" | "refuse-key" | "close";

/** A leaky bucket: its level, as of `at` (ms, any monotonic clock). */
class Bucket {
  private level = 0;
  private at = 0;

  constructor(private readonly perSecond: number) {}

  /** The level at `nowMs`, after draining since the last message. */
  private drained(nowMs: number): number {
    const elapsed = nowMs - this.at;
    const level = elapsed > 0 ? this.level - (elapsed * this.perSecond) / 1000 : this.level;
    return level > 0 ? level : 0;
  }

  /** Adds one message at `nowMs`; the level after it. */
  add(nowMs: number): number {
    this.level = this.drained(nowMs) + 1;
    this.at = nowMs;
    return this.level;
  }

  /** Whether it has drained completely by `nowMs`. */
  empty(nowMs: number): boolean {
    return this.drained(nowMs) === 0;
  }

  /** Adds one message unless that would pass one second's worth; whether it was added. */
  tryAdd(nowMs: number): boolean {
    const level = this.drained(nowMs) + 1;
    if (level > this.perSecond) return false;
    this.level = level;
    this.at = nowMs;
    return true;
  }
}

/** A key's bucket on this thread, with the connections sharing it. */
interface KeyBucket {
  readonly bucket: Bucket;
  connections: number;
}

/** One connection's share: its own bucket and its key's. */
export class ConnectionRate {
  readonly own: Bucket;

  constructor(
    perSecond: number,
    readonly key: KeyBucket,
    readonly keyId: string,
  ) {
    this.own = new Bucket(perSecond);
  }
}

/** The key buckets are swept for drained ones when their number reaches this (or twice what the last sweep kept). */
const MIN_SWEEP_AT = 64;

export class MessageRates {
  private readonly keys = new Map<string, KeyBucket>();
  private sweepAt = MIN_SWEEP_AT;

  constructor(
    /** Messages one connection may send per second (STREAM_MAX_MESSAGES_PER_SECOND). */
    readonly perConnection: number,
    /** Messages one key's connections on this thread may send per second together (STREAM_MAX_KEY_MESSAGES_PER_SECOND). */
    readonly perKey: number,
  ) {}

  /**
   * A connection of the key `keyId` (its SHA-256: the key's identity) opened at `nowMs`: its rate, to pass to
   * `take`, and to `closed` once.
   */
  opened(keyId: string, nowMs: number): ConnectionRate {
    let key = this.keys.get(keyId);
    if (key === undefined) {
      if (this.keys.size >= this.sweepAt) this.sweep(nowMs);
      this.keys.set(keyId, (key = { bucket: new Bucket(this.perKey), connections: 0 }));
    }
    key.connections++;
    return new ConnectionRate(this.perConnection, key, keyId);
  }

  /** The connection closed (its key's bucket stays until it has drained). */
  closed(rate: ConnectionRate): void {
    rate.key.connections--;
  }

  /** Drops the buckets of keys without connections that have drained. */
  private sweep(nowMs: number): void {
    for (const [keyId, key] of this.keys) if (key.connections === 0 && key.bucket.empty(nowMs)) this.keys.delete(keyId);
    this.sweepAt = Math.max(MIN_SWEEP_AT, 2 * this.keys.size);
  }

  /** A message arrived on the connection at `nowMs` (a monotonic clock, ms). */
  take(rate: ConnectionRate, nowMs: number): MessageVerdict {
    const level = rate.own.add(nowMs);
    if (level > 2 * this.perConnection) return "close";
    if (level > this.perConnection) return "refuse-connection";
    return rate.key.bucket.tryAdd(nowMs) ? "take" : "refuse-key";
  }

  /** Key buckets kept on this thread (tests, diagnostics). */
  get keysHeld(): number {
    return this.keys.size;
  }
}
