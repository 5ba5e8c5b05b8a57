/**
 * A serving thread's streams (GET /v1/stream, live.md §13): its WebSocket and
 * SSE connections, the topics they hold, and what each swap publishes to them.
 *
 * - Publication: every snapshot the thread swaps in waits here until the
 *   supervisor says every thread serves it (`publish`); then each change set it
 *   introduced is published, once per thread: its `changes` event encoded once
 *   and published to `changes:<chain>`, and for the pools and tokens it touched
 *   that some connection of this thread holds (the smaller of the chain's held
 *   records and the set's lists is walked), one event each. WebSockets get the
 *   bytes through uWS pub/sub (no per-subscriber work here); SSE connections are
 *   written the same bytes framed once per event. The events go in slices
 *   (FANOUT_SLICE_COST: their bytes times their holders, what uWS's drain then
 *   writes), one slice per turn of the event loop, so the thread answers
 *   requests between them. WebSockets are spread over FANOUT_SHARDS shards
 *   (each holds a topic as `<topic>#<shard>` in uWS), and a slice sends whole
 *   shards: all of a connection's events of a swap leave in one write. One publication at a time: events keep swap order
 *   per connection. Its position becomes the published one once all its events
 *   are out: a stream that opens meanwhile, and a subscribe or unsubscribe
 *   message, wait until then (the connection keeps the topics it held through
 *   the publication's events, then gets its answer at the new position).
 * - Opening: the `subscribed` event first (its topics, the published position),
 *   then, with `since`, what the connection missed (src/query/resume.ts): per
 *   chain it holds, the `changes` events after the position (or `resync`), then
 *   one event with the current state of each held pool or token that changed.
 * - Slow consumers: a WebSocket whose unsent bytes pass STREAM_MAX_BUFFER_BYTES
 *   (uWS's maxBackpressure: uWS drops the message and calls `dropped`) gets
 *   nothing more and is closed with 4008 `slow-consumer` once the close frame
 *   fits behind what it holds (cut after 10 s otherwise); an SSE connection is
 *   closed when its queue passes the same limit. A burst larger than the limit
 *   (one swap's events for a connection) closes even a fast reader: the limit
 *   must exceed the largest burst a client may get (documented).
 * - Heartbeats: uWS pings idle WebSockets; SSE connections get a comment every 15 s.
 * - Drain and shutdown: the fan-out under way is finished at once, then every
 *   connection is closed after its events (WebSocket 1001, SSE end of response).
 * - Access while open: a stream lives only as long as its key may hold it.
 *   On every keys-file reload (`keysChanged`) each open connection is checked
 *   as a request with its key would be now (src/access/reauthorize.ts), and
 *   when the earliest `expiresAt` among the keys holding streams passes, that
 *   key's connections are: a refused one gets an `error` event and is closed
 *   (WebSocket 4401 or 4403 with the error code as reason, SSE end of
 *   response). Connections are grouped by key (key-watch.ts), so an expiry
 *   touches only its key's; nothing of this runs per event or per request.
 */
