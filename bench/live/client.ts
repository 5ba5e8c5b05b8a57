/**
 * The subscribers of `npm run bench:live` (bench/live/run.ts), in a process of
 * their own (forked, driven over IPC): opens WebSockets to GET /v1/stream with
 * the `ws` client, each with its own topics, and, for each push the parent
 * announces, records when every socket holds all the events it expects (the
 * chain's `changes` event and one `pool` event per followed pool), with the
 * `servedAt` of the `changes` event. Events are recognised by their first
 * bytes, without decoding or parsing them, so that the client side spends as
 * little CPU as it can on the shared cores: every event starts with
 * `{"type":"<type>","position":"<position>"` (src/stream/stream-events.ts writes
 * its keys in a fixed order), so a `pool` event of the push is one whose bytes
 * start with `{"type":"pool","position":"<the push's position>",` (the position
 * taken from the push's `changes` event, which a socket gets before its `pool`
 * events). `changes` events (one per socket and push) are decoded and checked
 * (chain, generatedAt; `servedAt` read once). Events are counted per socket
 * exactly (one `changes`, one `pool` per followed pool: a socket with more is
 * reported as wrong), and one `pool` event in SAMPLE_EVERY is parsed in full
 * and checked (type, position, chain, an address the socket follows, the pool's
 * own address).
 */
import WebSocket from "ws";

/** Parent → client. */
export type ClientCommand =
  | {
      readonly type: "open";
      readonly wsUrl: string;
      readonly key: string;
      readonly queries: readonly string[];
      readonly concurrency: number;
    }
  | {
      readonly type: "arm";
      readonly round: number;
      readonly chainId: number;
      readonly poolsPerSocket: number;
      readonly generatedAt: number;
    }
  | { readonly type: "collect"; readonly round: number }
  /** Every socket unsubscribes from its `pool:` topics (keeping `changes`). */
  | { readonly type: "unsubscribe-pools" }
  | { readonly type: "close" };

/** Client → parent. */
export type ClientReport =
  | { readonly type: "opened"; readonly ok: number; readonly failed: number; readonly firstError: string | null; readonly rssBytes: number }
  | { readonly type: "unsubscribed"; readonly answered: number }
  | {
      readonly type: "round";
      readonly round: number;
      /** Per socket that got everything: ms from the change set's servedAt to its last expected event. */
      readonly latenciesMs: number[];
      /** Sockets still missing events when the parent asked. */
      readonly incomplete: number;
      readonly servedAt: string | null;
      /** Bytes of the messages received in the round, all sockets. */
      readonly bytes: number;
      /** Sockets that got more events of the push than expected, plus sampled events that failed their check. */
      readonly wrong: number;
      /** `pool` events parsed in full and checked. */
      readonly sampled: number;
      /** The first failure, for the log. */
      readonly firstWrong: string | null;
      readonly closes: Record<string, number>;
    };

interface Socket {
  readonly ws: WebSocket;
  readonly poolTopics: string[];
  /** The followed pools' addresses. */
  readonly poolAddresses: ReadonlySet<string>;
  subscribed: boolean;
  gotChanges: boolean;
  pools: number;
  /** Got more than expected in this round. */
  surplus: boolean;
  doneAt: number;
}

const sockets: Socket[] = [];
const closes: Record<string, number> = {};
let armed: { round: number; chainPrefix: string; poolsPerSocket: number; generatedAt: string } | null = null;
let servedAt: string | null = null;
let servedAtMs = NaN;
let bytes = 0;
let pending = 0;
let unsubscribing = 0;
/** `{"type":"pool","position":"<the round's position>",` once a `changes` event of the round gave it. */
let poolPrefix: Buffer | null = null;
let poolEvents = 0;
let sampled = 0;
let wrongSamples = 0;
let firstWrong: string | null = null;
/** One `pool` event in this many is parsed in full and checked. */
const SAMPLE_EVERY = 100;
const SUBSCRIBED = Buffer.from('{"type":"subscribed"');
const CHANGES = Buffer.from('{"type":"changes","position":"');

function startsWith(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

function wrong(what: string): void {
  wrongSamples++;
  firstWrong ??= what;
}

const send = (report: ClientReport) => process.send?.(report);
const now = () => performance.timeOrigin + performance.now();

function onMessage(socket: Socket, raw: WebSocket.RawData): void {
  const data = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
  if (!socket.subscribed) {
    socket.subscribed = startsWith(data, SUBSCRIBED);
    return;
  }
  if (unsubscribing > 0 && startsWith(data, SUBSCRIBED)) {
    if (--unsubscribing === 0) send({ type: "unsubscribed", answered: sockets.length });
    return;
  }
  const round = armed;
  if (round === null) return;
  bytes += data.length;
  if (poolPrefix !== null && startsWith(data, poolPrefix)) {
    if (++poolEvents % SAMPLE_EVERY === 0) checkSample(socket, data);
    if (++socket.pools > round.poolsPerSocket) socket.surplus = true;
  } else if (startsWith(data, CHANGES)) {
    const text = data.toString();
    if (!text.includes(round.chainPrefix) || !text.includes(round.generatedAt)) return;
    if (socket.gotChanges) socket.surplus = true;
    socket.gotChanges = true;
    if (poolPrefix === null) {
      const position = text.slice(CHANGES.length, text.indexOf('"', CHANGES.length));
      poolPrefix = Buffer.from(`{"type":"pool","position":"${position}",`);
    }
    if (servedAt === null) {
      servedAt = /"servedAt":"([^"]+)"/.exec(text)?.[1] ?? null;
      servedAtMs = servedAt === null ? NaN : Date.parse(servedAt);
    }
  } else return;
  if (socket.doneAt === 0 && socket.gotChanges && socket.pools >= round.poolsPerSocket) {
    socket.doneAt = now();
    if (--pending === 0) report(round.round);
  }
}

