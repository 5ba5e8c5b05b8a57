/**
 * A raw HTTP/1.1 client for edge tests: writes bytes exactly as given (each
 * part as its own TCP write, a pause between them so they arrive as separate
 * reads), reads until the server closes, the expected responses are in, or a
 * timeout: never hangs. Then splits what came back into responses.
 */
import net from "node:net";

export interface RawResponse {
  readonly status: number;
  /** Lower-case header names; every value in order. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  readonly body: Buffer;
}

export interface RawExchange {
  /** Every byte the server sent. */
  readonly raw: Buffer;
  /** The complete responses in `raw`, in order. */
  readonly responses: readonly RawResponse[];
  /** The server closed the connection (FIN or reset) before we gave up. */
  readonly closed: boolean;
  /** Milliseconds from the first write to the close (or to giving up). */
  readonly elapsedMs: number;
}

export interface ExchangeOptions {
  /** Pause between two parts, ms (default 20). */
  readonly gapMs?: number;
  /** Give up after this long, ms (default 2000). */
  readonly timeoutMs?: number;
  /** Stop waiting once this many responses are in and the connection stayed open for `settleMs` more. */
  readonly expectResponses?: number;
  /** How long to watch for a close after the expected responses (default 200 ms). */
  readonly settleMs?: number;
  /** Indexes of the responses that answer HEAD requests (they have no body). */
  readonly headAt?: readonly number[];
  /** Written once the first bytes of an answer are in (never coalesced with the request before it), unless the server closed. */
  readonly followUp?: string;
}

export function exchange(port: number, parts: readonly (string | Buffer)[], opts: ExchangeOptions = {}): Promise<RawExchange> {
  const gapMs = opts.gapMs ?? 20;
  const timeoutMs = opts.timeoutMs ?? 2000;
  const settleMs = opts.settleMs ?? 200;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, "127.0.0.1");
    const started = performance.now();
    let closed = false;
    let done = false;
    let settleTimer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(giveUp);
      clearTimeout(settleTimer);
      const elapsedMs = performance.now() - started;
      socket.destroy();
      const raw = Buffer.concat(chunks);
      resolve({ raw, responses: parseResponses(raw, opts.headAt ?? [], closed), closed, elapsedMs });
    };
    const giveUp = setTimeout(finish, timeoutMs);
    let allWritten = false;
    let followUpSent = opts.followUp === undefined;
    const sendFollowUp = () => {
      if (followUpSent || !allWritten || chunks.length === 0 || closed) return;
      followUpSent = true;
      socket.write(opts.followUp!);
    };
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      sendFollowUp();
      if (opts.expectResponses !== undefined && settleTimer === undefined) {
        if (parseResponses(Buffer.concat(chunks), opts.headAt ?? [], false).length >= opts.expectResponses) settleTimer = setTimeout(finish, settleMs);
      }
    });
    socket.on("close", () => {
      closed = true;
      finish();
    });
    socket.on("error", () => {}); // a reset is a close; "close" follows
    socket.on("connect", async () => {
      for (let i = 0; i < parts.length && !closed; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, gapMs));
        if (!closed) socket.write(parts[i]);
      }
      allWritten = true;
      sendFollowUp();
    });
  });
}

/**
 * Splits a byte stream into responses: status line, fields, then a body of
 * Content-Length bytes (none for HEAD); without Content-Length the body runs
 * to the end of the stream when the server closed it. Stops at the first
 * incomplete or unparsable response.
 */
export function parseResponses(raw: Buffer, headAt: readonly number[], closed: boolean): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf("\r\n\r\n", at, "latin1");
    if (end < 0) break;
    const lines = raw.toString("latin1", at, end).split("\r\n");
    const statusLine = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0]);
    if (!statusLine) break;
    const headers = new Map<string, string[]>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).toLowerCase();
      headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
    }
    let bodyEnd: number;
    const length = headers.get("content-length");
    if (headAt.includes(responses.length)) bodyEnd = end + 4;
    else if (length !== undefined) bodyEnd = end + 4 + Number(length[0]);
    else if (closed) bodyEnd = raw.length;
    else break;
    if (bodyEnd > raw.length) break;
    responses.push({ status: Number(statusLine[1]), headers, body: raw.subarray(end + 4, bodyEnd) });
    at = bodyEnd;
  }
  return responses;
}
