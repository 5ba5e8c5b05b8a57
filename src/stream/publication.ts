/**
 * A serving thread's publication of its swaps to its streams (live.md §13):
 * every snapshot the thread swaps in waits here until the supervisor says
 * every thread serves it (`confirm`, decision 006); then the change sets of
 * every snapshot up to it go out, in swap order, one publication at a time,
 * in slices: the fan-out's steps (fan-out.ts) until a slice's cost is spent,
 * then the rest at the next turn of the event loop, so the thread answers
 * requests between slices (decision 008). A publication's position becomes the
 * published one (where streams opening now start) once all its events are
 * out; between publications the hub lets what waited go on (`between`: streams
 * that opened meanwhile start, topic changes apply).
 */
import { encodePosition } from "../query/positions.js";
import type { ServingSnapshot } from "../serving/serving-snapshot.js";
import { FANOUT_SLICE_COST } from "./fan-out.js";
import { swappedSnapshot, type SwappedSnapshot } from "./swapped-snapshot.js";

/** The position with no chain (nothing served yet). */
export const EMPTY_POSITION = encodePosition(new Map());

/** What a publication tells the thread. */
export interface PublicationHooks {
  /** Between publications (and once none is left): what waited for the fan-out goes on. */
  between(): void;
  /** A publication that carried change sets is out: seconds from this thread's swap to its last event. */
  delay(seconds: number): void;
  /** Building or sending a publication's events failed (the rest of it is dropped). */
  failed(error: unknown): void;
}

export interface PublicationOptions {
  /** The fan-out's steps of a publication (FanOut.steps), each yielding its cost. */
  readonly steps: (entry: SwappedSnapshot) => Generator<number, void>;
  readonly hooks: PublicationHooks;
  /** Runs the next slice at the next turn of the event loop (default setImmediate). */
  readonly nextTurn?: (run: () => void) => void;
  /** What a slice may cost (default FANOUT_SLICE_COST). */
  readonly sliceCost?: number;
  /** The clock of `swappedAt` and the delay (default Date.now). */
  readonly now?: () => number;
}

export class Publication {
  private readonly pending: SwappedSnapshot[] = [];
  private published: SwappedSnapshot | null = null;
  private publishedPublication = 0;
  private publishedPosition = EMPTY_POSITION;
  /** The highest publication every thread serves (the supervisor's last `publish`). */
  private confirmed = 0;
  /** The supervisor has given this thread its published mark (its first `publish`); until then streams wait. */
  private marked = false;
  /** The publication whose events are being sent, and what is left of them; null between fan-outs. */
  private fanning: { readonly entry: SwappedSnapshot; readonly steps: Generator<number, void> } | null = null;
  private readonly options: Required<PublicationOptions>;

  constructor(options: PublicationOptions) {
    this.options = { nextTurn: setImmediate, sliceCost: FANOUT_SLICE_COST, now: Date.now, ...options };
  }

  /** The position streams opening now start at: what every thread serves. */
  get position(): string {
    return this.publishedPosition;
  }

  /** The last snapshot whose events are out (what a stream resuming from a position is replayed from). */
  get latest(): SwappedSnapshot | null {
    return this.published;
  }

  /** A fan-out is under way, or the published mark has not come yet: streams opening now, and topic changes, wait. */
  get waits(): boolean {
    return !this.marked || this.fanning !== null;
  }

  /** A fan-out is under way. */
  get busy(): boolean {
    return this.fanning !== null;
  }

  /** This thread serves `snapshot` from now on: its change sets wait for `confirm`. */
  swapped(snapshot: ServingSnapshot): void {
    const publication = snapshot.changes.publication;
    if (publication <= this.publishedPublication) return;
    const entry = swappedSnapshot(snapshot, this.options.now());
    let at = this.pending.length;
    while (at > 0 && this.pending[at - 1].snapshot.changes.publication > publication) at--;
    if (at > 0 && this.pending[at - 1].snapshot.changes.publication === publication) this.pending[at - 1] = entry;
    else this.pending.splice(at, 0, entry);
  }

  /** Every thread serves publication `publication`: the change sets of every snapshot up to it are published, in order. */
  confirm(publication: number): void {
    if (publication > this.confirmed) this.confirmed = publication;
    this.marked = true;
    if (this.fanning === null) this.run(this.options.sliceCost);
  }

  /** Drain: the fan-out under way goes out now, whole (what every thread serves goes out before the streams close). */
  finish(): void {
    if (this.fanning !== null) this.run(Number.POSITIVE_INFINITY);
  }

  /**
   * Publishes confirmed snapshots' events until `budget` is spent, then goes on at the next turn of the event
   * loop (uWS sends what was published at the end of each turn). One publication at a time, its events in
   * order: a later swap's never overtake an earlier one's.
   */
  private run(budget: number): void {
    let spent = 0;
    for (;;) {
      if (this.fanning === null) {
        this.options.hooks.between();
        const next = this.pending[0];
        if (next === undefined || next.snapshot.changes.publication > this.confirmed) return;
        this.pending.shift();
        this.fanning = { entry: next, steps: this.options.steps(next) };
      }
      const job = this.fanning;
      let step: IteratorResult<number, void>;
      try {
        step = job.steps.next();
      } catch (error) {
        this.options.hooks.failed(error);
        step = { done: true, value: undefined };
      }
      if (step.done === true) {
        this.fanning = null;
        this.published = job.entry;
        this.publishedPublication = job.entry.snapshot.changes.publication;
        this.publishedPosition = job.entry.snapshot.changes.positionText ?? EMPTY_POSITION;
        if (job.entry.snapshot.changes.introduced.length > 0)
          this.options.hooks.delay(Math.max(0, this.options.now() - job.entry.swappedAt) / 1000);
        continue;
      }
      spent += step.value;
      if (spent < budget) continue;
      this.options.nextTurn(() => {
        if (this.fanning === job) this.run(this.options.sliceCost);
      });
      return;
    }
  }
}
