/**
 * HTTP/1.1 over a raw TCP socket: bytes in, bytes out, and a small response
 * parser (status line, headers, Content-Length bodies; HEAD answers carry no
 * body) — for what fetch cannot send or does not show: pipelining, HEAD
 * framing, header bytes that are not ASCII, clients that never read.
 */
import net from "node:net";

export interface RawResponse {
  readonly status: number;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
  header(name: string): string | undefined;
}

/** Parses consecutive responses; `methods[i]` is the method of the i-th request (HEAD → no body). */
export function parseResponses(data: Buffer, methods: readonly string[]): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf("\r\n\r\n", at, "latin1");
    if (end < 0) break;
    const lines = data.toString("latin1", at, end).split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1] ?? NaN);
    const headers = lines.slice(1).map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const;
    });
    const lengthText = headers.find(([name]) => name === "content-length")?.[1];
    const isHead = methods[responses.length] === "HEAD";
    const length = isHead || status === 304 || status === 204 ? 0 : Number(lengthText ?? 0);
    const bodyStart = end + 4;
    if (bodyStart + length > data.length) break;
    const body = data.subarray(bodyStart, bodyStart + length);
    responses.push({ status, headers, body, header: (name) => headers.find(([n]) => n === name.toLowerCase())?.[1] });
    at = bodyStart + length;
  }
  return { responses, rest: data.subarray(at) };
}

export interface RawExchangeOptions {
  /** Stop once this many responses have arrived. */
  readonly responses: number;
  /** Methods of the requests, in order (for HEAD framing). */
  readonly methods: readonly string[];
  readonly timeoutMs?: number;
  readonly localAddress?: string;
}

/** Sends `payload` on a new connection and reads until `responses` complete responses arrived (or timeout / close). */
export function rawExchange(
  port: number,
  payload: Buffer | string,
  options: RawExchangeOptions,
): Promise<{ responses: RawResponse[]; rest: Buffer; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: "127.0.0.1", localAddress: options.localAddress });
    let data = Buffer.alloc(0);
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseResponses(data, options.methods), closed });
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 3000);
    socket.on("data", (chunk) => {
      data = Buffer.concat([data, chunk]);
      if (parseResponses(data, options.methods).responses.length >= options.responses) finish();
    });
    socket.on("close", () => {
      closed = true;
      finish();
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.write(payload);
  });
}

/** One request's bytes. */
export function rawRequest(method: string, path: string, headers: Record<string, string | Buffer> = {}, body?: Buffer | string): Buffer {
  const parts: Buffer[] = [Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`, "latin1")];
  for (const [name, value] of Object.entries(headers))
    parts.push(Buffer.from(`${name}: `, "latin1"), Buffer.isBuffer(value) ? value : Buffer.from(value, "latin1"), Buffer.from("\r\n"));
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8");
  if (bytes !== undefined) parts.push(Buffer.from(`content-length: ${bytes.length}\r\n`));
  parts.push(Buffer.from("\r\n"));
  if (bytes !== undefined) parts.push(bytes);
  return Buffer.concat(parts);
}

/** A raw TCP connection kept open: every byte received so far, and waits on them. */
export class RawConnection {
  data = Buffer.alloc(0);
  closed = false;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: net.Socket) {
    socket.on("data", (chunk) => {
      this.data = Buffer.concat([this.data, chunk]);
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => {}); // a reset shows as `closed`
  }

  /** Connects to 127.0.0.1:`port` and writes `payload` (if any). */
  static open(port: number, payload?: Buffer | string): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: "127.0.0.1" });
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        const connection = new RawConnection(socket);
        if (payload !== undefined) socket.write(payload);
        resolve(connection);
      });
    });
  }

  write(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  /** Waits until `done(data)` holds (or the connection closed, when `orClosed`); throws after `timeoutMs`. */
  async until(what: string, done: (data: Buffer) => boolean, timeoutMs = 10_000, orClosed = false): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.data) && !(orClosed && this.closed)) {
      const left = deadline - Date.now();
      if (left <= 0 || this.closed)
        throw new Error(
          `${what}: not within ${timeoutMs} ms (closed: ${this.closed}; received ${JSON.stringify(this.data.toString("latin1").slice(-300))})`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.data;
  }

  /** Waits until the peer closed the connection. */
  async closedWithin(timeoutMs: number): Promise<void> {
    await this.until("the connection to close", () => false, timeoutMs, true);
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/** The head of a response (up to its blank line) and the bytes after it; null until the head is complete. */
export function splitHead(data: Buffer): { status: number; headers: Array<[string, string]>; rest: Buffer } | null {
  const end = data.indexOf("\r\n\r\n", 0, "latin1");
  if (end < 0) return null;
  const lines = data.toString("latin1", 0, end).split("\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(lines[0])?.[1] ?? NaN);
  const headers = lines.slice(1).map((line): [string, string] => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
  });
  return { status, headers, rest: data.subarray(end + 4) };
}

/**
 * A chunked body decoded strictly (RFC 9112 §7.1: `size CRLF data CRLF`, then `0 CRLF`, no trailer, `CRLF`);
 * throws on any byte out of place. `ended`: the terminating chunk arrived; `rest`: bytes after it.
 */
export function decodeChunked(body: Buffer): { data: Buffer; ended: boolean; rest: Buffer } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", at, "latin1");
    if (lineEnd < 0) {
      if (!/^[0-9a-fA-F]*$/.test(body.toString("latin1", at))) throw new Error(`malformed chunk size at byte ${at}`);
      return { data: Buffer.concat(parts), ended: false, rest: Buffer.alloc(0) };
    }
    const sizeText = body.toString("latin1", at, lineEnd);
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) throw new Error(`malformed chunk size ${JSON.stringify(sizeText.slice(0, 80))} at byte ${at}`);
    const size = parseInt(sizeText, 16);
    const dataStart = lineEnd + 2;
    if (size === 0) {
      if (body.length < dataStart + 2) return { data: Buffer.concat(parts), ended: false, rest: Buffer.alloc(0) };
      if (body.toString("latin1", dataStart, dataStart + 2) !== "\r\n")
        throw new Error(`a trailer or bytes after the last chunk at byte ${dataStart}`);
      return { data: Buffer.concat(parts), ended: true, rest: body.subarray(dataStart + 2) };
    }
    if (body.length < dataStart + size + 2) return { data: Buffer.concat(parts), ended: false, rest: Buffer.alloc(0) };
    parts.push(body.subarray(dataStart, dataStart + size));
    if (body.toString("latin1", dataStart + size, dataStart + size + 2) !== "\r\n")
      throw new Error(`chunk of ${size} bytes at byte ${dataStart} not followed by CRLF`);
    at = dataStart + size + 2;
  }
}

/** A complete answer at the start of `data`: a 101 or an event stream once its head arrived, else once its Content-Length body did. */
export function answerOf(data: Buffer): { status: number; header(name: string): string | undefined; body: any; rest: Buffer } | null {
  const head = splitHead(data);
  if (head === null) return null;
  const header = (name: string) => head.headers.find(([n]) => n === name.toLowerCase())?.[1];
  if (head.status === 101 || header("content-type") === "text/event-stream")
    return { status: head.status, header, body: undefined, rest: head.rest };
  const length = Number(header("content-length") ?? 0);
  if (head.rest.length < length) return null;
  const text = head.rest.toString("utf8", 0, length);
  return { status: head.status, header, body: text.startsWith("{") ? JSON.parse(text) : text, rest: head.rest.subarray(length) };
}
