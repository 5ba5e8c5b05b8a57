/**
 * The flooder of `npm run bench:flood` (bench/live/flood.ts), in a process
 * of its own (forked, driven over IPC): `connections` WebSockets of one key on
 * GET /v1/stream over raw TCP sockets (the handshake written by hand), each
 * sending `messages` subscribe/unsubscribe messages (alternately, one topic),
 * pipelined: the masked frames are built once and written in one go, so the
 * flooder spends next to no CPU of the cores it shares with the gateway. Each
 * socket then reads until every message is answered or the gateway closes it.
 * With `repeat`, each socket that is done connects again and floods again,
 * at most once a second (a flood that takes longer is followed at once), until
 * the parent says `stop`: a flooder that keeps at it for the whole
 * measurement, without turning it into a test of connection churn (which the
 * key's quota bounds: each opening counts). Answers are told apart by their
 * first bytes (`subscribed` or `error`), never parsed.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import { closeOf, jsonFrame, OP_CLOSE, OP_TEXT, serverFrames } from "../shared/ws-frames.js";

/** Parent → flooder. */
export type FloodCommand =
  | {
      readonly type: "flood";
      readonly port: number;
      readonly key: string;
      readonly connections: number;
      readonly messages: number;
      readonly repeat: boolean;
    }
  | { readonly type: "stop" };

/** Flooder → parent. */
export interface FloodReport {
  readonly type: "done";
  /** Floods finished (one socket sending its messages and being answered or closed), all sockets. */
  readonly floods: number;
  /** ms from the start to the last socket of the first round being done. */
  readonly firstRoundMs: number;
  readonly sent: number;
  readonly subscribed: number;
  readonly errors: number;
  /** Close frames the sockets got (code and reason; `none` when the connection ended without one). */
  readonly closes: Record<string, number>;
  /** Openings refused (e.g. 429 while a closed socket's place is not yet given back); retried. */
  readonly refusedOpens: number;
  readonly firstRefusal: string | null;
}

/** A socket floods at most once in this many ms (`repeat`). */
const FLOOD_EVERY_MS = 1000;

const SUBSCRIBED = Buffer.from('{"type":"subscribed"');
const ERROR = Buffer.from('{"type":"error"');

/** `messages` subscribe and unsubscribe frames, alternately, in one buffer. */
function floodBytes(messages: number): Buffer {
  const subscribe = jsonFrame({ op: "subscribe", topics: ["changes:8453"] });
  const unsubscribe = jsonFrame({ op: "unsubscribe", topics: ["changes:8453"] });
  return Buffer.concat(Array.from({ length: messages }, (_, i) => (i % 2 === 0 ? subscribe : unsubscribe)));
}

const totals = { floods: 0, sent: 0, subscribed: 0, errors: 0, refusedOpens: 0 };
const closes: Record<string, number> = {};
let firstRefusal: string | null = null;
let stopping = false;
let firstRoundMs = NaN;

function startsWith(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

/** One socket's flood: resolves true when done (answered in full, or closed), false when the opening was refused. */
function floodOnce(port: number, key: string, messages: number, flood: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    let data = Buffer.alloc(0);
    let switched = false;
    let answered = -1; // the opening `subscribed` is not an answer
    let closeLabel = "none";
    let settled = false;
    const settle = (ok: boolean) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (ok) {
        totals.floods++;
        closes[closeLabel] = (closes[closeLabel] ?? 0) + 1;
      }
      resolve(ok);
    };
    socket.on("connect", () => {
      socket.write(
        `GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    socket.on("data", (chunk: Buffer) => {
      data = data.length === 0 ? chunk : Buffer.concat([data, chunk]);
      if (!switched) {
        const end = data.indexOf("\r\n\r\n");
        if (end < 0) return;
        const status = data.toString("latin1", 9, 12);
        if (status !== "101") {
          totals.refusedOpens++;
          firstRefusal ??= `HTTP ${status}`;
          settle(false);
          return;
        }
        switched = true;
        data = data.subarray(end + 4);
        socket.write(flood);
        totals.sent += messages;
      }
      const { frames, used } = serverFrames(data);
      data = data.subarray(used);
      for (const frame of frames) {
        if (frame.opcode === OP_CLOSE) {
          const { code, reason } = closeOf(frame);
          closeLabel = `${code} ${reason}`.trim();
          settle(true);
          return;
        }
        if (frame.opcode !== OP_TEXT || answered++ < 0) continue;
        if (startsWith(frame.payload, SUBSCRIBED)) totals.subscribed++;
        else if (startsWith(frame.payload, ERROR)) totals.errors++;
        if (answered >= messages) {
          closeLabel = "answered in full";
          settle(true);
          return;
        }
      }
    });
    socket.on("error", (error) => {
      firstRefusal ??= error.message;
    });
    socket.on("close", () => settle(switched));
  });
}

async function run(command: Extract<FloodCommand, { type: "flood" }>): Promise<void> {
  const flood = floodBytes(command.messages);
  const started = performance.now();
  let firstRound = command.connections;
  await Promise.all(
    Array.from({ length: command.connections }, async () => {
      let first = true;
      while (first || (command.repeat && !stopping)) {
        const floodStarted = performance.now();
        if (!(await floodOnce(command.port, command.key, command.messages, flood))) {
          await new Promise((r) => setTimeout(r, 10)); // refused (its place not given back yet): again shortly
          continue;
        }
        if (first && --firstRound === 0) firstRoundMs = performance.now() - started;
        first = false;
        const wait = FLOOD_EVERY_MS - (performance.now() - floodStarted);
        if (command.repeat && wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    }),
  );
  const report: FloodReport = { type: "done", ...totals, firstRoundMs, closes, firstRefusal };
  process.send?.(report);
}

process.on("message", (command: FloodCommand) => {
  if (command.type === "stop") stopping = true;
  else void run(command);
});
