/**
 * The uWS side of a stream: where one connection's events go (its WebSocket,
 * or its SSE response's channel), and where a fan-out writes (the app's
 * pub/sub for WebSockets, decision 007; the channels for SSE). The hub and its
 * parts talk to an outlet, never to uWS.
 */
import type { TemplatedApp, WebSocket } from "uWebSockets.js";
import { shardTopic, type FanOutSink } from "./fan-out.js";
import { sseEvent, SSE_PING } from "./sse.js";
import type { SseChannel } from "./sse-channel.js";
import type { StreamEventType } from "./stream-events.js";

export interface StreamOutlet {
  /** Its fan-out shard (WebSocket; 0 for SSE). */
  readonly shard: number;
  /** The SSE channel the registry holds as a topic's holder; null for a WebSocket (uWS holds it). */
  readonly channel: SseChannel | null;
  /** One event, to this connection alone. */
  send(type: StreamEventType, position: string | null, json: Buffer | string): void;
  /** uWS pub/sub: the WebSocket holds (or lets go of) a topic through its shard's uWS topic; nothing for SSE. */
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
  /** Runs `sends` with the socket corked (one write for what they send); SSE: at once. */
  cork(sends: () => void): void;
  /** Bytes the socket has not taken (WebSocket; 0 for SSE, whose channel counts its own). */
  buffered(): number;
  /** The idle heartbeat: an SSE comment (uWS pings WebSockets itself). */
  heartbeat(): void;
  /** Ends it after what it was sent: WebSocket close frame `code`/`reason`, SSE end of response. */
  end(code: number, reason: string): void;
  /** Cuts it at once, without a close frame (what it holds is dropped). */
  cut(): void;
}

export class SocketOutlet implements StreamOutlet {
  readonly channel = null;

  constructor(
    private readonly ws: WebSocket<unknown>,
    readonly shard: number,
  ) {}

  send(_type: StreamEventType, _position: string | null, json: Buffer | string): void {
    this.ws.send(json, false, false);
  }

  subscribe(topic: string): void {
    this.ws.subscribe(shardTopic(topic, this.shard));
  }

  unsubscribe(topic: string): void {
    this.ws.unsubscribe(shardTopic(topic, this.shard));
  }

  cork(sends: () => void): void {
    this.ws.cork(sends);
  }

  buffered(): number {
    return this.ws.getBufferedAmount();
  }

  heartbeat(): void {}

  end(code: number, reason: string): void {
    this.ws.end(code, reason);
  }

  cut(): void {
    this.ws.close();
  }
}

export class ChannelOutlet implements StreamOutlet {
  readonly shard = 0;

  constructor(
    readonly channel: SseChannel,
    /** Completes the response once (gives the connection back, tells the HTTP edge). */
    private readonly settle: () => void,
  ) {}

  send(type: StreamEventType, position: string | null, json: Buffer | string): void {
    this.channel.write(sseEvent(type, position, typeof json === "string" ? Buffer.from(json) : json));
  }

  subscribe(): void {}

  unsubscribe(): void {}

  cork(sends: () => void): void {
    sends();
  }

  buffered(): number {
    return 0;
  }

  heartbeat(): void {
    this.channel.write(SSE_PING);
  }

  end(): void {
    this.channel.end();
    this.settle();
  }

  cut(): void {
    this.channel.close();
    this.settle();
  }
}

/** The fan-out's sink in a serving thread: the app's pub/sub (once attached) and the SSE channels. */
export class AppSink implements FanOutSink<SseChannel> {
  app: TemplatedApp | null = null;

  publish(topic: string, message: Buffer): void {
    this.app?.publish(topic, message, false, false);
  }

  write(channel: SseChannel, bytes: Buffer): void {
    channel.write(bytes);
  }
}