import type { HttpResponse, TemplatedApp, WebSocket } from "uWebSockets.js";
import { ApiError } from "../api/errors.js";
import type { KeyEntry, KeyStore } from "../access/key-store.js";
import { reauthorize } from "../access/reauthorize.js";
import { SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../chains/chains.js";
import type { Logger } from "../log/logger.js";
import { encodePosition, type Position } from "../query/positions.js";
import { chainMask } from "../query/token-query.js";
import { resumeChain } from "../query/resume.js";
import type { ServingSnapshot } from "../serving/serving-snapshot.js";
import type { ChangeSetRecord } from "../tables/change-sets.js";
import type { CompiledChain } from "../tables/compiled-chain.js";
import { findPool } from "../tables/pool-table.js";
import { columnBytes } from "../tables/shared-columns.js";
import { instanceOnChain, parseAddress, tokenInfoChunks } from "../tables/token-lookup.js";
import { listEntry, listIncludes, listLength } from "./address-lists.js";
import { KeyStreams } from "./key-streams.js";
import { KeyWatch } from "./key-watch.js";
import type { ConnectionRate } from "./message-rate.js";
import { sseEvent, SSE_OPENING, SSE_PING } from "./sse.js";
import { SseChannel } from "./sse-channel.js";
import {
  changesEventJson,
  errorEventJson,
  recordEventJson,
  resyncEventJson,
  subscribedEventJson,
  type StreamEventType,
  type StreamTransport,
} from "./stream-events.js";
import { CLOSE_GOING_AWAY, CLOSE_SLOW_CONSUMER, revocationCloseCode, SLOW_CONSUMER_REASON } from "./close-codes.js";
import { SSE_PING_INTERVAL_MS, type StreamLimits } from "./stream-limits.js";
import { TopicRegistry, type RegistryEntry } from "./topic-registry.js";
import { changesTopic, uwsTopics, type Topic } from "./topics.js";

/** What the hub records (the serving thread's shared metrics slice). */
export interface StreamMetrics {
  streamOpened(transport: StreamTransport, delta: 1 | -1): void;
  streamEvents(type: StreamEventType, n: number): void;
  streamDelay(seconds: number): void;
  streamSlowConsumer(): void;
}

const NO_TOPICS: readonly Topic[] = Object.freeze([]);

/** The position with no chain (nothing served yet). */
export const EMPTY_POSITION = encodePosition(new Map());

/** How often slow WebSockets waiting for room for their close frame are checked against their deadline. */
const SLOW_CLOSE_CHECK_MS = 1000;
/** How long a slow WebSocket may take to drain enough for its close frame before it is cut without one. */
const SLOW_CLOSE_GRACE_MS = 10_000;

/** One stream: a WebSocket's user data, or an SSE response's. */
export class StreamConnection {
  /**
   * The client's topics (canonical), in the order first subscribed: what its later subscribe and unsubscribe
   * messages build on. The opening request's until the stream starts; may run ahead of `held` while a fan-out
   * is under way (the change waits in `owed`).
   */
  topics: readonly Topic[];
  /** The topics the registry and uWS hold for it (nothing until the stream starts). */
  held: readonly Topic[] = NO_TOPICS;
  /** The topics of the opening request, until the stream starts. */
  requested: readonly Topic[];
  /** Answers (`subscribed`, `error`) that wait for the fan-out under way, in order; null when none. */
  owed: Array<() => void> | null = null;
  /** `subscribed` was sent. */
  started = false;
  /** Its fan-out shard (a WebSocket holds each topic as the shard's uWS topic: `shardTopic`). */
  shard = 0;
  /** `since` of the opening request, until the stream starts. */
  since: Position | null;
  /** Messages in a row that were not JSON (WebSocket); any JSON message, valid or not, resets it. */
  badMessages = 0;
  /** Its message rate (WebSocket: message-rate.ts, set by the HTTP edge as it opens). */
  rate: ConnectionRate | null = null;
  /** Closed, or being closed: nothing more is sent. */
  closed = false;
  ws: WebSocket<StreamConnection> | null = null;
  sse: SseChannel | null = null;
  /** SSE: completes the response once (gives the connection back, tells the HTTP edge). */
  settle: (() => void) | null = null;

  /** The chains `changes` stands for: the key's (a chainMask), kept up to date on keys-file reloads. */
  readable: number;
  /**
   * The key's entry: the one it was admitted with, then the one each keys-file reload found for its digest
   * (its chain restrictions apply to later subscriptions).
   */
  key: KeyEntry;

  constructor(
    readonly transport: StreamTransport,
    key: KeyEntry,
    /** The key's masked form (maskKey: what API_KEY_NOT_FOUND and the log show); the key itself is never kept. */
    readonly maskedKey: string,
    /** Where the key's place among its open streams is counted (KeyStreams), given back on close; follows the key's id on reloads. */
    public keySlot: number,
    requested: readonly Topic[],
    since: Position | null,
  ) {
    this.key = key;
    this.readable = readableChains(key);
    this.requested = requested;
    this.topics = requested;
    this.since = since;
  }
}

/** The chains a key may read, as a chainMask. */
function readableChains(key: KeyEntry): number {
  return chainMask(key.allowedChainIds ?? SUPPORTED_CHAIN_IDS_ASCENDING);
}

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

/** The uWS topic through which the WebSockets of `shard` hold `topic`. */
function shardTopic(topic: string, shard: number): string {
  return `${topic}#${shard}`;
}

/** What sending one event to one more holder costs beyond its bytes, counted as bytes (uWS's per-subscriber work). */
export const FANOUT_EVENT_OVERHEAD = 256;

/** A publication being fanned out: its events still to go. */
interface FanOut {
  readonly entry: Swapped;
  readonly steps: Generator<number, void>;
}

/** A snapshot swapped in and not yet published, with its pool tables (kept even if the store releases them meanwhile). */
interface Swapped {
  readonly snapshot: ServingSnapshot;
  readonly chains: ReadonlyMap<ChainId, CompiledChain>;
  /** When this thread swapped it in (epoch ms). */
  readonly swappedAt: number;
}

export class StreamHub {
  private app: TemplatedApp | null = null;
  private readonly registry = new TopicRegistry<SseChannel>();
  private readonly sockets = new Set<WebSocket<StreamConnection>>();
  private readonly channels = new Map<SseChannel, StreamConnection>();
  private readonly pending: Swapped[] = [];
  private published: Swapped | null = null;
  private publishedPublication = 0;
  private publishedPosition = EMPTY_POSITION;
  /** The highest publication every thread serves (the supervisor's last `publish`). */
  private confirmed = 0;
  /** The publication whose events are being sent, and what is left of them; null between fan-outs. */
  private fanning: FanOut | null = null;
  /** Started connections whose topic changes or answers wait for the fan-out under way. */
  private readonly owing = new Set<StreamConnection>();
  /** The shard the next WebSocket gets (round robin). */
  private nextShard = 0;
  /** The supervisor has given this thread its published mark (its first `publish`); until then streams wait. */
  private primed = false;
  private readonly unstarted: StreamConnection[] = [];
  /** Slow WebSockets to close on the next turn (never from inside uWS's pub/sub drain). */
  private readonly toClose: Array<() => void> = [];
  /** Slow WebSockets waiting for room for their close frame, with the time they are cut at instead. */
  private readonly closing = new Map<WebSocket<StreamConnection>, number>();
  private closeScheduled = false;
  private timers: NodeJS.Timeout[] = [];
  private stopping = false;
  readonly keyStreams: KeyStreams;
  /** Open connections by key: what a keys reload re-checks, what an expiry closes. */
  private readonly watch: KeyWatch<StreamConnection>;

  constructor(
    readonly limits: StreamLimits,
    streamCounters: SharedArrayBuffer,
    keySlots: Readonly<Record<string, number>>,
    /** The keys in force (replaced by `keysChanged`). */
    keys: KeyStore,
    /** The usual error object of an ApiError (the HTTP edge's, so stream errors match the HTTP refusals). */
    private readonly errorObjectOf: (error: ApiError) => object,
    private readonly metrics: StreamMetrics,
    private readonly log: Logger,
  ) {
    this.keyStreams = new KeyStreams(streamCounters, keySlots, limits.maxConnectionsPerKey);
    this.watch = new KeyWatch<StreamConnection>(
      keys,
      (conn, current, now) => this.recheck(conn, current, now),
      (conn) => !conn.closed && (conn.ws !== null || conn.sse !== null),
    );
  }

  /** The app whose WebSockets this hub publishes to. */
  attach(app: TemplatedApp): void {
    this.app = app;
  }

  /** The SSE heartbeat and the slow-consumer check run while some stream is open. */
  private runTimers(): void {
    if (this.timers.length > 0 || this.stopping) return;
    const ping = setInterval(() => {
      for (const channel of [...this.channels.keys()]) channel.write(SSE_PING);
    }, SSE_PING_INTERVAL_MS);
    const check = setInterval(() => this.cutSlowSockets(), SLOW_CLOSE_CHECK_MS);
    ping.unref();
    check.unref();
    this.timers = [ping, check];
  }

  private stopTimers(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  /** The position streams opening now start at: what every thread serves. */
  get position(): string {
    return this.publishedPosition;
  }

  /** Open streams of this thread. */
  get openStreams(): number {
    return this.sockets.size + this.channels.size;
  }

  // ------------------------------------------------------------------ snapshots

  /** This thread serves `snapshot` from now on: its change sets wait for `publish`. */
  swapped(snapshot: ServingSnapshot): void {
    const publication = snapshot.changes.publication;
    if (publication <= this.publishedPublication) return;
    const entry: Swapped = { snapshot, chains: snapshot.hasPools ? snapshot.chains : new Map(), swappedAt: Date.now() };
    let at = this.pending.length;
    while (at > 0 && this.pending[at - 1].snapshot.changes.publication > publication) at--;
    if (at > 0 && this.pending[at - 1].snapshot.changes.publication === publication) this.pending[at - 1] = entry;
    else this.pending.splice(at, 0, entry);
  }

  /**
   * Every thread serves publication `publication`: the change sets of every snapshot up to it are published,
   * in order, in slices (`runFanOut`).
   */
  publish(publication: number): void {
    if (publication > this.confirmed) this.confirmed = publication;
    this.primed = true;
    if (this.fanning === null) this.runFanOut(FANOUT_SLICE_COST);
  }

  /**
   * Publishes confirmed snapshots' events until `budget` is spent (each event costs its bytes plus
   * FANOUT_EVENT_OVERHEAD, times its holders: what uWS's drain then writes), then goes on at the next turn of
   * the event loop, so requests are answered between slices (uWS sends what was published at the end of each
   * turn). One publication at a time, its events in order: a later swap's never overtake an earlier one's.
   * A publication's position becomes the published one (where streams opening now start) once all its events
   * are out; streams opening meanwhile and topic changes wait until then (`owe`).
   */
  private runFanOut(budget: number): void {
    let spent = 0;
    for (;;) {
      if (this.fanning === null) {
        this.settleWaiting();
        const next = this.pending[0];
        if (next === undefined || next.snapshot.changes.publication > this.confirmed) return;
        this.pending.shift();
        this.fanning = { entry: next, steps: this.fanOutSteps(next) };
      }
      const job = this.fanning;
      let step: IteratorResult<number, void>;
      try {
        step = job.steps.next();
      } catch (error) {
        this.log.error({ event: "stream-publish-failed", err: error }, "publishing stream events failed");
        step = { done: true, value: undefined };
      }
      if (step.done === true) {
        this.fanning = null;
        this.published = job.entry;
        this.publishedPublication = job.entry.snapshot.changes.publication;
        this.publishedPosition = job.entry.snapshot.changes.positionText ?? EMPTY_POSITION;
        if (job.entry.snapshot.changes.introduced.length > 0)
          this.metrics.streamDelay(Math.max(0, Date.now() - job.entry.swappedAt) / 1000);
        continue;
      }
      spent += step.value;
      if (spent < budget) continue;
      setImmediate(() => {
        if (this.fanning === job) this.runFanOut(FANOUT_SLICE_COST);
      });
      return;
    }
  }

  /** Between publications: streams that waited start at the published position; topic changes that waited apply. */
  private settleWaiting(): void {
    if (this.unstarted.length > 0)
      for (const conn of this.unstarted.splice(0)) if (!conn.closed && (conn.ws !== null || conn.sse !== null)) this.startCorked(conn);
    if (this.owing.size === 0) return;
    const owing = [...this.owing];
    this.owing.clear();
    for (const conn of owing) {
      const ws = conn.ws;
      if (ws === null) this.payOwed(conn);
      else ws.cork(() => this.payOwed(conn));
    }
  }

  /**
   * A publication's events, one step each (yielding its cost): first each event is built once (per change set
   * it introduced, its `changes` event, then the held pool and token topics it touched) and written to the
   * SSE connections holding it; then the WebSockets get them shard after shard, every event of a shard's
   * connections in the same slice (so uWS writes each connection's events of the publication at once: slicing
   * by topic would split them into as many writes as slices). Holders are looked up as each event goes
   * (connections close between slices; none is added: holds wait for the end).
   */
  private *fanOutSteps(entry: Swapped): Generator<number, void> {
    const byShard = new Map<number, Array<{ readonly holders: RegistryEntry<SseChannel>; readonly json: Buffer }>>();
    const built = (holders: RegistryEntry<SseChannel>, type: StreamEventType, position: string, json: Buffer): number => {
      const sse = holders.sse;
      let cost = json.length;
      if (sse !== null) {
        const framed = sseEvent(type, position, json);
        for (const channel of [...sse]) channel.write(framed);
        cost += sse.size * (framed.length + FANOUT_EVENT_OVERHEAD);
      }
      for (const shard of holders.shards.keys()) {
        let list = byShard.get(shard);
        if (list === undefined) byShard.set(shard, (list = []));
        list.push({ holders, json });
      }
      this.metrics.streamEvents(type, holders.count);
      return cost;
    };
    for (const { set, positionText } of entry.snapshot.changes.introduced) {
      if (this.registry.size === 0) break;
      const topic = this.registry.get(changesTopic(set.chainId).text);
      if (topic !== undefined) yield built(topic, "changes", positionText, changesEventJson(set, positionText, this.limits.maxAddresses));
      for (const kind of ["pool", "token"] as const)
        for (const [holders, isRemoved] of this.touched(kind, set)) {
          const record = isRemoved ? null : this.record(entry, kind, set.chainId, holders.topic.address!);
          yield built(holders, kind, positionText, recordEventJson(kind, positionText, set.chainId, holders.topic.address!, record));
        }
    }
    for (const shard of [...byShard.keys()].sort((a, b) => a - b)) {
      let cost = 0;
      for (const { holders, json } of byShard.get(shard)!) {
        const n = holders.shards.get(shard);
        if (n === undefined) continue; // its holders of this shard closed meanwhile
        this.app?.publish(shardTopic(holders.topic.text, shard), json, false, false);
        cost += n * (json.length + FANOUT_EVENT_OVERHEAD);
      }
      yield cost;
    }
  }

  /** The held pool (or token) topics of the set's chain that the set touched, and whether it removed them. */
  private *touched(kind: "pool" | "token", set: ChangeSetRecord): Generator<[RegistryEntry<SseChannel>, boolean], void> {
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

  /** A pool's or token's JSON as its REST route answers it, from `entry`'s tables; null when the chain's file no longer has it. */
  private record(entry: Swapped, kind: "pool" | "token", chainId: ChainId, address: string): Uint8Array[] | null {
    if (kind === "pool") {
      const chain = entry.chains.get(chainId);
      if (chain === undefined) return null;
      const i = findPool(chain.pools, address);
      return i < 0 ? null : [columnBytes(chain.pools.json, i)];
    }
    const ix = entry.snapshot.tokenIndex;
    const bytes = parseAddress(address);
    const i = bytes === null ? -1 : instanceOnChain(ix, chainId, bytes);
    if (i < 0) return null;
    const [head, tail] = tokenInfoChunks(ix, i);
    return [head, Buffer.from(tail)];
  }

  // ------------------------------------------------------------------ connections

  /** A WebSocket opened (uWS `open`): its topics, `subscribed`, the replay. */
  openWebSocket(ws: WebSocket<StreamConnection>): void {
    const conn = ws.getUserData();
    conn.ws = ws;
    conn.shard = this.nextShard;
    this.nextShard = (this.nextShard + 1) % FANOUT_SHARDS;
    this.sockets.add(ws);
    this.metrics.streamOpened("websocket", 1);
    this.runTimers();
    this.watch.track(conn);
    if (this.stopping) {
      this.closeSocket(ws, CLOSE_GOING_AWAY, "going away");
      return;
    }
    if (this.primed && this.fanning === null) this.startCorked(conn);
    else this.unstarted.push(conn); // started at the published position once the fan-out under way is out
  }

  /**
   * An SSE response starts (its status line and headers are written): the
   * channel, the opening comment, `subscribed`, the replay. `ended` is called
   * once the response is complete (ended here, or aborted).
   */
  openSse(conn: StreamConnection, res: HttpResponse, ended: () => void): { aborted(): void } {
    const channel = new SseChannel(res, this.limits.maxBufferBytes, (slow) => this.slowChannel(slow));
    conn.sse = channel;
    this.channels.set(channel, conn);
    this.metrics.streamOpened("sse", 1);
    this.runTimers();
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      this.closed(conn);
      ended();
    };
    conn.settle = settle;
    this.watch.track(conn);
    channel.write(SSE_OPENING, true);
    if (this.stopping) this.endChannel(conn);
    else if (this.primed && this.fanning === null) this.start(conn);
    else this.unstarted.push(conn);
    return {
      aborted: () => {
        channel.aborted();
        settle();
      },
    };
  }

  /**
   * `start` with a WebSocket's sends corked into as few writes as they fill (a WebSocket upgraded after an
   * asynchronous admission opens outside uWS's cork; one already corked just runs it).
   */
  private startCorked(conn: StreamConnection): void {
    const ws = conn.ws;
    if (ws === null) this.start(conn);
    else ws.cork(() => this.start(conn));
  }

  /** Holds the connection's topics, sends `subscribed` and, with `since`, the replay. */
  private start(conn: StreamConnection): void {
    conn.held = conn.topics = this.hold(conn, NO_TOPICS, conn.topics);
    conn.requested = NO_TOPICS;
    conn.started = true;
    this.send(conn, "subscribed", this.publishedPosition, subscribedEventJson(textsOf(conn.topics), this.publishedPosition));
    const since = conn.since;
    conn.since = null;
    if (since !== null && !conn.closed) this.replay(conn, since);
    this.payOwed(conn);
  }

  /**
   * Replaces the connection's topics (subscribe and unsubscribe messages: the
   * HTTP edge validated and counted them) and answers `subscribed`.
   */
  setTopics(conn: StreamConnection, topics: readonly Topic[]): void {
    if (conn.closed) return;
    conn.topics = topics;
    const texts = textsOf(topics);
    const answer = () => this.send(conn, "subscribed", this.publishedPosition, subscribedEventJson(texts, this.publishedPosition));
    if (this.owe(conn, answer)) return;
    conn.held = conn.topics = this.hold(conn, conn.held, topics);
    answer();
  }

  /** An `error` event (`error`: the usual error object); after the answers the connection is still owed. */
  sendError(conn: StreamConnection, error: object): void {
    const json = errorEventJson(error);
    const answer = () => this.send(conn, "error", null, json);
    if (!this.owe(conn, answer)) answer();
  }

  /**
   * While a fan-out is under way (or before the stream started) a topic change waits for its end: the
   * connection keeps the topics it held through every event of the publications being sent, then holds its
   * new ones and gets its `subscribed` answers at the position they were all sent at (nothing is missed nor
   * sent twice). Answers after a waiting one wait too. Returns whether `answer` waits.
   */
  private owe(conn: StreamConnection, answer: () => void): boolean {
    if (conn.owed === null && conn.started && this.fanning === null) return false;
    (conn.owed ??= []).push(answer);
    if (conn.started) this.owing.add(conn);
    return true;
  }

  /** The connection's topic changes and answers that waited (the topics first: every answer names the position after them). */
  private payOwed(conn: StreamConnection): void {
    const owed = conn.owed;
    if (owed === null) return;
    conn.owed = null;
    if (conn.closed) return;
    conn.held = conn.topics = this.hold(conn, conn.held, conn.topics);
    for (const answer of owed) answer();
  }

  /**
   * Subscribes the connection to what `next` stands for and away from what only
   * `before` did; returns `next` with each topic replaced by the registry's
   * shared one (one object per topic, whoever holds it).
   */
  private hold(conn: StreamConnection, before: readonly Topic[], next: readonly Topic[]): Topic[] {
    const was = new Map(uwsTopics(before, conn.readable).map((t) => [t.text, t]));
    const now = uwsTopics(next, conn.readable);
    const shared = new Map<string, Topic>();
    for (const topic of now) {
      if (was.delete(topic.text)) {
        shared.set(topic.text, this.registry.get(topic.text)?.topic ?? topic);
        continue;
      }
      shared.set(topic.text, this.registry.add(topic, conn.sse, conn.shard));
      conn.ws?.subscribe(shardTopic(topic.text, conn.shard));
    }
    for (const topic of was.values()) {
      this.registry.remove(topic, conn.sse, conn.shard);
      conn.ws?.unsubscribe(shardTopic(topic.text, conn.shard));
    }
    return next.map((t) => shared.get(t.text) ?? t);
  }

  /** A connection closed (WebSocket `close`, SSE end or abort): its topics and its key's place are given back. */
  closed(conn: StreamConnection): void {
    if (conn.ws === null && conn.sse === null) return;
    conn.closed = true;
    conn.owed = null;
    this.owing.delete(conn);
    this.watch.untrack(conn);
    for (const topic of uwsTopics(conn.held, conn.readable)) this.registry.remove(topic, conn.sse, conn.shard);
    this.keyStreams.release(conn.keySlot);
    if (conn.ws !== null) {
      this.sockets.delete(conn.ws);
      this.closing.delete(conn.ws);
      this.metrics.streamOpened("websocket", -1);
    } else if (conn.sse !== null) {
      this.channels.delete(conn.sse);
      this.metrics.streamOpened("sse", -1);
    }
    conn.ws = null;
    conn.sse = null;
    if (this.openStreams === 0) this.stopTimers();
  }

  /** One event to one connection. */
  private send(conn: StreamConnection, type: StreamEventType, position: string | null, json: Buffer | string): void {
    if (conn.closed) return;
    if (conn.ws !== null) conn.ws.send(json, false, false);
    else if (conn.sse !== null) conn.sse.write(sseEvent(type, position, typeof json === "string" ? Buffer.from(json) : json));
    this.metrics.streamEvents(type, 1);
  }

  /**
   * What a connection opening with `since` missed, per chain it holds (chains
   * ascending): the `changes` events after the position, or `resync`; then the
   * current state of each held pool or token that changed (all of a resync
   * chain's). Bounded by the connection's topics times the retained sets.
   */
  private replay(conn: StreamConnection, since: Position): void {
    const published = this.published;
    if (published === null) return;
    const held = uwsTopics(conn.held, conn.readable);
    const changeChains = new Set<ChainId>();
    const records = new Map<ChainId, Topic[]>();
    for (const topic of held) {
      const chainId = topic.chainId!;
      if (topic.kind === "changes") changeChains.add(chainId);
      else {
        let list = records.get(chainId);
        if (list === undefined) records.set(chainId, (list = []));
        list.push(topic);
      }
    }
    const running = new Map(since);
    const resumed = new Map<ChainId, readonly ChangeSetRecord[] | null>();
    for (const [chainId, sets] of published.snapshot.changes.history) {
      if (!changeChains.has(chainId) && !records.has(chainId)) continue;
      const found = resumeChain(sets, since.get(chainId));
      resumed.set(chainId, found);
      if (found === null) {
        running.set(chainId, sets[sets.length - 1].id);
        if (changeChains.has(chainId)) {
          const position = encodePosition(running);
          this.send(conn, "resync", position, resyncEventJson(chainId, position));
        }
        continue;
      }
      for (const set of found) {
        running.set(chainId, set.id);
        if (!changeChains.has(chainId)) continue;
        const position = encodePosition(running);
        this.send(conn, "changes", position, changesEventJson(set, position, this.limits.maxAddresses));
      }
    }
    if (records.size === 0) return;
    const position = encodePosition(running);
    for (const [chainId, topics] of records) {
      const found = resumed.get(chainId);
      if (found === undefined) continue; // the chain is not served here: nothing is known of it
      for (const topic of topics) {
        const kind = topic.kind as "pool" | "token";
        const address = topic.address!;
        const changed =
          found === null ||
          found.some((set) =>
            kind === "pool"
              ? listIncludes(set.poolsUpserted, address) || listIncludes(set.poolsRemoved, address)
              : listIncludes(set.tokensUpserted, address) || listIncludes(set.tokensRemoved, address),
          );
        if (!changed) continue;
        const record = this.record(published, kind, chainId, address);
        this.send(conn, kind, position, recordEventJson(kind, position, chainId, address, record));
      }
    }
  }

  // ------------------------------------------------------------------ access while open

  /**
   * The keys file changed (every serving thread gets the new store): each open connection is checked
   * against it; a refused one gets its `error` event and is closed, the others hold their key's new entry
   * (its chains: what `changes` stands for, what later subscriptions may name). O(open connections), plus
   * a walk of a connection's topics only when its key's chains changed.
   */
  keysChanged(keys: KeyStore, now: number): void {
    this.watch.keysChanged(keys, now);
  }

  /** Checks a connection against `keys` at `now`: true when it stays open (holding its key's new entry), else it is closed. */
  private recheck(conn: StreamConnection, keys: KeyStore, now: number): boolean {
    let entry: KeyEntry;
    try {
      entry = reauthorize(conn.key, conn.maskedKey, keys, now, "stream", (next) => this.heldChains(conn, next));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.revoke(conn, error);
      return false;
    }
    if (entry !== conn.key) {
      const readable = readableChains(entry);
      if (readable !== conn.readable) this.rescope(conn, readable);
      conn.key = entry;
    }
    // The reload may have given the key another id (and so another slot): its place among its open streams follows.
    const slot = this.keyStreams.slotOf(entry.id);
    if (slot !== conn.keySlot) {
      this.keyStreams.move(conn.keySlot, slot);
      conn.keySlot = slot;
    }
    return true;
  }

  /** The chains a connection names explicitly (its topics, or those it opens with), when `next` restricts them anew. */
  private heldChains(conn: StreamConnection, next: KeyEntry): number[] {
    const before = conn.key.allowedChainIds;
    const after = next.allowedChainIds!;
    if (before !== null && before.every((chainId) => after.includes(chainId))) return []; // nothing it held became forbidden
    const chains = new Set<number>();
    for (const topic of conn.topics) if (topic.chainId !== null) chains.add(topic.chainId);
    for (const topic of conn.requested) if (topic.chainId !== null) chains.add(topic.chainId);
    return [...chains].sort((a, b) => a - b);
  }

  /** `changes` of a connection now stands for the chains of `readable`: its uWS topics follow. */
  private rescope(conn: StreamConnection, readable: number): void {
    const was = new Map(uwsTopics(conn.held, conn.readable).map((t) => [t.text, t]));
    conn.readable = readable;
    for (const topic of uwsTopics(conn.held, readable)) {
      if (was.delete(topic.text)) continue;
      this.registry.add(topic, conn.sse, conn.shard);
      conn.ws?.subscribe(shardTopic(topic.text, conn.shard));
    }
    for (const topic of was.values()) {
      this.registry.remove(topic, conn.sse, conn.shard);
      conn.ws?.unsubscribe(shardTopic(topic.text, conn.shard));
    }
  }

  /** The connection's key may no longer hold it: the `error` event, then the close (WebSocket 4401/4403, SSE end). */
  private revoke(conn: StreamConnection, error: ApiError): void {
    this.log.info(
      { event: "stream-revoked", transport: conn.transport, key: conn.key.id, maskedKey: conn.maskedKey, code: error.code },
      `closing a stream its key may no longer hold (${error.code})`,
    );
    conn.owed = null; // it is closed: what waited goes, the error is sent now
    this.owing.delete(conn);
    this.send(conn, "error", null, errorEventJson(this.errorObjectOf(error)));
    const ws = conn.ws;
    if (ws !== null) this.closeSocket(ws, revocationCloseCode(error.status), error.code);
    else this.endChannel(conn);
  }

  // ------------------------------------------------------------------ slow consumers, closing

  /** uWS dropped a message for this WebSocket: its unsent bytes passed STREAM_MAX_BUFFER_BYTES (uWS's maxBackpressure). */
  dropped(ws: WebSocket<StreamConnection>): void {
    this.slowSocket(ws);
  }

  /** uWS sent some of a WebSocket's unsent bytes: a slow consumer waiting to be closed may now take its close frame. */
  drained(ws: WebSocket<StreamConnection>): void {
    if (this.closing.has(ws)) this.endSlowSocket(ws);
  }

  /** Once a second: slow WebSockets that could not take their close frame in time are cut without one. */
  private cutSlowSockets(): void {
    const now = Date.now();
    for (const [ws, deadline] of this.closing) {
      if (now <= deadline) continue;
      this.closing.delete(ws);
      ws.close(); // no close frame: the client never took what was sent before it
    }
  }

  private slowSocket(ws: WebSocket<StreamConnection>): void {
    const conn = ws.getUserData();
    if (conn.closed) return;
    this.slow(conn, () => {
      if (!this.sockets.has(ws)) return;
      // It gets nothing more: its topics go now (its close frame follows what it was sent).
      this.hold(conn, conn.held, NO_TOPICS);
      conn.held = conn.topics = NO_TOPICS;
      conn.owed = null;
      this.endSlowSocket(ws);
    });
  }

  /**
   * Closes a slow WebSocket with 4008 `slow-consumer` once uWS can queue the
   * close frame (behind what the socket holds: a client that reads again gets
   * every event it was sent, then the close); a socket that does not drain
   * enough within SLOW_CLOSE_GRACE_MS is cut without one.
   */
  private endSlowSocket(ws: WebSocket<StreamConnection>): void {
    if (ws.getBufferedAmount() <= this.limits.maxBufferBytes) {
      this.closing.delete(ws);
      this.closeSocket(ws, CLOSE_SLOW_CONSUMER, SLOW_CONSUMER_REASON);
    } else if (!this.closing.has(ws)) this.closing.set(ws, Date.now() + SLOW_CLOSE_GRACE_MS);
  }

  private slowChannel(channel: SseChannel): void {
    const conn = this.channels.get(channel);
    if (conn === undefined || conn.closed) return;
    this.slow(conn, () => {
      channel.close();
      conn.settle?.();
    });
  }

  /**
   * A slow consumer: nothing more is sent to it, and it is closed on the next
   * turn, never from inside a uWS callback (uWS's pub/sub drain runs `dropped`:
   * ending a socket there frees its subscriber mid-iteration; an SSE write
   * may run inside its response's cork).
   */
  private slow(conn: StreamConnection, close: () => void): void {
    conn.closed = true;
    this.metrics.streamSlowConsumer();
    this.log.info(
      { event: "stream-slow-consumer", transport: conn.transport, key: conn.key.id },
      "closing a stream whose client does not read (slow-consumer)",
    );
    this.toClose.push(close);
    if (this.closeScheduled) return;
    this.closeScheduled = true;
    setImmediate(() => {
      this.closeScheduled = false;
      for (const pending of this.toClose.splice(0)) pending();
    });
  }

  /** Ends a WebSocket with a close code (its close handler gives the connection back). */
  private closeSocket(ws: WebSocket<StreamConnection>, code: number, reason: string): void {
    if (!this.sockets.has(ws)) return;
    try {
      ws.end(code, reason);
    } catch (error) {
      this.log.warn({ event: "stream-close-failed", err: error }, "closing a stream failed");
    }
  }

  private endChannel(conn: StreamConnection): void {
    const channel = conn.sse;
    if (channel === null) return;
    channel.end();
    conn.settle?.();
  }

  /** Drain and shutdown: every stream is closed after what is enqueued (WebSocket 1001, SSE end); new ones are closed at once. */
  closeAll(): void {
    if (this.fanning !== null) this.runFanOut(Number.POSITIVE_INFINITY); // what every thread serves goes out before the close
    this.stopping = true;
    this.stopTimers();
    this.watch.stop();
    for (const ws of [...this.sockets]) this.closeSocket(ws, CLOSE_GOING_AWAY, "going away");
    for (const conn of [...this.channels.values()]) this.endChannel(conn);
  }
}

function textsOf(topics: readonly Topic[]): string[] {
  return topics.map((t) => t.text);
}
