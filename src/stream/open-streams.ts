/**
 * A serving thread's open streams, by transport, and what runs while some are
 * open: the SSE heartbeat (a comment every SSE_PING_INTERVAL_MS; uWS pings
 * idle WebSockets itself) and the check of slow WebSockets waiting for room for
 * their close frame. WebSockets get their fan-out shard here, round robin as
 * they open.
 */
import { FANOUT_SHARDS } from "./fan-out.js";
import type { StreamConnection } from "./stream-connection.js";
import { SSE_PING_INTERVAL_MS } from "./stream-limits.js";

/** How often slow WebSockets waiting for room for their close frame are checked against their deadline. */
const SLOW_CLOSE_CHECK_MS = 1000;

export class OpenStreams {
  private readonly sockets = new Set<StreamConnection>();
  private readonly channels = new Set<StreamConnection>();
  /** The shard the next WebSocket gets. */
  private shard = 0;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(
    /** Once a second while streams are open (SlowConsumers.cutLate). */
    private readonly check: () => void,
  ) {}

  get count(): number {
    return this.sockets.size + this.channels.size;
  }

  /** The fan-out shard of the next WebSocket (round robin). */
  nextShard(): number {
    const shard = this.shard;
    this.shard = (this.shard + 1) % FANOUT_SHARDS;
    return shard;
  }

  /** A stream's transport opened: the timers run (unless the thread drains). */
  add(conn: StreamConnection): void {
    (conn.transport === "websocket" ? this.sockets : this.channels).add(conn);
    this.runTimers();
  }

  /** A stream closed: the timers stop with the last one. */
  delete(conn: StreamConnection): void {
    (conn.transport === "websocket" ? this.sockets : this.channels).delete(conn);
    if (this.count === 0) this.stopTimers();
  }

  /** Every open stream, WebSockets first (a copy: closing them changes the sets). */
  all(): StreamConnection[] {
    return [...this.sockets, ...this.channels];
  }

  /** Drain and shutdown: the timers stop for good. */
  stop(): void {
    this.stopped = true;
    this.stopTimers();
  }

  private runTimers(): void {
    if (this.timers.length > 0 || this.stopped) return;
    const ping = setInterval(() => {
      for (const conn of [...this.channels]) conn.outlet?.heartbeat();
    }, SSE_PING_INTERVAL_MS);
    const check = setInterval(this.check, SLOW_CLOSE_CHECK_MS);
    ping.unref();
    check.unref();
    this.timers = [ping, check];
  }

  private stopTimers(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }
}
