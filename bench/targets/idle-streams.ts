/**
 * Idle stream subscribers (issue 23: "the stream must not tax the request
 * path"): a separate process that opens N WebSocket connections to a
 * gateway's GET /v1/stream with the `ws` client, each subscribed to a topic no
 * change of the run touches, reports when all are open, and keeps them open
 * (answering the server's pings, nothing else) until it is stopped.
 *
 * `openIdleStreams` starts it from the bench; run as a script it is the child:
 * `node idle-streams.js <ws-url> <key> <count>`.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { BenchChild } from "../shared/child.js";
import { parseArgs } from "node:util";

const THIS_FILE = fileURLToPath(import.meta.url);
/** Connections being opened at once. */
const OPENING_AT_ONCE = 200;

export interface IdleStreams {
  readonly child: BenchChild;
  readonly count: number;
  /** Milliseconds to open them all. */
  readonly openMs: number;
}

/**
 * Opens `count` idle subscribers to `baseUrl`'s /v1/stream (http:// → ws://) in a child process pinned to `cpus`
 * (null: unpinned); resolves once every one is open. The gateway must allow `count` streams for the key
 * (STREAM_MAX_CONNECTIONS_PER_KEY) and hold that many descriptors.
 */
export async function openIdleStreams(baseUrl: string, key: string, count: number, cpus: string | null): Promise<IdleStreams> {
  const url = `${baseUrl.replace(/^http/, "ws")}/v1/stream?topics=changes:999`;
  const args = [url, key, String(count)];
  const child = new BenchChild(
    "idle-streams",
    cpus === null
      ? fork(THIS_FILE, args, { stdio: ["ignore", "pipe", "pipe", "ipc"] })
      : fork(THIS_FILE, args, { stdio: ["ignore", "pipe", "pipe", "ipc"], execPath: "taskset", execArgv: ["-c", cpus, process.execPath] }),
  );
  const line = await child.waitForLine((l) => typeof l.opened === "number" || typeof l.failed === "string", 5 * 60_000);
  if (typeof line.failed === "string") {
    await child.stop();
    throw new Error(`idle streams: ${line.failed}`);
  }
  return { child, count, openMs: Number(line.openMs) };
}

function openOne(url: string, key: string, sockets: WebSocket[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${key}` }, perMessageDeflate: false });
    ws.once("open", () => {
      sockets.push(ws);
      resolve();
    });
    ws.once("unexpected-response", (_req, res) => reject(new Error(`the upgrade was answered ${res.statusCode}`)));
    ws.once("error", reject);
  });
}

async function child(url: string, key: string, count: number): Promise<void> {
  const sockets: WebSocket[] = [];
  const started = performance.now();
  let closed = 0;
  try {
    for (let opened = 0; opened < count; opened += OPENING_AT_ONCE) {
      const batch = Math.min(OPENING_AT_ONCE, count - opened);
      await Promise.all(Array.from({ length: batch }, () => openOne(url, key, sockets)));
    }
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ failed: `${sockets.length} of ${count} opened, then: ${String(error)}` })}\n`);
    return;
  }
  for (const ws of sockets) ws.on("close", () => closed++);
  process.stdout.write(`${JSON.stringify({ opened: sockets.length, openMs: Math.round(performance.now() - started) })}\n`);
  // Report closes (a gateway that drops idle subscribers would make the measurement meaningless).
  setInterval(() => {
    if (closed > 0) process.stdout.write(`${JSON.stringify({ closed })}\n`);
  }, 5000).unref();
  process.on("SIGTERM", () => process.exit(0));
  setInterval(() => {}, 1 << 30); // stay until stopped
}

if (process.argv[1] === THIS_FILE && process.send) {
  const [url, key, countText] = parseArgs({ allowPositionals: true }).positionals;
  child(url, key, Number(countText)).catch((error: unknown) => {
    process.stderr.write(`idle streams: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
