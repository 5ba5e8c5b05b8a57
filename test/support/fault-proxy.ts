/**
 * A small fault-injecting HTTP proxy between a gateway and its origin (nginx, moto): it forwards every
 * request to the upstream as sent (Host included, so an S3 signature still verifies) and answers with the
 * upstream's answer, unless a fault set for the path says otherwise:
 *
 * - `status`: answer this status at once (500, 429 with `retryAfter`, 403 with an S3 `RequestTimeTooSkewed`
 *   body and a skewed `Date`: `skewMs`);
 * - `reset`: send the upstream's headers and half the body, then reset the connection;
 * - `stall`: send the headers and half the body, then nothing (the socket stays open);
 * - `corrupt`: the upstream's body with its bytes changed, same length;
 * - `truncate`: the headers with a shorter Content-Length and that many bytes;
 * - `slow`: the body in small pieces, `delayMs` apart;
 * - `redirectLoop`: 302 to itself;
 * - `down`: close the connection at once, answering nothing.
 *
 * A fault holds for `times` requests (default: until cleared). Every request is logged (time, method,
 * path, conditional headers, what was answered). Stopped with stop(); its sockets are destroyed.
 */
import http from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";

export type Fault =
  | { readonly kind: "status"; readonly status: number; readonly retryAfter?: string; readonly skewMs?: number }
  | { readonly kind: "reset" | "stall" | "corrupt" | "truncate" | "redirectLoop" | "down" }
  | { readonly kind: "slow"; readonly delayMs: number };

export interface ProxiedRequest {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly ifNoneMatch: string | null;
  /** The status answered (0: none, the connection was cut). */
  status: number;
  readonly fault: Fault["kind"] | null;
}

interface Rule {
  readonly match: (path: string) => boolean;
  readonly fault: Fault;
  remaining: number;
}

export interface FaultProxy {
  readonly port: number;
  readonly url: string;
  readonly log: ProxiedRequest[];
  /** Sets a fault for the paths `match` accepts (a string: paths ending with it), for `times` requests. */
  fault(match: string | ((path: string) => boolean), fault: Fault, times?: number): void;
  clear(): void;
  stop(): Promise<void>;
}

export async function startFaultProxy(upstream: string, options: { ca?: string } = {}): Promise<FaultProxy> {
  const target = new URL(upstream);
  const secure = target.protocol === "https:";
  const agent = secure ? new https.Agent({ ca: options.ca, keepAlive: false }) : new http.Agent({ keepAlive: false });
  const rules: Rule[] = [];
  const log: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (fn: () => void, ms: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const take = (path: string): Fault | null => {
    for (const rule of rules) {
      if (rule.remaining <= 0 || !rule.match(path)) continue;
      rule.remaining--;
      return rule.fault;
    }
    return null;
  };

  const server = http.createServer((req, res) => {
    const path = req.url ?? "/";
    const fault = take(path);
    const entry: ProxiedRequest = {
      at: Date.now(),
      method: req.method ?? "GET",
      path,
      ifNoneMatch: (req.headers["if-none-match"] as string | undefined) ?? null,
      status: 0,
      fault: fault?.kind ?? null,
    };
    log.push(entry);
    if (fault?.kind === "down") {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === "status") {
      entry.status = fault.status;
      const headers: Record<string, string> = { "content-type": "application/xml" };
      if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
      if (fault.skewMs !== undefined) headers.date = new Date(Date.now() + fault.skewMs).toUTCString();
      const code = fault.skewMs !== undefined ? "RequestTimeTooSkewed" : fault.status === 429 ? "SlowDown" : "InternalError";
      res.writeHead(fault.status, headers);
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>injected by the fault proxy</Message></Error>`);
      return;
    }
    if (fault?.kind === "redirectLoop") {
      entry.status = 302;
      res.writeHead(302, { location: path });
      res.end();
      return;
    }
    const forwarded = (secure ? https : http).request(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        path,
        method: req.method,
        headers: req.headers,
        agent,
        servername: secure ? target.hostname : undefined,
      },
      (upstreamRes) => {
        entry.status = upstreamRes.statusCode ?? 0;
        const headers = { ...upstreamRes.headers };
        if (fault === null || upstreamRes.statusCode !== 200) {
          res.writeHead(upstreamRes.statusCode ?? 502, headers);
          upstreamRes.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        upstreamRes.on("data", (c: Buffer) => chunks.push(c));
        upstreamRes.on("end", () => {
          const body = Buffer.concat(chunks);
          const half = body.subarray(0, Math.floor(body.length / 2));
          switch (fault.kind) {
            case "corrupt": {
              const changed = Buffer.from(body);
              for (let i = 0; i < changed.length; i += 97) changed[i] ^= 0x5a;
              res.writeHead(200, headers);
              res.end(changed);
              return;
            }
            case "truncate":
              res.writeHead(200, { ...headers, "content-length": String(half.length) });
              res.end(half);
              return;
            case "reset":
              res.writeHead(200, headers);
              res.write(half, () => later(() => req.socket.resetAndDestroy(), 20));
              return;
            case "stall":
              res.writeHead(200, headers);
              res.write(half);
              return; // nothing more: the socket stays open until the client gives up
            case "slow": {
              res.writeHead(200, headers);
              let at = 0;
              const step = () => {
                if (at >= body.length) return void res.end();
                const piece = body.subarray(at, at + Math.max(1, Math.ceil(body.length / 8)));
                at += piece.length;
                res.write(piece);
                later(step, fault.delayMs);
              };
              step();
              return;
            }
            case "down":
            case "redirectLoop":
              return; // answered before the request reached the origin
          }
        });
      },
    );
    forwarded.on("error", () => {
      entry.status = 502;
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forwarded);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    log,
    fault(match, fault, times = Number.POSITIVE_INFINITY) {
      const test = typeof match === "string" ? (path: string) => path.split("?")[0].endsWith(match) : match;
      rules.unshift({ match: test, fault, remaining: times });
    },
    clear() {
      rules.length = 0;
    },
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
