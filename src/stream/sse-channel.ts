/**
 * The writing side of one SSE response (an HTTP response uWS keeps open,
 * written in chunks). While the socket takes what is written, each event is
 * handed to uWS at once; once uWS reports backpressure (it holds the rest of
 * that write), later events wait in this channel's own queue until the socket
 * drains. The bytes held (uWS's share counted as the size of the write that
 * backed up) are capped: past STREAM_MAX_BUFFER_BYTES the client is a slow
 * consumer and the connection is closed. uWS itself closes a connection whose
 * pending writes do not drain within 10 s.
 */
import type { HttpResponse } from "uWebSockets.js";

/** Written when the socket drains with nothing queued: makes uWS send what it holds (a comment line; clients skip it). */
const DRAIN = Buffer.from(":\n", "latin1");

export class SseChannel {
  /** Events waiting for the socket; null while it takes writes at once. */
  private queue: Buffer[] | null = null;
  /** Bytes not yet taken by the socket (approximately: see the module comment). */
  private held = 0;
  private done = false;
  /** Passed its cap: takes nothing more. */
  private full = false;
  private watching = false;

  constructor(
    private readonly res: HttpResponse,
    private readonly maxHeldBytes: number,
    /** The channel passed its cap (the hub closes it). */
    private readonly overflowed: (channel: SseChannel) => void,
  ) {}

  get closed(): boolean {
    return this.done;
  }

  /** Writes one event (or comment); `corked`: inside a uWS callback that corked this response already. */
  write(bytes: Buffer, corked = false): void {
    if (this.done || this.full) return;
    if (this.queue !== null) {
      this.queue.push(bytes);
      this.held += bytes.length;
      if (this.held > this.maxHeldBytes) this.overflow();
      return;
    }
    let ok = true;
    if (corked) ok = this.res.write(bytes);
    else
      this.res.cork(() => {
        ok = this.res.write(bytes);
      });
    if (ok) return;
    // uWS holds the rest of this write: queue from now on until the socket drains.
    this.queue = [];
    this.held = bytes.length;
    this.watch();
    if (this.held > this.maxHeldBytes) this.overflow();
  }

  /** Past the cap: nothing more is queued (what was is dropped), and the hub closes the connection. */
  private overflow(): void {
    this.full = true;
    this.queue = [];
    this.overflowed(this);
  }

  private watch(): void {
    if (this.watching) return;
    this.watching = true;
    this.res.onWritable(() => {
      if (this.done || this.full || this.queue === null) return true;
      const pending = this.queue.length === 0 ? DRAIN : Buffer.concat(this.queue);
      const ok = this.res.write(pending);
      if (ok) {
        this.queue = null;
        this.held = 0;
      } else {
        this.queue = [];
        this.held = pending.length;
      }
      return true;
    });
  }

  /**
   * Ends the response after what is queued (graceful: shutdown, drain, a revoked key): the terminating
   * zero-length chunk follows the last event's chunk, nothing else. Never `end(…, true)`: once the body has
   * started, uWS writes its `Connection: close` header line into the chunked body (HttpResponse::internalEnd),
   * which no client can parse. The connection stays a keep-alive one; a draining thread closes it after.
   */
  end(): void {
    if (this.done) return;
    this.done = true;
    const queued = this.queue;
    this.queue = null;
    this.res.cork(() => {
      if (queued !== null && queued.length > 0) this.res.write(Buffer.concat(queued));
      this.res.end();
    });
  }

  /** Closes the connection at once (a slow consumer: what is queued is dropped); uWS then runs the abort handler. */
  close(): void {
    if (this.done) return;
    this.done = true;
    this.queue = null;
    this.res.close();
  }

  /** The client went away (the response's abort handler): nothing may touch the response any more. */
  aborted(): void {
    this.done = true;
    this.queue = null;
  }
}
