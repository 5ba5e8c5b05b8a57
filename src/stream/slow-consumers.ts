/**
 * Slow consumers (live.md §13; decision 009): a WebSocket whose unsent bytes
 * pass STREAM_MAX_BUFFER_BYTES (uWS's maxBackpressure: uWS drops the message
 * and calls `dropped`) gets nothing more and is closed with 4008
 * `slow-consumer` once the close frame fits behind what it holds (cut after
 * SLOW_CLOSE_GRACE_MS otherwise); an SSE connection is closed when its queue
 * passes the same limit. A slow consumer is closed on the next turn, never
 * from inside a uWS callback: uWS's pub/sub drain runs `dropped`, and ending a
 * socket there frees its subscriber mid-iteration; an SSE write may run inside
 * its response's cork.
 */
import { CLOSE_SLOW_CONSUMER, SLOW_CONSUMER_REASON } from "./close-codes.js";
import type { StreamConnection } from "./stream-connection.js";

/** How long a slow WebSocket may take to drain enough for its close frame before it is cut without one. */
export const SLOW_CLOSE_GRACE_MS = 10_000;

/** What finding and closing a slow consumer does to the rest of the thread. */
export interface SlowConsumerHooks {
  /** It was found slow (counted and logged). */
  found(conn: StreamConnection): void;
  /** A slow WebSocket, on the next turn: it gets nothing more (its topics and what it was owed go now). */
  silence(conn: StreamConnection): void;
  /** Ends it with a close frame, behind what it was sent. */
  end(conn: StreamConnection, code: number, reason: string): void;
}

export class SlowConsumers {
  /** Closes to run on the next turn. */
  private readonly toClose: Array<() => void> = [];
  private closeScheduled = false;
  /** Slow WebSockets waiting for room for their close frame, with the time they are cut at instead. */
  private readonly closing = new Map<StreamConnection, number>();

  constructor(
    /** STREAM_MAX_BUFFER_BYTES. */
    private readonly maxBufferBytes: number,
    private readonly hooks: SlowConsumerHooks,
    private readonly nextTurn: (run: () => void) => void = setImmediate,
    private readonly now: () => number = Date.now,
  ) {}

  /** uWS dropped a message for this WebSocket: its unsent bytes passed the limit. */
  dropped(conn: StreamConnection): void {
    if (!conn.sending) return;
    this.slow(conn, () => {
      if (conn.phase === "closed") return;
      this.hooks.silence(conn);
      this.endSocket(conn);
    });
  }

  /** uWS sent some of a WebSocket's unsent bytes: a slow consumer waiting to be closed may now take its close frame. */
  drained(conn: StreamConnection): void {
    if (this.closing.has(conn)) this.endSocket(conn);
  }

  /** An SSE connection's queue passed the limit (its channel takes nothing more). */
  overflowed(conn: StreamConnection): void {
    if (!conn.sending) return;
    this.slow(conn, () => conn.outlet?.cut());
  }

  /** Once a second while streams are open: slow WebSockets that could not take their close frame in time are cut without one. */
  cutLate(): void {
    const now = this.now();
    for (const [conn, deadline] of this.closing) {
      if (now <= deadline) continue;
      this.closing.delete(conn);
      conn.outlet?.cut(); // no close frame: the client never took what was sent before it
    }
  }

  /** The connection closed. */
  forget(conn: StreamConnection): void {
    this.closing.delete(conn);
  }

  /** Nothing more is sent to it; it is closed on the next turn. */
  private slow(conn: StreamConnection, close: () => void): void {
    conn.stopSending();
    this.hooks.found(conn);
    this.toClose.push(close);
    if (this.closeScheduled) return;
    this.closeScheduled = true;
    this.nextTurn(() => {
      this.closeScheduled = false;
      for (const pending of this.toClose.splice(0)) pending();
    });
  }

  /**
   * Closes a slow WebSocket with 4008 once uWS can queue the close frame (behind what the socket holds: a
   * client that reads again gets every event it was sent, then the close); until then it waits, until its
   * deadline.
   */
  private endSocket(conn: StreamConnection): void {
    if ((conn.outlet?.buffered() ?? 0) <= this.maxBufferBytes) {
      this.closing.delete(conn);
      this.hooks.end(conn, CLOSE_SLOW_CONSUMER, SLOW_CONSUMER_REASON);
    } else if (!this.closing.has(conn)) this.closing.set(conn, this.now() + SLOW_CLOSE_GRACE_MS);
  }
}
