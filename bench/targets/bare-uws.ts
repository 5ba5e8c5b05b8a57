/**
 * Bare uWS server: `node dist/bench/targets/bare-uws.js --port P --threads N --responses FILE`.
 * N worker threads, each a uWS app listening on the same explicit port (as the
 * gateway's serving threads do), answering the canned gateway bytes. Prints
 * `{"event":"listening","port":P,"threads":N}` once every thread listens; on
 * SIGTERM each thread closes its listen socket and connections, then exits.
 */
import { Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";

function argument(name: string): string {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  if (value === undefined) throw new Error(`bare-uws: missing ${name}`);
  return value;
}

const port = Number(argument("--port"));
const threads = Number(argument("--threads"));
const responsesFile = argument("--responses");
const threadFile = fileURLToPath(new URL("./bare-uws-thread.js", import.meta.url));

const workers = Array.from({ length: threads }, () => new Worker(threadFile, { workerData: { port, responsesFile } }));
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
  process.stderr.write(`bare-uws: ${(error as Error).message}\n`);
  for (const w of workers) w.postMessage("close");
  process.exitCode = 1;
});
if (process.exitCode !== 1) process.stdout.write(`${JSON.stringify({ event: "listening", port, threads })}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  for (const w of workers) w.postMessage("close");
  const force = setTimeout(() => {
    for (const w of workers) void w.terminate();
  }, 4000);
  void Promise.all(exits).then(() => {
    clearTimeout(force);
    process.exit(0);
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