/** A sampled `pool` event, parsed in full: the push's, of a pool the socket follows, carrying that pool. */
function checkSample(socket: Socket, data: Buffer): void {
  sampled++;
  let event: { type?: unknown; position?: unknown; chainId?: unknown; address?: unknown; pool?: { address?: unknown } | null };
  try {
    event = JSON.parse(data.toString());
  } catch {
    wrong("a pool event that is not JSON");
    return;
  }
  const expected = poolPrefix!.toString().slice('{"type":"pool","position":"'.length, -2);
  if (event.type !== "pool" || event.position !== expected)
    wrong(`a pool event with type ${String(event.type)} at ${String(event.position)}`);
  else if (`"chainId":${String(event.chainId)},` !== armed?.chainPrefix) wrong(`a pool event of chain ${String(event.chainId)}`);
  else if (typeof event.address !== "string" || !socket.poolAddresses.has(event.address))
    wrong(`a pool event for ${String(event.address)}, not followed`);
  else if (event.pool?.address !== event.address) wrong(`a pool event for ${event.address} carrying ${String(event.pool?.address)}`);
}

function report(round: number): void {
  const latenciesMs: number[] = [];
  let incomplete = 0;
  let surplus = 0;
  for (const s of sockets) {
    if (s.doneAt > 0) latenciesMs.push(s.doneAt - servedAtMs);
    else incomplete++;
    if (s.surplus) surplus++;
  }
  if (surplus > 0) firstWrong ??= `${surplus} sockets got more events than expected`;
  send({
    type: "round",
    round,
    latenciesMs,
    incomplete,
    servedAt,
    bytes,
    closes: { ...closes },
    wrong: surplus + wrongSamples,
    sampled,
    firstWrong,
  });
  armed = null;
}

function open(command: Extract<ClientCommand, { type: "open" }>): void {
  let next = 0;
  let inFlight = 0;
  let ok = 0;
  let failed = 0;
  let firstError: string | null = null;
  const settle = () => {
    inFlight--;
    if (next < command.queries.length) start();
    else if (inFlight === 0) send({ type: "opened", ok, failed, firstError, rssBytes: process.memoryUsage.rss() });
  };
  const start = () => {
    const query = command.queries[next++];
    inFlight++;
    const ws = new WebSocket(`${command.wsUrl}?${query}`, {
      headers: { authorization: `Bearer ${command.key}` },
      perMessageDeflate: false,
    });
    const poolTopics = (new URLSearchParams(query).get("topics") ?? "").split(",").filter((t) => t.startsWith("pool:"));
    const poolAddresses = new Set(poolTopics.map((t) => t.slice(t.lastIndexOf(":") + 1)));
    const socket: Socket = { ws, poolTopics, poolAddresses, subscribed: false, gotChanges: false, pools: 0, surplus: false, doneAt: 0 };
    let settled = false;
    ws.on("message", (data) => {
      onMessage(socket, data);
      if (!settled && socket.subscribed) {
        settled = true;
        ok++;
        sockets.push(socket);
        settle();
      }
    });
    ws.on("error", (error) => {
      firstError ??= error.message;
      if (!settled) {
        settled = true;
        failed++;
        settle();
      }
    });
    ws.on("close", (code) => {
      closes[code] = (closes[code] ?? 0) + 1;
    });
  };
  for (let i = 0; i < Math.min(command.concurrency, command.queries.length); i++) start();
}

process.on("message", (command: ClientCommand) => {
  if (command.type === "open") open(command);
  else if (command.type === "arm") {
    for (const s of sockets) {
      s.gotChanges = false;
      s.pools = 0;
      s.surplus = false;
      s.doneAt = 0;
    }
    poolPrefix = null;
    poolEvents = 0;
    sampled = 0;
    wrongSamples = 0;
    firstWrong = null;
    servedAt = null;
    servedAtMs = NaN;
    bytes = 0;
    pending = sockets.length;
    armed = {
      round: command.round,
      chainPrefix: `"chainId":${command.chainId},`,
      poolsPerSocket: command.poolsPerSocket,
      generatedAt: `"generatedAt":${command.generatedAt},`,
    };
  } else if (command.type === "unsubscribe-pools") {
    unsubscribing = sockets.length;
    for (const s of sockets) s.ws.send(JSON.stringify({ op: "unsubscribe", topics: s.poolTopics }));
  } else if (command.type === "collect") {
    if (armed?.round === command.round) report(command.round);
  } else {
    for (const s of sockets) s.ws.terminate();
    process.exit(0);
  }
});
