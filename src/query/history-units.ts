/**
 * What history is made of (shared/spec/history.md §22-§23), for the store (src/history/) and the answers
 * (history-answer.ts) alike. Pure values and functions; no I/O.
 *
 * An **observation** is one served chain file seen at its `generatedAt`: every token and pool present in
 * it, with its values then. The store keeps an entity's *records* only where its values changed (or it
 * appeared or left); its value at any observed file is its last record at or before it.
 *
 * A **unit** is what a tier holds of one entity over one span: the raw tier one observation (span: one
 * file), the hourly tier one UTC hour, the daily tier one UTC day. Units compose into buckets of any width
 * that is a multiple of the span (aggregate 5, 15, 4, 12): first, highest, lowest and last value.
 */

/** Tokens and pools: the two kinds of entity. */
export const TOKEN = 0;
export const POOL = 1;
export type EntityKind = typeof TOKEN | typeof POOL;

/** Values observed of a token: its served price (`trackedUsdPrice`) and pooled value (`totalValuePooledUsd`). */
export const TOKEN_VALUES = 2;
/** Values observed of a pool: `balance.totalValueLockedUsd`, and `stats.stats24h`'s volume, fees and yield. */
export const POOL_VALUES = 4;

/** How many values one observation of a kind holds. */
export function valueCount(kind: EntityKind): number {
  return kind === TOKEN ? TOKEN_VALUES : POOL_VALUES;
}

/**
 * How many numbers a unit of a kind holds: a token's price open, high, low, close and its pooled value at
 * the close; a pool's four values at the close (a pool row is a bucket's last observation).
 */
export function unitValueCount(kind: EntityKind): number {
  return kind === TOKEN ? 5 : POOL_VALUES;
}

/** One stored change of an entity: at an observed file, its new values, or that it left the file. */
export interface RawRecord {
  /** generatedAt of the file (Unix seconds). */
  readonly t: number;
  /** Order among the chain's observed files of the same `t` (0 for the first; files of one second are rare). */
  readonly seq: number;
  /** null: the entity is not in the file (removed). */
  readonly values: readonly number[] | null;
}

/** An entity's state at an observed file: its values, or absent. */
export type EntityState = readonly number[] | null;

/** One unit of an entity (see the file comment). */
export interface HistoryUnit {
  /** The span's start: the file's generatedAt (raw), the hour's or the day's start. */
  readonly t: number;
  /** Observations of the entity in the span (0: it left during the span and was never observed in it). */
  readonly nObs: number;
  /** generatedAt of its last observation in the span (t when nObs is 0). */
  readonly lastT: number;
  /** Whether it is still present at the span's last observed file. */
  readonly presentAtEnd: boolean;
  /** unitValueCount(kind) numbers (empty when nObs is 0). */
  readonly v: readonly number[];
}

/** The span of the chain's observed files in one unit span: how many, the first and the last. */
export interface ChainSpan {
  readonly t: number;
  readonly count: number;
  readonly firstT: number;
  readonly lastT: number;
}

/** The unit of one observation with these values. */
export function observationUnit(kind: EntityKind, t: number, values: readonly number[]): HistoryUnit {
  const v = kind === TOKEN ? [values[0], values[0], values[0], values[0], values[1]] : values.slice(0, POOL_VALUES);
  return { t, nObs: 1, lastT: t, presentAtEnd: true, v };
}

/** The state an entity is in after a unit. */
export function stateAfter(kind: EntityKind, unit: HistoryUnit): EntityState {
  if (!unit.presentAtEnd) return null;
  return kind === TOKEN ? [unit.v[3], unit.v[4]] : unit.v;
}

/** The unit of a span in which the entity was present all along at `count` observed files, unchanged. */
export function carriedUnit(kind: EntityKind, span: ChainSpan, state: readonly number[]): HistoryUnit {
  const v = kind === TOKEN ? [state[0], state[0], state[0], state[0], state[1]] : state.slice(0, POOL_VALUES);
  return { t: span.t, nObs: span.count, lastT: span.lastT, presentAtEnd: true, v };
}

