/**
 * History answers (shared/spec/history.md §23-§24) over a small read interface: OHLCV candles of a token,
 * rows of a pool, a token's price at a time. Pure: the store (src/history/reader.ts) implements
 * ChainHistorySource; the tests hold these answers equal to a brute-force recomputation from the files.
 *
 * - A bucket of width w (a multiple of its tier's span) starts at a multiple of w (UTC); it holds the
 *   entity's observations inside it: open/high/low/close of the price and the pooled value at the close
 *   (tokens), the values at the close (pools). A bucket without observation is absent, or with
 *   `fill=previous` (and no observed file of the chain in it) carries the entity's state at the last
 *   observed file before it, marked filled.
 * - Buckets are answered newest first, those starting before `before`, at most `limit`, none before the
 *   tier's floor (what it keeps) or the chain's first observation.
 * - `coverage`: `from` the oldest bucket answered when `limit` were found, else where the kept data
 *   starts; `to` the end of the newest bucket that could be answered; `observations` of the entity in the
 *   buckets answered; the chain's gaps (spans no observation of this instance covers) that meet
 *   [from, to).
 * - An answer is closed (it never changes again) when it holds `limit` buckets and every bucket up to `to`
 *   is closed: the chain has an observation at or after `to`.
 */
import {
  DAY,
  HOUR,
  spanStart,
  TOKEN,
  UnitFolder,
  stateAfter,
  type ChainSpan,
  type EntityKind,
  type EntityState,
  type HistoryUnit,
} from "./history-units.js";

export type HistoryTier = "raw" | "hour" | "day";

/** What the store tells of a chain's history. */
export interface ChainHistoryInfo {
  /** generatedAt of the chain's latest observation. */
  readonly maxT: number;
  /** generatedAt of the chain's first observation. */
  readonly firstT: number;
  /** Observations so far (changes with every new one: what a cached answer depends on). */
  readonly epoch: number;
  /** Where each tier's kept data starts (aligned to an hour for raw, to a day for hour; day: the first day). */
  readonly floors: Readonly<Record<HistoryTier, number>>;
  /** Spans without observation by this instance: [last observation before, first after]. */
  readonly gaps: readonly (readonly [number, number])[];
}

/** The read interface of one chain's history. */
export interface ChainHistorySource {
  readonly info: ChainHistoryInfo;
  /** The entity's units of a tier whose span starts in [from, to), in time order. */
  units(kind: EntityKind, id: number, tier: HistoryTier, from: number, to: number): HistoryUnit[];
  /** The chain's observed files of a tier's spans starting in [from, to), in time order (raw: one per file). */
  spans(tier: HistoryTier, from: number, to: number): ChainSpan[];
  /** The entity's state at the chain's last observed file before `t` (null: absent, or no file before). */
  stateBefore(kind: EntityKind, id: number, t: number): EntityState;
  /** generatedAt of the chain's last observed file at or before `t`, or null. */
  lastFileAtOrBefore(t: number): number | null;
}

export interface BucketQuery {
  readonly kind: EntityKind;
  readonly id: number;
  readonly tier: HistoryTier;
  /** Bucket width in seconds: aggregate times the tier's span (60, 3600, 86400). */
  readonly width: number;
  /** Exclusive bound on bucket starts; Infinity: none. */
  readonly before: number;
  readonly limit: number;
  readonly fill: boolean;
}

export interface Bucket {
  readonly t: number;
  /** unitValueCount(kind) numbers. */
  readonly v: readonly number[];
  readonly nObs: number;
  readonly filled: boolean;
}

export interface BucketAnswer {
  /** Newest first. */
  readonly buckets: Bucket[];
  readonly coverage: { readonly from: number; readonly to: number; readonly observations: number; readonly gaps: [number, number][] };
  readonly closed: boolean;
}

/** The span of one unit of a tier (raw: a minute, the width its buckets are counted in). */
export const TIER_SPAN: Readonly<Record<HistoryTier, number>> = { raw: 60, hour: HOUR, day: DAY };

/** The first bucket start of a tier and width the chain can answer: its tier's floor, or its first observation's bucket. */
export function bucketFloor(info: ChainHistoryInfo, tier: HistoryTier, width: number): number {
  return Math.max(info.floors[tier], spanStart(info.firstT, width));
}

export function answerBuckets(source: ChainHistorySource, q: BucketQuery): BucketAnswer {
  const info = source.info;
  const w = q.width;
  const floor = bucketFloor(info, q.tier, w);
  const last = Math.min(q.before - 1, info.maxT);
  const newest = spanStart(last, w);
  const found: Bucket[] = [];
  if (last >= floor && newest >= floor) {
    let end = newest + w;
    let size = q.limit * w;
    while (found.length < q.limit && end > floor) {
      const start = Math.max(floor, end - size);
      const window = bucketsIn(source, q, start, end);
      for (let i = window.length - 1; i >= 0 && found.length < q.limit; i--) found.push(window[i]);
      end = start;
      size *= 2;
    }
  }
  const limitReached = found.length >= q.limit;
  const from = limitReached ? found[found.length - 1].t : floor;
  const to = Math.max(from, newest + w);
  let observations = 0;
  for (const b of found) observations += b.nObs;
  const gaps: [number, number][] = [];
  for (const [a, b] of info.gaps) if (b > from && a < to) gaps.push([a, b]);
  return { buckets: found, coverage: { from, to, observations, gaps }, closed: limitReached && to <= info.maxT };
}

/** The answered buckets starting in [start, end) (ascending): with observations, or filled. */
function bucketsIn(source: ChainHistorySource, q: BucketQuery, start: number, end: number): Bucket[] {
  const w = q.width;
  const units = source.units(q.kind, q.id, q.tier, start, end);
  const spans = source.spans(q.tier, start, end);
  let state: EntityState = q.fill ? source.stateBefore(q.kind, q.id, start) : null;
  const folder = new UnitFolder(q.kind, start);
  const out: Bucket[] = [];
  let u = 0;
  let s = 0;
  for (let b = start; b < end; b += w) {
    folder.reset(b);
    while (u < units.length && units[u].t < b + w) folder.add(units[u++]);
    let files = 0;
    while (s < spans.length && spans[s].t < b + w) files += spans[s++].count;
    if (folder.touched) {
      const unit = folder.unit();
      if (unit.nObs > 0) out.push({ t: b, v: unit.v, nObs: unit.nObs, filled: false });
      state = stateAfter(q.kind, unit);
    } else if (files > 0) {
      state = null; // observed files without the entity: it was absent
    } else if (q.fill && state !== null) {
      out.push({ t: b, v: filledValues(q.kind, state), nObs: 0, filled: true });
    }
  }
  return out;
}

function filledValues(kind: EntityKind, state: readonly number[]): number[] {
  return kind === TOKEN ? [state[0], state[0], state[0], state[0], state[1]] : [...state];
}

/** A token's price at a time (§24): in the finest tier whose floor is at or before `at`. */
export interface PriceAt {
  readonly price: number;
  readonly observedAt: number;
}

export function priceAt(source: ChainHistorySource, id: number, at: number): PriceAt | null {
  const { floors } = source.info;
  // The raw tier answers the last observation at or before `at`; the hourly (daily) tier the state at the
  // end of the last whole hour (day) at or before it.
  const until = at >= floors.raw ? at : at >= floors.hour ? spanStart(at + 1, HOUR) - 1 : spanStart(at + 1, DAY) - 1;
  const t = source.lastFileAtOrBefore(until);
  if (t === null) return null;
  const state = source.stateBefore(TOKEN, id, until + 1);
  return state === null ? null : { price: state[0], observedAt: t };
}
