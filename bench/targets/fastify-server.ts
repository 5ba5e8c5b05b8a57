/**
 * Minimal fastify server: `node dist/bench/targets/fastify-server.js --responses FILE`.
 * One process (Node's usual deployment), logger off, default JSON body
 * parser, answering the canned gateway bytes. Prints
 * `{"event":"listening","port":P}`; closes and exits on SIGTERM.
 */
import Fastify from "fastify";
import { readCanned, type CannedResponse } from "./canned.js";

const i = process.argv.indexOf("--responses");
if (i < 0 || !process.argv[i + 1]) throw new Error("fastify-server: missing --responses");
const canned = readCanned(process.argv[i + 1]);
const firstPool = canned.pools.values().next().value as CannedResponse;
const headersOf = (r: CannedResponse) => Object.fromEntries(r.headers);
const poolHeaders = new Map([...canned.pools].map(([path, r]) => [path, headersOf(r)]));
const tokenHeaders = headersOf(canned.tokens);

const app = Fastify({ logger: false });
app.get("/v1/pools/:chainId/:address", (request, reply) => {
  const r = canned.pools.get(request.url) ?? firstPool;
  reply.code(r.status).headers(poolHeaders.get(request.url) ?? headersOf(r)).send(r.body);
});
app.post("/v1/tokens", (_request, reply) => {
  reply.code(canned.tokens.status).headers(tokenHeaders).send(canned.tokens.body);
});

await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
const port = typeof address === "object" && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ event: "listening", port })}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void app.close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
