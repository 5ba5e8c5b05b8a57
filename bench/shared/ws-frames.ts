/**
 * WebSocket frames as bytes (RFC 6455 §5.2), for what a client library would
 * never send (unmasked frames, floods written in one go) and for reading the
 * server's frames off a raw socket: the flood benchmark's client
 * (bench/live/flood-client.ts) and the stream's edge tests use them.
 */
import { createHash, randomBytes } from "node:crypto";

export const OP_TEXT = 0x1;
export const OP_CLOSE = 0x8;

/** One final frame; `masked` false leaves the mask bit clear and the payload as it is (a client must never do that). */
export function clientFrame(opcode: number, payload: Buffer | string, masked = true): Buffer {
  const data = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, "utf8");
  const head: number[] = [0x80 | opcode];
  const maskBit = masked ? 0x80 : 0;
  if (data.length < 126) head.push(maskBit | data.length);
  else if (data.length < 65536) head.push(maskBit | 126, data.length >> 8, data.length & 0xff);
  else throw new Error("frames over 64 KiB are not needed here");
  if (!masked) return Buffer.concat([Buffer.from(head), data]);
  const mask = randomBytes(4);
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i] ^ mask[i % 4];
  return Buffer.concat([Buffer.from(head), mask, out]);
}

/** A masked text frame holding `message` as JSON. */
export function jsonFrame(message: unknown): Buffer {
  return clientFrame(OP_TEXT, JSON.stringify(message));
}

export interface ServerFrame {
  readonly opcode: number;
  readonly payload: Buffer;
}

/** The complete (unmasked, unfragmented) frames at the start of `data`, and how many bytes they take. */
export function serverFrames(data: Buffer): { frames: ServerFrame[]; used: number } {
  const frames: ServerFrame[] = [];
  let at = 0;
  while (data.length - at >= 2) {
    const opcode = data[at] & 0x0f;
    let length = data[at + 1] & 0x7f;
    let start = at + 2;
    if (length === 126) {
      if (data.length - at < 4) break;
      length = data.readUInt16BE(at + 2);
      start = at + 4;
    } else if (length === 127) {
      if (data.length - at < 10) break;
      length = Number(data.readBigUInt64BE(at + 2));
      start = at + 10;
    }
    if (data.length < start + length) break;
    frames.push({ opcode, payload: data.subarray(start, start + length) });
    at = start + length;
  }
  return { frames, used: at };
}

/** A close frame's code and reason. */
export function closeOf(frame: ServerFrame): { code: number; reason: string } {
  return { code: frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005, reason: frame.payload.subarray(2).toString("utf8") };
}

/** The Sec-WebSocket-Accept of a key (RFC 6455 §4.2.2). */
export function acceptOf(key: string): string {
  return createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
}

/**
 * A WebSocket handshake's bytes: GET `path` with Host, `Upgrade: websocket`, `Connection: Upgrade`, a fresh
 * `Sec-WebSocket-Key` and `Sec-WebSocket-Version: 13`, then `changes` (a field set to null is left out; a new
 * one is added). Returns the key sent too.
 */
export function handshakeRequest(path: string, changes: Record<string, string | null> = {}): { bytes: Buffer; key: string } {
  const fields: Record<string, string | null> = {
    Host: "127.0.0.1",
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Key": randomBytes(16).toString("base64"),
    "Sec-WebSocket-Version": "13",
    ...changes,
  };
  let head = `GET ${path} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(fields)) if (value !== null) head += `${name}: ${value}\r\n`;
  return { bytes: Buffer.from(`${head}\r\n`, "latin1"), key: fields["Sec-WebSocket-Key"] ?? "" };
}
