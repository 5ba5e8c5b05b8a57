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
