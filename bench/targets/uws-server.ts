/**
 * A comparison server: `node dist/bench/targets/uws-server.js --kind bare|floor
 * --port P --threads N --responses FILE`. N worker threads, each a uWS app
 * listening on the same explicit port (as the gateway's serving threads do),
 * answering the canned targets (uws-thread.ts). Prints
 * `{"event":"listening","port":P,"threads":N}` once every thread listens; on
 * SIGTERM each thread closes its listen socket and connections, then exits.
 */
import { Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import { readCanned } from "./canned.js";
import type { UwsThreadData } from "./uws-thread.js";
import { parseArgs } from "node:util";

const text = { type: "string" } as const;
const options = parseArgs({ options: { kind: text, port: text, threads: text, responses: text } }).values;
function argument(name: keyof typeof options): string {
  const value = options[name];
  if (value === undefined) throw new Error(`uws-server: missing --${name}`);
  return value;
}

const kind = argument("kind");
if (kind !== "bare" && kind !== "floor") throw new Error(`uws-server: --kind must be bare or floor, got '${kind}'`);
const port = Number(argument("port"));
const threads = Number(argument("threads"));
const responsesFile = argument("responses");
const threadFile = fileURLToPath(new URL("./uws-thread.js", import.meta.url));
const counters = new SharedArrayBuffer(4 * Math.max(1, readCanned(responsesFile).keys.length));
const workerData: UwsThreadData = { kind, port, responsesFile, counters };

const workers = Array.from({ length: threads }, () => new Worker(threadFile, { workerData }));
const exits = workers.map((w) => new Promise<void>((resolve) => w.once("exit", () => resolve())));
await Promise.all(
  workers.map(
    (w) =>
      new Promise<void>((resolve, reject) => {
        w.once("message", (m: { type: string; reason?: string }) => (m.type === "listening" ? resolve() : reject(new Error(m.reason))));
        w.once("error", reject);
      }),
  ),
).catch((error: unknown) => {
  process.stderr.write(`uws-server: ${(error as Error).message}\n`);
  for (const w of workers) w.postMessage("close");
  process.exitCode = 1;
});
if (process.exitCode !== 1) process.stdout.write(`${JSON.stringify({ event: "listening", port, threads, kind })}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  for (const w of workers) w.postMessage("close");
  const force = setTimeout(() => {
    for (const w of workers) void w.terminate(); // terminate() only resolves (with the exit code)
  }, 4000);
  // Each of exits resolves when its worker exits; none rejects.
  void Promise.all(exits).then(() => {
    clearTimeout(force);
    process.exit(0);
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
