/**
 * One bare uWS serving thread: answers GET /v1/pools/* and POST /v1/tokens
 * with the canned gateway bytes (the POST body is read to its end, not
 * parsed). Closes its listen socket and every connection before it exits.
 */
import { parentPort, workerData } from "node:worker_threads";
import { uws, type HttpResponse, type TemplatedApp, type us_listen_socket } from "../../src/http/uws.js";
import { readCanned, statusLine, type CannedResponse } from "./canned.js";

const { port, responsesFile } = workerData as { port: number; responsesFile: string };
const canned = readCanned(responsesFile);
const firstPool = canned.pools.values().next().value as CannedResponse;

function send(res: HttpResponse, r: CannedResponse): void {
  res.cork(() => {
    res.writeStatus(statusLine(r.status));
    for (const [name, value] of r.headers) res.writeHeader(name, value);
    res.end(r.body);
  });
}

const app = uws.App() as unknown as TemplatedApp;
app
  .get("/v1/pools/*", (res, req) => send(res, canned.pools.get(req.getUrl()) ?? firstPool))
  .post("/v1/tokens", (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    res.onData((_chunk, last) => {
      if (last && !aborted) send(res, canned.tokens);
    });
  })
  .any("/*", (res) => {
    res.cork(() => res.writeStatus("404 Not Found").end());
  });

let listenSocket: us_listen_socket | null = null;
app.listen("127.0.0.1", port, (socket) => {
  if (!socket) {
    parentPort!.postMessage({ type: "listen-failed", reason: `cannot listen on 127.0.0.1:${port}` });
    app.close();
    parentPort!.close();
    return;
  }
  listenSocket = socket;
  parentPort!.postMessage({ type: "listening" });
});

parentPort!.on("message", (message: unknown) => {
  if (message !== "close") return;
  if (listenSocket) uws.us_listen_socket_close(listenSocket);
  listenSocket = null;
  app.close();
  parentPort!.close();
});
