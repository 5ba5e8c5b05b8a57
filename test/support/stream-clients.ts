/**
 * Real clients of GET /v1/stream: WebSocket (the `ws` package) and server-sent
 * events (fetch's body stream over HTTP, node:https over HTTPS), each
 * collecting the events it receives, parsed, with the raw JSON text kept.
 */
import https from "node:https";
import WebSocket from "ws";
import { KEYS } from "./fixtures.js";
import { jsonOrUndefined } from "./gateway-process.js";

export interface StreamEvent {
  /** The event's JSON, parsed. */
  readonly event: any;
  /** The JSON text as received (WebSocket message, SSE `data` line). */
  readonly text: string;
  /** SSE only: the `event` and `id` fields. */
  readonly sseType?: string;
  readonly sseId?: string | null;
}

/** Events as they arrive, with waits for the next ones. */
export class EventLog {
  readonly events: StreamEvent[] = [];
  private waiters: Array<() => void> = [];
  private cursor = 0;

  push(event: StreamEvent): void {
    this.events.push(event);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Wakes waiters (the stream ended). */
  wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** The next event not yet taken (in order), waiting up to `timeoutMs`. */
  async next(timeoutMs = 10_000): Promise<StreamEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.cursor >= this.events.length) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no stream event within ${timeoutMs} ms (received ${this.events.length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.events[this.cursor++];
  }

  /** Takes events in order until one matches (the skipped ones are returned too). */
  async until(match: (event: any) => boolean, timeoutMs = 10_000): Promise<{ found: StreamEvent; skipped: StreamEvent[] }> {
    const skipped: StreamEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.next(Math.max(1, deadline - Date.now()));
      if (match(e.event)) return { found: e, skipped };
      skipped.push(e);
    }
  }

  /** Every event not taken yet, after waiting `quietMs` for more. */
  async rest(quietMs = 300): Promise<StreamEvent[]> {
    await new Promise((r) => setTimeout(r, quietMs));
    const out = this.events.slice(this.cursor);
    this.cursor = this.events.length;
    return out;
  }
}

export interface Refusal {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly body: any;
}

export interface WsClient extends EventLog {
  readonly ws: WebSocket;
  /** The 101 response's headers. */
  readonly upgradeHeaders: Record<string, string | string[] | undefined>;
  readonly closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
}

export interface WsOptions {
  /** The API key; null: no Authorization header. */
  readonly key?: string | null;
  readonly headers?: Record<string, string>;
  /** HTTPS: the CA to trust. */
  readonly ca?: string;
}

function wsUrl(baseUrl: string, query: string): string {
  return `${baseUrl.replace(/^http/, "ws")}/v1/stream${query === "" ? "" : `?${query}`}`;
}

