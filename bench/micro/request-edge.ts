/**
 * Per-request cost of the HTTP-edge check (src/http/request-framing.ts) on
 * real uWS requests: `npm run build && node dist/bench/micro/request-edge.js`.
 * An HttpRequest lives only inside its handler, so each handler call runs
 * the check REPEAT times in a loop and the mean is taken over every call;
 * reading the request line and three headers (what every request already
 * pays) is timed the same way for scale. One loopback connection, a bounded number of pipelined requests.
 */
import net from "node:net";
import { FramingReader } from "../../src/http/request-framing.js";

const framingReader = new FramingReader();
import { uws, type HttpRequest, type HttpResponse } from "../../src/http/uws.js";

const REQUESTS = 2_000;
const REPEAT = 200;

/** Typical requests: what the SDK sends, with and without a body. */
const KINDS = {
  "GET pool (no body, 6 fields)":
    "GET /v1/pools/8453/0x4c36388be6f416a29c8d8eee81c771ce6be14b18 HTTP/1.1\r\nHost: gateway.example\r\nAuthorization: Bearer lgw_test_active_0123456789abcdef\r\nAccept: application/json\r\nUser-Agent: hydric-gateway-sdk/1.1.0\r\nAccept-Encoding: gzip, deflate\r\nX-Trace-Id: bench-1\r\n\r\n",
  "POST tokens (Content-Length, 8 fields)":
    'POST /v1/tokens HTTP/1.1\r\nHost: gateway.example\r\nAuthorization: Bearer lgw_test_active_0123456789abcdef\r\nAccept: application/json\r\nUser-Agent: hydric-gateway-sdk/1.1.0\r\nAccept-Encoding: gzip, deflate\r\nX-Trace-Id: bench-1\r\nContent-Type: application/json\r\nContent-Length: 22\r\n\r\n{"config":{"limit":1}}',
  "POST tokens (chunked, 8 fields)":
    'POST /v1/tokens HTTP/1.1\r\nHost: gateway.example\r\nAuthorization: Bearer lgw_test_active_0123456789abcdef\r\nAccept: application/json\r\nUser-Agent: hydric-gateway-sdk/1.1.0\r\nAccept-Encoding: gzip, deflate\r\nX-Trace-Id: bench-1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n16\r\n{"config":{"limit":1}}\r\n0\r\n\r\n',
} as const;

interface Timing {
  framingNs: number;
  infoNs: number;
  calls: number;
}

async function measure(request: string): Promise<Timing> {
  const timing: Timing = { framingNs: 0, infoNs: 0, calls: 0 };
  let sink = 0;
  let answered = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const app = uws.App().any("/*", (res: HttpResponse, req: HttpRequest) => {
    const readInfo = () =>
      req.getMethod() +
      req.getUrl() +
      req.getQuery() +
      req.getHeader("x-trace-id") +
      req.getHeader("authorization") +
      req.getHeader("content-length");
    let t = process.hrtime.bigint();
    for (let i = 0; i < REPEAT; i++) if (framingReader.check(req) !== null) sink++;
    timing.framingNs += Number(process.hrtime.bigint() - t);
    t = process.hrtime.bigint();
    for (let i = 0; i < REPEAT; i++) sink += readInfo().length;
    timing.infoNs += Number(process.hrtime.bigint() - t);
    timing.calls += REPEAT;
    res.onAborted(() => {});
    res.onData((_chunk, last) => {
      if (!last) return;
      res.cork(() => res.end("ok"));
      if (++answered === REQUESTS) done();
    });
  });
  const port = await new Promise<number>((resolve, reject) =>
    app.listen("127.0.0.1", 0, (socket) => (socket ? resolve(uws.us_socket_local_port(socket)) : reject(new Error("listen failed")))),
  );
  const client = net.connect(port, "127.0.0.1");
  client.on("data", () => {});
  await new Promise((resolve) => client.on("connect", resolve));
  for (let sent = 0; sent < REQUESTS; sent += 100) client.write(request.repeat(Math.min(100, REQUESTS - sent)));
  await finished;
  client.destroy();
  (app as unknown as { close(): void }).close();
  if (sink < 0) console.log(sink);
  return timing;
}

console.log(`Node ${process.version}, ${REQUESTS} requests x ${REPEAT} calls each`);
console.log("| request | FramingReader.check, ns/call | request line + 3 headers, ns/call (for scale) |");
console.log("|---|---|---|");
for (const [name, request] of Object.entries(KINDS)) {
  await measure(request); // warm-up: let the JIT settle
  const t = await measure(request);
  console.log(`| ${name} | ${(t.framingNs / t.calls).toFixed(0)} | ${(t.infoNs / t.calls).toFixed(0)} |`);
}
