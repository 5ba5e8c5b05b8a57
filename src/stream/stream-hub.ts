/**
 * A serving thread's streams (GET /v1/stream, live.md §13): one way in
 * (`open`, then the transport's `socketOpened` or `eventsStarted`), one way out
 * (`closed`), and what the thread's swaps publish to them. The hub wires its
 * parts and decides nothing they decide:
 *
 *   publication.ts      swaps wait for every thread, then go out in order, in slices (decisions 006, 008)
 *   fan-out.ts          a publication's events written to a sink, shard by shard (decisions 007, 008)
 *   subscriptions.ts    the registry of held topics; one topic diff for subscribe, re-scope and drop
 *   owed-answers.ts     openings and topic changes that wait for the fan-out under way
 *   replay.ts           what a stream opening with `since` missed (pure)
 *   slow-consumers.ts   slow consumers closed (decision 009)
 *   access-while-open.ts  keys reloads and expiries: re-scoped or revoked (decision 012)
 *   open-streams.ts     the open streams, their shards and heartbeats
 *   stream-outlet.ts    the uWS side: a connection's WebSocket or SSE channel, the app's pub/sub
 *
 * Opening: the `subscribed` event first (its topics, the published position), then, with `since`, the replay.
 * Drain and shutdown: the fan-out under way is finished at once, then every connection is closed after its
 * events (WebSocket 1001, SSE end of response).
 */
import type { HttpResponse, TemplatedApp, WebSocket } from "uWebSockets.js";
import type { ApiError } from "../api/errors.js";
import type { KeyEntry, KeyStore } from "../access/key-store.js";
import type { Logger } from "../log/logger.js";
import type { ServingSnapshot } from "../serving/serving-snapshot.js";
import { AccessWhileOpen } from "./access-while-open.js";
import { CLOSE_GOING_AWAY } from "./close-codes.js";
import { FanOut } from "./fan-out.js";
import { KeyStreams } from "./key-streams.js";
import { OpenStreams } from "./open-streams.js";
import { OwedAnswers } from "./owed-answers.js";
import { Publication } from "./publication.js";
import { replayEvents } from "./replay.js";
import { SlowConsumers } from "./slow-consumers.js";
import { SSE_OPENING } from "./sse.js";
import { SseChannel } from "./sse-channel.js";
import { NO_TOPICS, StreamConnection, topicTexts, type StreamOpening } from "./stream-connection.js";
import { errorEventJson, subscribedEventJson, type StreamEventType, type StreamTransport } from "./stream-events.js";
import type { StreamLimits } from "./stream-limits.js";
import { AppSink, ChannelOutlet, SocketOutlet, type StreamOutlet } from "./stream-outlet.js";
import { Subscriptions } from "./subscriptions.js";
import { uwsTopics, type Topic } from "./topics.js";

/** What the hub records (the serving thread's shared metrics slice). */
export interface StreamMetrics {
  streamOpened(transport: StreamTransport, delta: 1 | -1): void;
  streamEvents(type: StreamEventType, n: number): void;
  streamDelay(seconds: number): void;
  streamSlowConsumer(): void;
}

export interface StreamHubOptions {
  readonly limits: StreamLimits;
  /** Open streams per key quota slot, shared by the instance's threads (key-streams.ts). */
  readonly streamCounters: SharedArrayBuffer;
  readonly keySlots: Readonly<Record<string, number>>;
  /** The keys in force (replaced by `keysChanged`). */
  readonly keys: KeyStore;
  /** The usual error object of an ApiError (the HTTP edge's, so stream errors match the HTTP refusals). */
  readonly errorObjectOf: (error: ApiError) => object;
  readonly metrics: StreamMetrics;
  readonly log: Logger;
}

export class StreamHub {
  readonly limits: StreamLimits;
  private readonly keyStreams: KeyStreams;
  private readonly subscriptions = new Subscriptions();
  /** The app whose pub/sub the fan-out publishes to (`attach`), and the SSE channels. */
  private readonly sink = new AppSink();
  private readonly publication: Publication;
  private readonly owed = new OwedAnswers();
  private readonly streams: OpenStreams;
  private readonly consumers: SlowConsumers;
  private readonly access: AccessWhileOpen;
  private stopping = false;
  private readonly metrics: StreamMetrics;
  private readonly log: Logger;