/** Opens a WebSocket; resolves once open, or with the plain HTTP refusal when the server does not upgrade. */
export function connectWs(baseUrl: string, query = "", options: WsOptions = {}): Promise<WsClient | Refusal> {
  const key = options.key === undefined ? KEYS.active : options.key;
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const ws = new WebSocket(wsUrl(baseUrl, query), {
    headers,
    ...(options.ca === undefined ? {} : { ca: options.ca, servername: "localhost" }),
    maxPayload: 256 * 1024 * 1024,
  });
  const log = new EventLog();
  let upgradeHeaders: Record<string, string | string[] | undefined> = {};
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on("close", (code, reason) => {
      log.wake();
      resolve({ code, reason: reason.toString() });
    });
  });
  ws.on("message", (data, isBinary) => {
    const text = isBinary ? `<binary ${(data as Buffer).length} bytes>` : data.toString();
    let event: any;
    try {
      event = JSON.parse(text);
    } catch {
      event = { unparsable: text };
    }
    log.push({ event, text });
  });
  ws.on("upgrade", (res) => {
    upgradeHeaders = res.headers;
  });
  return new Promise((resolve, reject) => {
    ws.on("unexpected-response", (_req, res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        let body: any;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    ws.on("error", (error) => reject(error));
    ws.on("open", () => {
      const client = Object.assign(log, {
        ws,
        upgradeHeaders,
        closed,
        send: (message: unknown) => ws.send(typeof message === "string" ? message : JSON.stringify(message)),
      });
      resolve(client as WsClient);
    });
  });
}

/** A WebSocket that must open. */
export async function openWs(baseUrl: string, query = "", options: WsOptions = {}): Promise<WsClient> {
  const client = await connectWs(baseUrl, query, options);
  if (!("ws" in client)) throw new Error(`the stream was refused: ${client.status} ${client.text}`);
  return client;
}

/** A WebSocket upgrade that must be refused: the plain HTTP answer. */
export async function refusedWs(baseUrl: string, query = "", options: WsOptions = {}): Promise<Refusal> {
  const client = await connectWs(baseUrl, query, options);
  if ("ws" in client) {
    client.ws.terminate();
    throw new Error("the stream was opened, not refused");
  }
  return client;
}

export interface SseClient extends EventLog {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Comment lines received (`: ping`…). */
  readonly comments: string[];
  /** Resolves when the server ends the response (or the connection fails). */
  readonly ended: Promise<void>;
  close(): void;
}

export interface SseOptions {
  readonly key?: string | null;
  readonly headers?: Record<string, string>;
  /** HTTPS: the CA to trust (node:https instead of fetch). */
  readonly ca?: string;
}

/** Parses SSE bytes into events (the standard's field rules; comments kept apart). */
class SseParser {
  private pending = "";
  private type = "";
  private id: string | null = null;
  private data: string[] = [];
  private hasId = false;

  constructor(
    private readonly log: EventLog,
    private readonly comments: string[],
  ) {}

  push(text: string): void {
    this.pending += text;
    let nl: number;
    while ((nl = this.pending.indexOf("\n")) >= 0) {
      let line = this.pending.slice(0, nl);
      this.pending = this.pending.slice(nl + 1);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line === "") {
        if (this.data.length > 0) {
          const text = this.data.join("\n");
          let event: any;
          try {
            event = JSON.parse(text);
          } catch {
            event = { unparsable: text };
          }
          this.log.push({ event, text, sseType: this.type === "" ? "message" : this.type, sseId: this.hasId ? this.id : null });
        }
        this.type = "";
        this.data = [];
        this.hasId = false;
        continue;
      }
      if (line.startsWith(":")) {
        this.comments.push(line);
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") this.type = value;
      else if (field === "data") this.data.push(value);
      else if (field === "id") {
        this.id = value;
        this.hasId = true;
      }
    }
  }
}

/**
 * Opens GET /v1/stream as server-sent events (Accept: text/event-stream unless
 * `headers` says otherwise). A non-200 answer is returned as a Refusal.
 */
export async function connectSse(baseUrl: string, query = "", options: SseOptions = {}): Promise<SseClient | Refusal> {
  const key = options.key === undefined ? KEYS.active : options.key;
  const headers: Record<string, string> = { accept: "text/event-stream", ...(options.headers ?? {}) };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const url = `${baseUrl}/v1/stream${query === "" ? "" : `?${query}`}`;
  if (options.ca !== undefined) return connectSseHttps(url, headers, options.ca);
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const plainHeaders = Object.fromEntries(res.headers.entries());
  if (res.status !== 200) {
    const text = await res.text();
    return { status: res.status, headers: plainHeaders, text, body: jsonOrUndefined(text) };
  }
  const log = new EventLog();
  const comments: string[] = [];
  const parser = new SseParser(log, comments);
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted by close(), or the connection failed
    } finally {
      log.wake();
    }
  })();
  return Object.assign(log, { status: res.status, headers: plainHeaders, comments, ended, close: () => controller.abort() }) as SseClient;
}

function connectSseHttps(url: string, headers: Record<string, string>, ca: string): Promise<SseClient | Refusal> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { headers, ca, servername: "localhost" }, (res) => {
      res.setEncoding("utf8");
      const plainHeaders = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)]));
      if (res.statusCode !== 200) {
        let text = "";
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: JSON.parse(text) }));
        return;
      }
      const log = new EventLog();
      const comments: string[] = [];
      const parser = new SseParser(log, comments);
      const ended = new Promise<void>((done) => {
        res.on("data", (chunk: string) => parser.push(chunk));
        res.on("end", () => {
          log.wake();
          done();
        });
        res.on("close", () => {
          log.wake();
          done();
        });
      });
      resolve(Object.assign(log, { status: 200, headers: plainHeaders, comments, ended, close: () => req.destroy() }) as SseClient);
    });
    req.on("error", reject);
  });
}

export async function openSse(baseUrl: string, query = "", options: SseOptions = {}): Promise<SseClient> {
  const client = await connectSse(baseUrl, query, options);
  if (!("ended" in client)) throw new Error(`the stream was refused: ${client.status} ${client.text}`);
  return client;
}

export async function refusedSse(baseUrl: string, query = "", options: SseOptions = {}): Promise<Refusal> {
  const client = await connectSse(baseUrl, query, options);
  if ("ended" in client) {
    client.close();
    throw new Error("the stream was opened, not refused");
  }
  return client;
}

/** A refusal as the envelope assertions read responses (status, Headers, text, body). */
export function refusalResponse(r: Refusal) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(r.headers))
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  return { status: r.status, headers, text: r.text, body: r.body };
}

/** The clients a test file opened, closed together when it ends (whatever its assertions left open). */
export class OpenClients {
  private readonly clients: Array<WsClient | SseClient> = [];

  track<T extends WsClient | SseClient>(client: T): T {
    this.clients.push(client);
    return client;
  }

  add(...clients: Array<WsClient | SseClient>): void {
    this.clients.push(...clients);
  }

  closeAll(): void {
    for (const client of this.clients.splice(0)) {
      if ("ws" in client) client.ws.terminate();
      else client.close();
    }
  }
}
