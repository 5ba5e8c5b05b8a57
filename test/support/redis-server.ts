/**
 * A REAL redis-server (Debian package `redis-server`) for tests: started as a
 * child process on a free loopback port without persistence, killed and
 * started again on the same port when a test wants an outage, and stopped at
 * the end. When the binary is missing the test FAILS with a message saying
 * how to install it (.ci/run installs it); it is never skipped.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createConnection, createServer } from "node:net";

export const REDIS_SERVER_BINARY = process.env.REDIS_SERVER_BIN ?? "redis-server";

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Whether the server process is running. */
  readonly running: boolean;
  /** Kills the server at once (SIGKILL: an outage, not a shutdown). */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence). */
  restart(): Promise<void>;
  /** Sends one command (inline form, e.g. `["DEBUG", "SLEEP", "1"]`) and resolves with the raw reply. */
  command(args: readonly string[]): Promise<string>;
  /** Stops it for good. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

/** Throws a clear error when redis-server cannot be run. */
export function assertRedisServerInstalled(): void {
  const probe = spawnSync(REDIS_SERVER_BINARY, ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `these tests need a real redis-server, and "${REDIS_SERVER_BINARY}" cannot be run (${probe.error?.message ?? `exit ${probe.status}`}). ` +
        "Install it with `apt-get install -y redis-server` (Debian; .ci/run does this when it is missing), or point REDIS_SERVER_BIN at the binary.",
    );
  }
}

export async function startRedisServer(): Promise<RedisServer> {
  assertRedisServerInstalled();
  const port = await freePort();
  let child: ChildProcess | null = null;
  let output = "";

  const launch = async (): Promise<void> => {
    output = "";
    const proc = spawn(
      REDIS_SERVER_BINARY,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--enable-debug-command", "local", "--loglevel", "warning"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child = proc;
    proc.stdout!.setEncoding("utf8").on("data", (c: string) => (output = (output + c).slice(-4000)));
    proc.stderr!.setEncoding("utf8").on("data", (c: string) => (output = (output + c).slice(-4000)));
    proc.on("exit", () => {
      if (child === proc) child = null;
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child !== proc) throw new Error(`redis-server exited during start-up on port ${port}:\n${output}`);
      try {
        if ((await send(port, ["PING"])).startsWith("+PONG")) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`redis-server did not answer PING on port ${port} within ${START_TIMEOUT_MS} ms:\n${output}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  const end = async (signal: NodeJS.Signals): Promise<void> => {
    const proc = child as ChildProcess | null;
    if (proc === null || proc.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    proc.kill(signal);
    await exited;
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return child !== null;
    },
    kill: () => end("SIGKILL"),
    restart: async () => {
      await end("SIGKILL");
      await launch();
    },
    command: (args) => send(port, args),
    stop: () => end("SIGTERM"),
  };
}

/** One command over a fresh connection (RESP array of bulk strings); the reply's raw text. */
function send(port: number, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis ${args[0]}: no reply within 10 s`));
    }, 10_000);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`));
    socket.on("data", (chunk: string) => {
      reply += chunk;
      if (!complete(reply)) return;
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

/** Whether a simple reply (+, -, :) or a bulk string ($) has fully arrived. */
function complete(reply: string): boolean {
  const eol = reply.indexOf("\r\n");
  if (eol < 0) return false;
  if (reply[0] !== "$") return true;
  const length = Number(reply.slice(1, eol));
  return length < 0 || Buffer.byteLength(reply) >= eol + 2 + length + 2;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Calls of the quota scripts Redis has run (EVAL + EVALSHA in INFO commandstats). */
export async function scriptCalls(redis: RedisServer): Promise<number> {
  const info = await redis.command(["INFO", "commandstats"]);
  let calls = 0;
  for (const m of info.matchAll(/^cmdstat_(?:eval|evalsha):calls=(\d+)/gm)) calls += Number(m[1]);
  return calls;
}