  constructor(options: StreamHubOptions) {
    const { limits, metrics, log } = options;
    this.limits = limits;
    this.metrics = metrics;
    this.log = log;
    this.keyStreams = new KeyStreams(options.streamCounters, options.keySlots, limits.maxConnectionsPerKey);
    const fanOut = new FanOut(this.subscriptions.registry, this.sink, limits.maxAddresses, (type, n) => metrics.streamEvents(type, n));
    this.publication = new Publication({
      steps: (entry) => fanOut.steps(entry),
      hooks: {
        between: () =>
          this.owed.settle(
            (conn) => this.startCorked(conn),
            (conn) => this.corked(conn, () => this.payOwed(conn)),
          ),
        delay: (seconds) => metrics.streamDelay(seconds),
        failed: (error) => log.error({ event: "stream-publish-failed", err: error }, "publishing stream events failed"),
      },
    });
    this.consumers = new SlowConsumers(limits.maxBufferBytes, {
      found: (conn) => {
        metrics.streamSlowConsumer();
        log.info(
          { event: "stream-slow-consumer", transport: conn.transport, key: conn.key.id },
          "closing a stream whose client does not read (slow-consumer)",
        );
      },
      silence: (conn) => {
        this.subscriptions.hold(conn, NO_TOPICS); // its close frame follows what it was sent
        this.owed.forget(conn);
      },
      end: (conn, code, reason) => this.end(conn, code, reason),
    });
    this.streams = new OpenStreams(() => this.consumers.cutLate());
    this.access = new AccessWhileOpen(
      options.keys,
      this.keyStreams,
      options.errorObjectOf,
      {
        rescope: (conn, readable) => this.subscriptions.rescope(conn, readable),
        forget: (conn) => this.owed.forget(conn),
        send: (conn, type, position, json) => this.send(conn, type, position, json),
        end: (conn, code, reason) => this.end(conn, code, reason),
      },
      log,
    );
  }

  /** The app whose WebSockets this hub publishes to. */
  attach(app: TemplatedApp): void {
    this.sink.app = app;
  }

  /** The position streams opening now start at: what every thread serves. */
  get position(): string {
    return this.publication.position;
  }

  /** Open streams of this thread. */
  get openStreams(): number {
    return this.streams.count;
  }

  // ------------------------------------------------------------------ snapshots

  /** This thread serves `snapshot` from now on: its change sets wait for `publish`. */
  swapped(snapshot: ServingSnapshot): void {
    this.publication.swapped(snapshot);
  }

  /** Every thread serves publication `publication`: the change sets of every snapshot up to it are published, in order. */
  publish(publication: number): void {
    this.publication.confirm(publication);
  }

  // ------------------------------------------------------------------ one way in, one way out

  /**
   * A stream admitted for `key` (the HTTP edge admitted the request and read its opening): it takes one of the
   * key's places (throws 429 RATE_LIMIT_EXCEEDED past STREAM_MAX_CONNECTIONS_PER_KEY). Its transport then
   * opens it (`socketOpened`, `eventsStarted`), or it is given back (`cancel`).
   */
  open(transport: StreamTransport, key: KeyEntry, maskedKey: string, opening: StreamOpening): StreamConnection {
    return new StreamConnection(transport, key, maskedKey, this.keyStreams.take(key.id), opening);
  }

  /** An admitted stream that never opened (the upgrade or the response did not happen): its key's place is given back. */
  cancel(conn: StreamConnection): void {
    if (conn.phase === "admitted") this.keyStreams.release(conn.keySlot);
  }

  /** Its WebSocket opened (uWS `open`): its topics, `subscribed`, the replay. */
  socketOpened(conn: StreamConnection, ws: WebSocket<unknown>): void {
    this.openOn(conn, new SocketOutlet(ws, this.streams.nextShard()));
    if (this.stopping) this.end(conn, CLOSE_GOING_AWAY, "going away");
    else this.startOrWait(conn);
  }

