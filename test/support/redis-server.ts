/**
 * A REAL redis-server (Debian package `redis-server`) for tests: started as a
 * child process on a free loopback port without persistence, killed and
 * started again on the same port when a test wants an outage, and stopped at
 * the end. When the binary is missing the test FAILS with a message saying
 * how to install it (npm test installs it when missing: tools/check-system.mjs); it is never skipped.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "../../bench/shared/free-port.js";
import {
  assertRedisServerInstalled,
  REDIS_SERVER_BINARY,
  redisCommand,
  redisServerArgs,
  waitForRedis,
} from "../../bench/targets/redis-server.js";

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Kills the server at once (SIGKILL: an outage, not a shutdown). */
  kill(): Promise<void>;
  /** Kills it if running and starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Sends one command (e.g. `["DEBUG", "SLEEP", "1"]`); resolves with the raw reply. */
  command(args: readonly string[]): Promise<string>;
  /** Stops it for good. */
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  assertRedisServerInstalled();
  const port = await freePort();
  let child: ChildProcess | null = null;
  let output = "";

  const launch = async (): Promise<void> => {
    output = "";
    const proc = spawn(REDIS_SERVER_BINARY, redisServerArgs(port), { stdio: ["ignore", "pipe", "pipe"] });
    child = proc;
    const collect = (c: string) => (output = (output + c).slice(-4000));
    proc.stdout!.setEncoding("utf8").on("data", collect);
    proc.stderr!.setEncoding("utf8").on("data", collect);
    proc.on("exit", () => {
      if (child === proc) child = null;
    });
    await waitForRedis(
      port,
      () => child !== proc,
      10_000,
      () => output,
    );
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
    kill: () => end("SIGKILL"),
    restart: async () => {
      await end("SIGKILL");
      await launch();
    },
    command: (args) => redisCommand(port, args),
    stop: () => end("SIGTERM"),
  };
}

/** Calls of the quota scripts Redis has run (EVAL + EVALSHA in INFO commandstats). */
export async function scriptCalls(redis: RedisServer): Promise<number> {
  const info = await redis.command(["INFO", "commandstats"]);
  let calls = 0;
  for (const m of info.matchAll(/^cmdstat_(?:eval|evalsha):calls=(\d+)/gm)) calls += Number(m[1]);
  return calls;
}
