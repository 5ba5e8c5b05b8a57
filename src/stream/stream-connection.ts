/**
 * One stream of GET /v1/stream (a WebSocket or an SSE response) as the
 * thread's hub keeps it: where it is in its life (`phase`), its key, the
 * topics it asked for and those the registry holds for it, the answers that
 * wait for the fan-out under way, and its outlet (stream-outlet.ts). Built by
 * the hub's one entrance (`StreamHub.open`), given back by its one way out
 * (`StreamHub.closed`).
 */
import type { KeyEntry } from "../access/key-store.js";
import { SUPPORTED_CHAIN_IDS_ASCENDING } from "../chains/chains.js";
import type { Position } from "../query/positions.js";
import { chainMask } from "../query/token-query.js";
import type { StreamTransport } from "./stream-events.js";
import type { StreamOutlet } from "./stream-outlet.js";
import type { Topic } from "./topics.js";

/**
 * Where a stream is in its life:
 * - `admitted`: its key's place is taken (StreamHub.open); its transport has not opened yet;
 * - `waiting`: its transport is open; it starts once the published mark has come and no fan-out is under way;
 * - `open`: `subscribed` was sent; it holds its topics and gets events;
 * - `closing`: nothing more is sent to it (a slow consumer, a message flood); its close follows;
 * - `closed`: its topics and its key's place are given back.
 */
export type ConnectionPhase = "admitted" | "waiting" | "open" | "closing" | "closed";

export const NO_TOPICS: readonly Topic[] = Object.freeze([]);

/** What a stream opens with (src/http/stream-input.ts reads it from the request). */
export interface StreamOpening {
  readonly topics: readonly Topic[];
  /** Where to replay from (`Last-Event-ID`, else `since`); null: start at the published position. */
  readonly since: Position | null;
}

export class StreamConnection {
  phase: ConnectionPhase = "admitted";
  /** The opening request's topics (what a revocation looks at until the stream starts) and `since`; null once started. */
  opening: { readonly requested: readonly Topic[]; readonly since: Position | null } | null;
  /**
   * The client's topics (canonical), in the order first subscribed: what its later subscribe and unsubscribe
   * messages build on. May run ahead of `held` while a fan-out is under way (the change waits in `owed`).
   */
  topics: readonly Topic[];
  /** The topics the registry and uWS hold for it (nothing until the stream starts). */
  held: readonly Topic[] = NO_TOPICS;
  /** Answers (`subscribed`, `error`) that wait for the fan-out under way, in order; null when none. */
  owed: Array<() => void> | null = null;
  /** Where its events go; null before its transport opens and once closed. */
  outlet: StreamOutlet | null = null;
  /** The chains `changes` stands for: the key's (a chainMask), kept up to date on keys-file reloads. */
  readable: number;
  /**
   * The key's entry: the one it was admitted with, then the one each keys-file reload found for its digest
   * (its chain restrictions apply to later subscriptions).
   */
  key: KeyEntry;

  constructor(
    readonly transport: StreamTransport,
    key: KeyEntry,
    /** The key's masked form (maskKey: what API_KEY_NOT_FOUND and the log show); the key itself is never kept. */
    readonly maskedKey: string,
    /** Where the key's place among its open streams is counted (KeyStreams), given back on close; follows the key's id on reloads. */
    public keySlot: number,
    opening: StreamOpening,
  ) {
    this.key = key;
    this.readable = readableChains(key);
    this.topics = opening.topics;
    this.opening = { requested: opening.topics, since: opening.since };
  }

  /** Its transport is open and it is neither closing nor closed (what a keys reload re-checks). */
  get attached(): boolean {
    return this.phase === "waiting" || this.phase === "open";
  }

  /** Events and answers may still be sent to it. */
  get sending(): boolean {
    return this.phase !== "closing" && this.phase !== "closed";
  }

  /** Nothing more is sent to it: it is being closed. */
  stopSending(): void {
    if (this.phase !== "closed") this.phase = "closing";
  }
}

/** The chains a key may read, as a chainMask. */
export function readableChains(key: KeyEntry): number {
  return chainMask(key.allowedChainIds ?? SUPPORTED_CHAIN_IDS_ASCENDING);
}

export function topicTexts(topics: readonly Topic[]): string[] {
  return topics.map((t) => t.text);
}
