/**
 * A real redis-server (Debian package `redis-server`) on a loopback port,
 * without persistence: how to check it is installed, how it is started, and
 * a one-shot command client to know when it answers. Used by the bench (the
 * gateway with QUOTA_STORE=redis) and by the tests (test/support/redis-server.ts).
 */
import { spawnSync } from "node:child_process";
import { createConnection } from "node:net";
import { startChild, type BenchChild } from "../shared/child.js";
import { freePort } from "../shared/free-port.js";

export const REDIS_SERVER_BINARY = process.env.REDIS_SERVER_BIN ?? "redis-server";

/** Throws a clear error when redis-server cannot be run. */
export function assertRedisServerInstalled(): void {
  const probe = spawnSync(REDIS_SERVER_BINARY, ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `a real redis-server is needed, and "${REDIS_SERVER_BINARY}" cannot be run (${probe.error?.message ?? `exit ${probe.status}`}). ` +
        "Install it with `apt-get install -y redis-server` (Debian; npm test does this when it is missing and runs as root), or point REDIS_SERVER_BIN at the binary.",
    );
  }
}

/** The arguments of a throwaway server on `port`: loopback only, no RDB or AOF, DEBUG allowed from local clients (tests stall it). */
export function redisServerArgs(port: number): string[] {
  return [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--daemonize",
    "no",
    "--enable-debug-command",
    "local",
    "--loglevel",
    "warning",
  ];
}

/** One command over a fresh connection (RESP array of bulk strings); resolves with the reply's raw text. */
export function redisCommand(port: number, args: readonly string[], timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis ${args[0]}: no reply within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.setEncoding("latin1");
    socket.on("connect", () => socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`));
    socket.on("data", (chunk: string) => {
      reply += chunk;
      if (!replyComplete(reply)) return;
      clearTimeout(timer);
      socket.end();
      resolve(reply);
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Whether a simple reply (+, -, :), an array of them, or a bulk string ($) has fully arrived (latin1 text: one char per byte). */
function replyComplete(reply: string): boolean {
  const eol = reply.indexOf("\r\n");
  if (eol < 0) return false;
  if (reply[0] === "*") return reply.endsWith("\r\n") && reply.split("\r\n").length - 1 >= 1 + 2 * Number(reply.slice(1, eol));
  if (reply[0] !== "$") return true;
  const length = Number(reply.slice(1, eol));
  return length < 0 || reply.length >= eol + 2 + length + 2;
}

/** Resolves once the server on `port` answers PING; rejects when `exited()` says it ended, or after `timeoutMs`. */
export async function waitForRedis(port: number, exited: () => boolean, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited()) throw new Error(`redis-server exited during start-up on port ${port}:\n${output()}`);
    try {
      if ((await redisCommand(port, ["PING"], 1000)).startsWith("+PONG")) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`redis-server did not answer PING on port ${port} within ${timeoutMs} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A redis-server for a bench run (registered with the bench's children, so it is stopped with them), pinned like the servers. */
export async function startBenchRedis(cpus: string | null): Promise<{ child: BenchChild; url: string }> {
  assertRedisServerInstalled();
  const port = await freePort();
  const child = startChild("redis-server", REDIS_SERVER_BINARY, redisServerArgs(port), {}, cpus);
  await waitForRedis(
    port,
    () => !child.running,
    10_000,
    () => child.tails(),
  );
  return { child, url: `redis://127.0.0.1:${port}` };
}