  /**
   * Its SSE response starts (its status line and headers are written): the channel, the opening comment,
   * `subscribed`, the replay. `ended` is called once the response is complete (ended here, or aborted).
   */
  eventsStarted(conn: StreamConnection, res: HttpResponse, ended: () => void): { aborted(): void } {
    const channel = new SseChannel(res, this.limits.maxBufferBytes, () => this.consumers.overflowed(conn));
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      this.closed(conn);
      ended();
    };
    this.openOn(conn, new ChannelOutlet(channel, settle));
    channel.write(SSE_OPENING, true);
    if (this.stopping) this.end(conn, CLOSE_GOING_AWAY, "going away");
    else this.startOrWait(conn);
    return {
      aborted: () => {
        channel.aborted();
        settle();
      },
    };
  }

  /** A connection closed (WebSocket `close`, SSE end or abort): its topics and its key's place are given back. */
  closed(conn: StreamConnection): void {
    if (conn.outlet === null) return; // never opened, or closed already
    conn.phase = "closed";
    this.owed.forget(conn);
    this.access.untrack(conn);
    this.subscriptions.drop(conn);
    this.keyStreams.release(conn.keySlot);
    this.consumers.forget(conn);
    this.streams.delete(conn);
    this.metrics.streamOpened(conn.transport, -1);
    conn.outlet = null;
  }

  private openOn(conn: StreamConnection, outlet: StreamOutlet): void {
    conn.outlet = outlet;
    conn.phase = "waiting";
    this.streams.add(conn);
    this.metrics.streamOpened(conn.transport, 1);
    this.access.track(conn);
  }

  /** Starts the stream now, or once the published mark has come and the fan-out under way is out. */
  private startOrWait(conn: StreamConnection): void {
    if (this.publication.waits) this.owed.startLater(conn);
    else this.startCorked(conn);
  }

  /**
   * `start` with a WebSocket's sends corked into as few writes as they fill (a WebSocket upgraded after an
   * asynchronous admission opens outside uWS's cork; one already corked just runs it).
   */
  private startCorked(conn: StreamConnection): void {
    this.corked(conn, () => this.start(conn));
  }

  /** Holds the connection's topics, sends `subscribed` and, with `since`, the replay. */
  private start(conn: StreamConnection): void {
    this.subscriptions.hold(conn, conn.topics);
    const since = conn.opening?.since ?? null;
    conn.opening = null;
    conn.phase = "open";
    const position = this.position;
    this.send(conn, "subscribed", position, subscribedEventJson(topicTexts(conn.topics), position));
    const published = this.publication.latest;
    if (since !== null && conn.sending && published !== null)
      for (const event of replayEvents(published, uwsTopics(conn.held, conn.readable), since, this.limits.maxAddresses))
        this.send(conn, event.type, event.position, event.json);
    this.payOwed(conn);
  }

  // ------------------------------------------------------------------ messages and answers

  /**
   * Replaces the connection's topics (subscribe and unsubscribe messages: the
   * HTTP edge validated and counted them) and answers `subscribed`.
   */
  setTopics(conn: StreamConnection, topics: readonly Topic[]): void {
    if (!conn.sending) return;
    conn.topics = topics;
    const texts = topicTexts(topics);
    const answer = () => this.send(conn, "subscribed", this.position, subscribedEventJson(texts, this.position));
    if (this.owed.owe(conn, answer, this.publication.busy)) return;
    this.subscriptions.hold(conn, topics);
    answer();
  }

  /** An `error` event (`error`: the usual error object); after the answers the connection is still owed. */
  sendError(conn: StreamConnection, error: object): void {
    const json = errorEventJson(error);
    const answer = () => this.send(conn, "error", null, json);
    if (!this.owed.owe(conn, answer, this.publication.busy)) answer();
  }

  /** The connection's topic changes and answers that waited (the topics first: every answer names the position after them). */
  private payOwed(conn: StreamConnection): void {
    const owed = conn.owed;
    if (owed === null) return;
    conn.owed = null;
    if (!conn.sending) return;
    this.subscriptions.hold(conn, conn.topics);
    for (const answer of owed) answer();
  }

  /** One event to one connection. */
  private send(conn: StreamConnection, type: StreamEventType, position: string | null, json: Buffer | string): void {
    if (!conn.sending) return;
    conn.outlet?.send(type, position, json);
    this.metrics.streamEvents(type, 1);
  }

  /** Runs `sends` corked on the connection's socket (at once when it has none). */
  private corked(conn: StreamConnection, sends: () => void): void {
    const outlet = conn.outlet;
    if (outlet === null) sends();
    else outlet.cork(sends);
  }

  // ------------------------------------------------------------------ keys, consumers, closing

  /** The keys file changed: the key-id → slot mapping, then each open connection checked (access-while-open.ts). */
  keysChanged(keys: KeyStore, keySlots: Readonly<Record<string, number>>, now: number): void {
    this.keyStreams.setSlots(keySlots);
    this.access.keysChanged(keys, now);
  }

  /** uWS dropped a message for this WebSocket: its unsent bytes passed STREAM_MAX_BUFFER_BYTES (uWS's maxBackpressure). */
  dropped(conn: StreamConnection): void {
    this.consumers.dropped(conn);
  }

  /** uWS sent some of a WebSocket's unsent bytes: a slow consumer waiting to be closed may now take its close frame. */
  drained(conn: StreamConnection): void {
    this.consumers.drained(conn);
  }

  /** Ends a stream after what it was sent (WebSocket close frame `code`/`reason`: its close handler gives it back; SSE end). */
  private end(conn: StreamConnection, code: number, reason: string): void {
    const outlet = conn.outlet;
    if (outlet === null) return;
    try {
      outlet.end(code, reason);
    } catch (error) {
      this.log.warn({ event: "stream-close-failed", err: error }, "closing a stream failed");
    }
  }

  /** Drain and shutdown: every stream is closed after what is enqueued (WebSocket 1001, SSE end); new ones are closed at once. */
  closeAll(): void {
    this.publication.finish(); // what every thread serves goes out before the close
    this.stopping = true;
    this.streams.stop();
    this.access.stop();
    for (const conn of this.streams.all()) this.end(conn, CLOSE_GOING_AWAY, "going away");
  }
}
