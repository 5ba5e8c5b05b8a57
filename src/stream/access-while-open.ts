/**
 * Access while open (live.md §13; decision 012): a stream lives only as long
 * as its key may hold it. On every keys-file reload each open connection is
 * checked as a request with its key would be now (src/access/reauthorize.ts),
 * and when the earliest `expiresAt` among the keys holding streams passes,
 * that key's connections are (key-watch.ts groups them by key, so nothing of
 * this runs per event or per request). A connection that stays holds its
 * key's new entry: its chains (what `changes` stands for: re-scoped), its
 * place among the key's streams (which follows the key to another id). A
 * refused one is revoked: an `error` event, then the close (WebSocket 4401 or
 * 4403 with the error code as reason, SSE end of response).
 */
import type { KeyEntry, KeyStore } from "../access/key-store.js";
import { reauthorize } from "../access/reauthorize.js";
import { ApiError } from "../api/errors.js";
import type { Logger } from "../log/logger.js";
import { revocationCloseCode } from "./close-codes.js";
import { KeyWatch } from "./key-watch.js";
import type { KeyStreams } from "./key-streams.js";
import { NO_TOPICS, readableChains, type StreamConnection } from "./stream-connection.js";
import { errorEventJson, type StreamEventType } from "./stream-events.js";

/** What a check does to the rest of the thread. */
export interface AccessHooks {
  /** `changes` of the connection now stands for the chains of `readable`. */
  rescope(conn: StreamConnection, readable: number): void;
  /** What waited for the connection goes (it is revoked). */
  forget(conn: StreamConnection): void;
  send(conn: StreamConnection, type: StreamEventType, position: string | null, json: string): void;
  end(conn: StreamConnection, code: number, reason: string): void;
}

export class AccessWhileOpen {
  /** Open connections by key: what a keys reload re-checks, what an expiry closes. */
  private readonly watch: KeyWatch<StreamConnection>;

  constructor(
    /** The keys in force (replaced by `keysChanged`). */
    keys: KeyStore,
    private readonly keyStreams: KeyStreams,
    /** The usual error object of an ApiError (the HTTP edge's, so stream errors match the HTTP refusals). */
    private readonly errorObjectOf: (error: ApiError) => object,
    private readonly hooks: AccessHooks,
    private readonly log: Logger,
  ) {
    this.watch = new KeyWatch<StreamConnection>(
      keys,
      (conn, current, now) => this.recheck(conn, current, now),
      (conn) => conn.attached,
    );
  }

  /** The connection's transport opened: it is watched under its key. */
  track(conn: StreamConnection): void {
    this.watch.track(conn);
  }

  untrack(conn: StreamConnection): void {
    this.watch.untrack(conn);
  }

  /**
   * The keys file changed (every serving thread gets the new store): each open connection is checked
   * against it. O(open connections), plus a walk of a connection's topics only when its key's chains changed.
   */
  keysChanged(keys: KeyStore, now: number): void {
    this.watch.keysChanged(keys, now);
  }

  /** Shutdown: no more expiry checks. */
  stop(): void {
    this.watch.stop();
  }

  /** Checks a connection against `keys` at `now`: true when it stays open (holding its key's new entry), else it is revoked. */
  private recheck(conn: StreamConnection, keys: KeyStore, now: number): boolean {
    let entry: KeyEntry;
    try {
      entry = reauthorize(conn.key, conn.maskedKey, keys, now, "stream", (next) => this.heldChains(conn, next));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.revoke(conn, error);
      return false;
    }
    if (entry !== conn.key) {
      const readable = readableChains(entry);
      if (readable !== conn.readable) this.hooks.rescope(conn, readable);
      conn.key = entry;
    }
    // The reload may have given the key another id (and so another slot): its place among its open streams follows.
    const slot = this.keyStreams.slotOf(entry.id);
    if (slot !== conn.keySlot) {
      this.keyStreams.move(conn.keySlot, slot);
      conn.keySlot = slot;
    }
    return true;
  }

  /** The chains a connection names explicitly (its topics, or those it opens with), when `next` restricts them anew. */
  private heldChains(conn: StreamConnection, next: KeyEntry): number[] {
    const before = conn.key.allowedChainIds;
    const after = next.allowedChainIds!;
    if (before !== null && before.every((chainId) => after.includes(chainId))) return []; // nothing it held became forbidden
    const chains = new Set<number>();
    for (const topic of conn.topics) if (topic.chainId !== null) chains.add(topic.chainId);
    for (const topic of conn.opening?.requested ?? NO_TOPICS) if (topic.chainId !== null) chains.add(topic.chainId);
    return [...chains].sort((a, b) => a - b);
  }

  /** The connection's key may no longer hold it: the `error` event, then the close (WebSocket 4401/4403, SSE end). */
  private revoke(conn: StreamConnection, error: ApiError): void {
    this.log.info(
      { event: "stream-revoked", transport: conn.transport, key: conn.key.id, maskedKey: conn.maskedKey, code: error.code },
      `closing a stream its key may no longer hold (${error.code})`,
    );
    this.hooks.forget(conn); // it is closed: what waited goes, the error is sent now
    this.hooks.send(conn, "error", null, errorEventJson(this.errorObjectOf(error)));
    this.hooks.end(conn, revocationCloseCode(error.status), error.code);
  }
}