/**
 * Composes units (time order) into one unit starting at `t`: nObs summed, lastT and presentAtEnd of the
 * last, values: first open, highest high, lowest low, last close (tokens); the last unit's (pools). Units
 * without observations count only for presentAtEnd.
 */
export class UnitFolder {
  private nObs = 0;
  private lastT = 0;
  private present = false;
  private any = false;
  private readonly v: number[];

  constructor(
    private readonly kind: EntityKind,
    private t: number,
  ) {
    this.v = new Array<number>(unitValueCount(kind)).fill(0);
  }

  reset(t: number): void {
    this.t = t;
    this.nObs = 0;
    this.lastT = t;
    this.present = false;
    this.any = false;
  }

  /** True once a unit (with or without observations) was added since the last reset. */
  get touched(): boolean {
    return this.any;
  }

  add(unit: HistoryUnit): void {
    this.any = true;
    this.present = unit.presentAtEnd;
    if (unit.nObs === 0) return;
    const v = this.v;
    if (this.nObs === 0) {
      for (let i = 0; i < v.length; i++) v[i] = unit.v[i];
    } else if (this.kind === TOKEN) {
      if (unit.v[1] > v[1]) v[1] = unit.v[1];
      if (unit.v[2] < v[2]) v[2] = unit.v[2];
      v[3] = unit.v[3];
      v[4] = unit.v[4];
    } else {
      for (let i = 0; i < v.length; i++) v[i] = unit.v[i];
    }
    this.nObs += unit.nObs;
    this.lastT = unit.lastT;
  }

  unit(): HistoryUnit {
    return {
      t: this.t,
      nObs: this.nObs,
      lastT: this.nObs === 0 ? this.t : this.lastT,
      presentAtEnd: this.present,
      v: this.nObs === 0 ? [] : [...this.v],
    };
  }
}

/**
 * The units of the chain's observed files `files` ([generatedAt, seq] in order) for an entity whose state
 * before the first is `state` and whose records at these files are `records` (time order; a record at a
 * file not listed is ignored): a unit per file it is present at, and a unit without observation at a file
 * it left at. Returns the state after the last file too.
 */
export function fileUnits(
  kind: EntityKind,
  files: readonly (readonly [number, number])[],
  records: readonly RawRecord[],
  state: EntityState,
): { units: HistoryUnit[]; state: EntityState } {
  const units: HistoryUnit[] = [];
  let r = 0;
  for (const [t, seq] of files) {
    while (r < records.length && (records[r].t < t || (records[r].t === t && records[r].seq < seq))) r++;
    if (r < records.length && records[r].t === t && records[r].seq === seq) {
      const values = records[r++].values;
      if (values === null) {
        if (state !== null) units.push({ t, nObs: 0, lastT: t, presentAtEnd: false, v: [] });
        state = null;
        continue;
      }
      state = values;
    }
    if (state !== null) units.push(observationUnit(kind, t, state));
  }
  return { units, state };
}

/** Folds time-ordered units into units of `width`-second spans (the spans that got any unit). */
export function foldUnits(kind: EntityKind, units: readonly HistoryUnit[], width: number): HistoryUnit[] {
  const out: HistoryUnit[] = [];
  const folder = new UnitFolder(kind, 0);
  let span = Number.NaN;
  for (const u of units) {
    const s = spanStart(u.t, width);
    if (s !== span) {
      if (folder.touched) out.push(folder.unit());
      folder.reset(s);
      span = s;
    }
    folder.add(u);
  }
  if (folder.touched) out.push(folder.unit());
  return out;
}

/** UTC-aligned start of the span of `width` seconds holding `t`. */
export function spanStart(t: number, width: number): number {
  return t - (((t % width) + width) % width);
}

export const MINUTE = 60;
export const HOUR = 3600;
export const DAY = 86_400;
