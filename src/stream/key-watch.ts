/**
 * Which keys hold open streams on this thread, and when they must be looked
 * at again (live.md §13, "access while open"): on every keys-file reload,
 * every open stream; when the earliest `expiresAt` among the keys holding
 * streams passes, that key's streams. Streams are grouped by key (SHA-256),
 * so an expiry touches only its key's, and nothing here runs per event or
 * per request. What a check decides (reauthorize, close or re-scope) is the
 * hub's: `recheck` answers whether the stream stays open.
 */
import type { KeyEntry, KeyStore } from "../access/key-store.js";

/** What the watch needs of a stream. */
export interface WatchedStream {
  /** The entry of its key it holds now (the hub replaces it when a reload gives the key a new one). */
  readonly key: KeyEntry;
}

/** Longest setTimeout delay (ms); a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2_147_483_647;

/** A key's open streams on this thread, with the entry they all hold now. */
interface KeyGroup<S> {
  entry: KeyEntry;
  readonly streams: Set<S>;
}

export class KeyWatch<S extends WatchedStream> {
  private readonly byKey = new Map<string, KeyGroup<S>>();
  private timer: NodeJS.Timeout | null = null;
  /** When `timer` fires (epoch ms); +Infinity when none is set. */
  private at = Number.POSITIVE_INFINITY;
  private stopped = false;

  constructor(
    /** The keys in force (replaced by `keysChanged`). */
    private keys: KeyStore,
    /** Checks a stream against `keys` at `now` (closing it when refused); true when it stays open. */
    private readonly recheck: (stream: S, keys: KeyStore, now: number) => boolean,
    /** Whether the stream is open (not closed, not given up before it opened). */
    private readonly isOpen: (stream: S) => boolean,
  ) {}

  /** The keys file changed: every watched stream is checked against the new keys now. */
  keysChanged(keys: KeyStore, now: number): void {
    this.keys = keys;
    const streams: S[] = [];
    for (const group of this.byKey.values()) for (const stream of group.streams) streams.push(stream);
    this.byKey.clear();
    this.check(streams, now);
    this.schedule();
  }

  /** A stream opened: watched under its key, or checked on the next turn when the keys changed since its admission. */
  track(stream: S): void {
    if (this.keys.getById(stream.key.id) === stream.key) {
      this.group(stream);
      if (stream.key.expiresAtMs < this.at) this.schedule();
      return;
    }
    // Admitted under the previous keys file: checked against this one once it has opened (never from inside its opening).
    setImmediate(() => {
      if (!this.isOpen(stream)) return;
      this.check([stream], Date.now());
      this.schedule();
    });
  }

  /** A stream closed. */
  untrack(stream: S): void {
    const sha256 = stream.key.record.sha256;
    const group = this.byKey.get(sha256);
    if (group === undefined || !group.streams.delete(stream) || group.streams.size > 0) return;
    this.byKey.delete(sha256);
    if (this.byKey.size === 0) this.setTimer(Number.POSITIVE_INFINITY);
  }

  /** Shutdown: no more expiry checks. */
  stop(): void {
    this.stopped = true;
    this.setTimer(Number.POSITIVE_INFINITY);
  }

  private group(stream: S): void {
    const sha256 = stream.key.record.sha256;
    let group = this.byKey.get(sha256);
    if (group === undefined) this.byKey.set(sha256, (group = { entry: stream.key, streams: new Set() }));
    group.streams.add(stream);
  }

  private check(streams: readonly S[], now: number): void {
    for (const stream of streams) if (this.isOpen(stream) && this.recheck(stream, this.keys, now)) this.group(stream);
  }

  /** Sets the timer for the earliest expiry among the keys holding streams here. */
  private schedule(): void {
    let next = Number.POSITIVE_INFINITY;
    for (const group of this.byKey.values()) if (group.entry.expiresAtMs < next) next = group.entry.expiresAtMs;
    this.setTimer(next);
  }

  private setTimer(at: number): void {
    if (at === this.at) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.at = at;
    if (at === Number.POSITIVE_INFINITY || this.stopped) return;
    this.timer = setTimeout(() => this.expired(), Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now())));
    this.timer.unref();
  }

  /** The timer fired: the streams of every key whose `expiresAt` passed are checked (and closed). */
  private expired(): void {
    this.timer = null;
    this.at = Number.POSITIVE_INFINITY;
    const now = Date.now();
    const due: S[] = [];
    for (const [sha256, group] of this.byKey) {
      if (group.entry.expiresAtMs > now) continue;
      this.byKey.delete(sha256);
      due.push(...group.streams);
    }
    this.check(due, now);
    this.schedule();
  }
}
