/**
 * A raw HTTP/1.1 exchange whose request bytes go out in pieces: each part is
 * its own TCP write, with a pause between them so that they arrive as
 * separate reads (raw-http.ts sends one payload at once). Reads until the
 * server closes, the expected responses are in, or a timeout: never hangs.
 */
import net from "node:net";
import tls from "node:tls";
import { parseResponses, type RawResponse } from "./raw-http.js";

export interface PiecesExchange {
  /** Every byte the server sent. */
  readonly raw: Buffer;
  /** The complete responses in `raw`, in order. */
  readonly responses: readonly RawResponse[];
  /** The server closed the connection (FIN or reset) before we gave up. */
  readonly closed: boolean;
}

export interface PiecesOptions {
  /** Methods of the requests in order (HEAD answers have no body); default GET. */
  readonly methods?: readonly string[];
  /** Pause between two parts, ms (default 20). */
  readonly gapMs?: number;
  /** Give up after this long, ms (default 2000). */
  readonly timeoutMs?: number;
  /** Stop once this many responses are in and the connection stayed open for `settleMs` more. */
  readonly expectResponses?: number;
  /** How long to watch for a close after the expected responses (default 200 ms). */
  readonly settleMs?: number;
  /** Written once the first bytes of an answer are in (never in the same read as the request before it), unless the server closed. */
  readonly followUp?: string;
  /** Speak TLS, trusting this CA (PEM); plain TCP when absent. */
  readonly tlsCa?: string;
  /** Read nothing until this settles (the server's answers back up meanwhile). */
  readonly readAfter?: Promise<unknown>;
}

export function exchangeInPieces(port: number, parts: readonly string[], opts: PiecesOptions = {}): Promise<PiecesExchange> {
  const gapMs = opts.gapMs ?? 20;
  const settleMs = opts.settleMs ?? 200;
  const methods = opts.methods ?? [];
  const parse = (raw: Buffer) => parseResponses(raw, methods).responses;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket: net.Socket =
      opts.tlsCa === undefined
        ? net.connect(port, "127.0.0.1")
        : tls.connect({ port, host: "127.0.0.1", ca: opts.tlsCa, servername: "localhost" });
    if (opts.readAfter !== undefined) {
      socket.pause();
      const resume = () => void socket.resume();
      // A rejection of readAfter is its caller's to handle (it awaits it); reading resumes either way.
      opts.readAfter.then(resume, resume);
    }
    let closed = false;
    let done = false;
    let allWritten = false;
    let followUpSent = opts.followUp === undefined;
    let settleTimer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(giveUp);
      clearTimeout(settleTimer);
      socket.destroy();
      const raw = Buffer.concat(chunks);
      resolve({ raw, responses: parse(raw), closed });
    };
    const giveUp = setTimeout(finish, opts.timeoutMs ?? 2000);
    const sendFollowUp = () => {
      if (followUpSent || !allWritten || chunks.length === 0 || closed) return;
      followUpSent = true;
      socket.write(opts.followUp!);
    };
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      sendFollowUp();
      if (opts.expectResponses !== undefined && settleTimer === undefined && parse(Buffer.concat(chunks)).length >= opts.expectResponses) {
        settleTimer = setTimeout(finish, settleMs);
      }
    });
    socket.on("close", () => {
      closed = true;
      finish();
    });
    socket.on("error", () => {}); // a reset is a close; "close" follows
    socket.on(opts.tlsCa === undefined ? "connect" : "secureConnect", async () => {
      for (let i = 0; i < parts.length && !closed; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, gapMs));
        if (!closed) socket.write(parts[i]);
      }
      allWritten = true;
      sendFollowUp();
    });
  });
}
