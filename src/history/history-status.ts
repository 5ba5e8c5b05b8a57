/**
 * Where history stands, in a small shared array: written by the history thread (history-service.ts), read
 * by every serving thread for `GET /v1/status` and by the supervisor for the metrics, without messages.
 */

/** The states of `GET /v1/status`'s `history.state`. */
export const HISTORY_STATES = ["off", "ok", "behind", "failed"] as const;
export type HistoryState = (typeof HISTORY_STATES)[number];

const STATE = 0;
const LAST_OBSERVED_AT = 1;
const BYTES = 2;
const FILES = 3;
const RECORDS = 4;
const LAG_SECONDS = 5;
const COMPACTION_STEPS = 6;
const FAILURES = 7;
const QUEUED = 8;
const BACKLOG_HOURS = 9;
const SKIPPED = 10;
const CELLS = 11;

/** A snapshot of the cells (the metrics' figures). */
export interface HistoryFigures {
  readonly state: HistoryState;
  /** generatedAt of the latest file observed (any chain); 0: none. */
  readonly lastObservedAt: number;
  /** Bytes of the store on disk. */
  readonly bytes: number;
  /** Files observed (written) since the process started. */
  readonly files: number;
  /** Records written (entity changes) since the process started. */
  readonly records: number;
  /** Seconds from a file being served to its observations being written, for the latest file. */
  readonly lagSeconds: number;
  readonly compactionSteps: number;
  /** Files whose observations could not be written (full or failing disk). */
  readonly failures: number;
  /** Files waiting to be observed. */
  readonly queued: number;
  /** Hours waiting to be compacted. */
  readonly backlogHours: number;
  /** Files never observed because history was too far behind (their changes went into the next one). */
  readonly skipped: number;
}

export class HistoryStatusCells {
  private readonly cells: Float64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(CELLS * 8)) {
    this.cells = new Float64Array(buffer);
  }

  get state(): HistoryState {
    return HISTORY_STATES[this.cells[STATE]] ?? "off";
  }

  set state(state: HistoryState) {
    this.cells[STATE] = HISTORY_STATES.indexOf(state);
  }

  get lastObservedAt(): number {
    return this.cells[LAST_OBSERVED_AT];
  }

  get bytes(): number {
    return this.cells[BYTES];
  }

  observed(generatedAt: number, records: number, lagSeconds: number): void {
    const c = this.cells;
    if (generatedAt > c[LAST_OBSERVED_AT]) c[LAST_OBSERVED_AT] = generatedAt;
    c[FILES]++;
    c[RECORDS] += records;
    c[LAG_SECONDS] = lagSeconds;
  }

  failed(): void {
    this.cells[FAILURES]++;
  }

  skipped(): void {
    this.cells[SKIPPED]++;
  }

  compacted(): void {
    this.cells[COMPACTION_STEPS]++;
  }

  set(bytes: number, queued: number, backlogHours: number): void {
    this.cells[BYTES] = bytes;
    this.cells[QUEUED] = queued;
    this.cells[BACKLOG_HOURS] = backlogHours;
  }

  /** The last observation known at start (from the store). */
  started(lastObservedAt: number, bytes: number): void {
    this.cells[LAST_OBSERVED_AT] = lastObservedAt;
    this.cells[BYTES] = bytes;
  }

  figures(): HistoryFigures {
    const c = this.cells;
    return {
      state: this.state,
      lastObservedAt: c[LAST_OBSERVED_AT],
      bytes: c[BYTES],
      files: c[FILES],
      records: c[RECORDS],
      lagSeconds: c[LAG_SECONDS],
      compactionSteps: c[COMPACTION_STEPS],
      failures: c[FAILURES],
      queued: c[QUEUED],
      backlogHours: c[BACKLOG_HOURS],
      skipped: c[SKIPPED],
    };
  }
}
