/**
 * The subscribers of `npm run bench:live` (bench/live.ts), in a process of
 * their own (forked, driven over IPC): opens WebSockets to GET /v1/stream with
 * the `ws` client, each with its own topics, and, for each push the parent
 * announces, records when every socket holds all the events it expects (the
 * chain's `changes` event and one `pool` event per followed pool), with the
 * `servedAt` of the `changes` event. Events are recognised by their first
 * bytes (keys come in a fixed order), and only `servedAt` is read, so that the
 * client side spends as little CPU as it can on the shared cores.
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
      readonly closes: Record<string, number>;
    };

interface Socket {
  readonly ws: WebSocket;
  readonly poolTopics: string[];
  subscribed: boolean;
  gotChanges: boolean;
  pools: number;
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

const send = (report: ClientReport) => process.send?.(report);
const now = () => performance.timeOrigin + performance.now();

function onMessage(socket: Socket, data: WebSocket.RawData): void {
  const text = data.toString();
  if (!socket.subscribed) {
    socket.subscribed = text.startsWith('{"type":"subscribed"');
    return;
  }
  if (unsubscribing > 0 && text.startsWith('{"type":"subscribed"')) {
    if (--unsubscribing === 0) send({ type: "unsubscribed", answered: sockets.length });
    return;
  }
  const round = armed;
  if (round === null || socket.doneAt > 0) return;
  bytes += text.length;
  if (text.startsWith('{"type":"changes"')) {
    if (!text.includes(round.chainPrefix) || !text.includes(round.generatedAt)) return;
    socket.gotChanges = true;
    if (servedAt === null) {
      servedAt = /"servedAt":"([^"]+)"/.exec(text)?.[1] ?? null;
      servedAtMs = servedAt === null ? NaN : Date.parse(servedAt);
    }
  } else if (text.startsWith('{"type":"pool"')) socket.pools++;
  else return;
  if (socket.gotChanges && socket.pools >= round.poolsPerSocket) {
    socket.doneAt = now();
    if (--pending === 0) report(round.round);
  }
}

function report(round: number): void {
  const latenciesMs: number[] = [];
  let incomplete = 0;
  for (const s of sockets) {
    if (s.doneAt > 0) latenciesMs.push(s.doneAt - servedAtMs);
    else incomplete++;
  }
  send({ type: "round", round, latenciesMs, incomplete, servedAt, bytes, closes: { ...closes } });
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
    const socket: Socket = { ws, poolTopics, subscribed: false, gotChanges: false, pools: 0, doneAt: 0 };
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
      s.doneAt = 0;
    }
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
