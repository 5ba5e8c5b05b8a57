/**
 * One serving thread of a comparison server: a uWS app that answers the
 * canned targets, either `bare` (the captured bytes verbatim: no work beyond
 * finding the target) or `floor` (the unavoidable work of any gateway, see
 * floor.ts). A request body is read to its end before the answer, as the
 * gateway does. Closes its listen socket and every connection before it exits.
 */
import { parentPort, workerData } from "node:worker_threads";
import { uws, type HttpRequest, type HttpResponse, type TemplatedApp, type us_listen_socket } from "../../src/http/uws.js";
import { CannedIndex, readCanned, statusLine, type CannedTarget } from "./canned.js";
import { FloorResponder, IsoClock, floorKeys } from "./floor.js";

export type UwsServerKind = "bare" | "floor";

export interface UwsThreadData {
  readonly kind: UwsServerKind;
  readonly port: number;
  readonly responsesFile: string;
  /** The floor's quota counters, shared by every thread (one Int32 per key). */
  readonly counters: SharedArrayBuffer;
}

const { kind, port, responsesFile, counters: counterBuffer } = workerData as UwsThreadData;
const canned = readCanned(responsesFile);
const index = new CannedIndex(canned.targets);

/** How one request is answered once its target is known (the body, if any, read). */
type Answer = (res: HttpResponse, target: CannedTarget, path: string, authorization: string) => void;

function bareAnswer(): Answer {
  const status = new Map(canned.targets.map((t) => [t, statusLine(t.response.status)]));
  return (res, target) => {
    const r = target.response;
    res.cork(() => {
      res.writeStatus(status.get(target)!);
      for (const [name, value] of r.headers) res.writeHeader(name, value);
      res.end(r.body);
    });
  };
}

function floorAnswer(): Answer {
  const keys = floorKeys(canned.keys);
  const counters = new Int32Array(counterBuffer);
  const clock = new IsoClock();
  const scratch = { buffer: Buffer.allocUnsafe(1 << 20) };
  const responders = new Map(canned.targets.map((t) => [t, new FloorResponder(t)]));
  return (res, target, path, authorization) => {
    const key = authorization.startsWith("Bearer ") ? keys.get(authorization.slice(7)) : undefined;
    if (key === undefined) {
      res.cork(() => res.writeStatus("401 Unauthorized").end());
      return;
    }
    responders.get(target)!.respond(res, key, counters, clock, path, scratch);
  };
}

const answer = kind === "floor" ? floorAnswer() : bareAnswer();
const notFound = (res: HttpResponse) => res.cork(() => res.writeStatus("404 Not Found").end());

function handle(res: HttpResponse, req: HttpRequest): void {
  const method = req.getMethod();
  const path = req.getUrl();
  // The floor reads the bearer header; the bare server does not need it.
  const authorization = kind === "floor" ? req.getHeader("authorization") : "";
  if (method === "get" || method === "head") {
    const target = index.find(method, path, null);
    if (target === undefined) notFound(res);
    else answer(res, target, path, authorization);
    return;
  }
  const needsBody = index.needsBody(method, path);
  let aborted = false;
  let chunks: Buffer[] | null = null;
  res.onAborted(() => (aborted = true));
  res.onData((chunk, last) => {
    if (aborted) return;
    if (!last) {
      if (needsBody) (chunks ??= []).push(Buffer.from(chunk.slice(0)));
      return;
    }
    let body: Uint8Array | null = null;
    if (needsBody) body = chunks === null ? new Uint8Array(chunk) : Buffer.concat([...chunks, Buffer.from(chunk)]);
    const target = index.find(method, path, body);
    if (target === undefined) notFound(res);
    else answer(res, target, path, authorization);
  });
}

const app = uws.App() as unknown as TemplatedApp;
app.any("/*", handle);

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
