/**
 * Reads one chain's history out of the store (ChainHistorySource of src/query/history-answer.ts): in a
 * serving thread, inside one synchronous request (lmdb's read transaction of the thread: one consistent
 * state of the store, no lock). Each span is read from where the chain's compaction marks say it is
 * (history-compactor.ts): a file's records (l0), an hour's (l1), a day's (l2, hourly, daily); the answers
 * do not depend on how far compaction went.
 */
import {
  carriedUnit,
  DAY,
  fileUnits,
  foldUnits,
  HOUR,
  spanStart,
  stateAfter,
  valueCount,
  unitValueCount,
  type ChainSpan,
  type EntityKind,
  type EntityState,
  type HistoryUnit,
  type RawRecord,
} from "../query/history-units.js";
import type { ChainHistoryInfo, ChainHistorySource, HistoryTier } from "../query/history-answer.js";
import { keyU32 } from "./byte-codec.js";
import { dayHourSpans, daySpan, hourFiles } from "./hour-files.js";
import {
  DAILY_GROUP_BITS,
  DAY_GROUP_BITS,
  decodeMeta,
  HistoryKeys,
  L0_GROUP_BITS,
  L1_GROUP_BITS,
  type ChainMeta,
  type HistoryDbs,
} from "./history-store.js";
import { findInShard, readRecordChunk, readUnitChunk } from "./records.js";

/** How long each tier keeps its data (HISTORY_RAW_HOURS, HISTORY_HOUR_DAYS). */
export interface HistoryRetention {
  readonly rawHours: number;
  readonly hourDays: number;
}

/** Where each tier's kept data starts, for a chain whose latest observation is `meta.maxT`. */
export function tierFloors(meta: ChainMeta, retention: HistoryRetention): Record<HistoryTier, number> {
  return {
    raw: Math.max(spanStart(meta.maxT, HOUR) - (retention.rawHours - 1) * HOUR, meta.rawDropped),
    hour: Math.max(spanStart(meta.maxT, DAY) - (retention.hourDays - 1) * DAY, meta.hourlyDropped),
    day: spanStart(meta.firstT, DAY),
  };
}

type File = readonly [number, number];

/** What a serving thread reads: a chain's history and an entity's id. */
export class HistoryReads {
  private readonly keys = new HistoryKeys();
  /** Per chain, its reader and the meta record's bytes it was made from (one per observation, not per request). */
  private readonly readers = new Map<number, { readonly meta: Buffer; readonly reader: ChainHistoryReader }>();

  constructor(
    private readonly dbs: HistoryDbs,
    private readonly retention: HistoryRetention,
  ) {}

  /**
   * The chain's history as it stands now, or null when it has none: one read of its meta record, and the
   * same reader (its info and gaps read once) as long as that record's bytes stay the same. Every write that
   * changes what the chain answers (an observation, a retention step) rewrites the meta record in its
   * transaction; compaction steps rewrite it too (its marks), which only makes a new reader.
   */
  chain(chainId: number): ChainHistoryReader | null {
    const fast = this.dbs.meta.getBinaryFast(this.keys.meta(chainId));
    if (fast === undefined) {
      this.readers.delete(chainId);
      return null;
    }
    // getBinaryFast's buffer is lmdb's reused one (its `length` is the value's): viewed by that length.
    const bytes = Buffer.from(fast.buffer, fast.byteOffset, fast.length);
    const known = this.readers.get(chainId);
    if (known !== undefined && known.meta.equals(bytes)) return known.reader;
    const reader = new ChainHistoryReader(this.dbs, chainId, decodeMeta(bytes), this.retention);
    this.readers.set(chainId, { meta: Buffer.from(bytes), reader });
    return reader;
  }

  /** The entity's id (any letter case), or null when history never observed it. */
  entityId(chainId: number, kind: EntityKind, address: Uint8Array): number | null {
    const bytes = this.dbs.ids.getBinaryFast(this.keys.id(chainId, kind, address));
    return bytes === undefined ? null : bytes.readUInt32LE(0);
  }
}

export class ChainHistoryReader implements ChainHistorySource {
  readonly info: ChainHistoryInfo;
  private readonly keys = new HistoryKeys();

  constructor(
    private readonly dbs: HistoryDbs,
    private readonly chainId: number,
    private readonly meta: ChainMeta,
    retention: HistoryRetention,
  ) {
    const gaps: Array<readonly [number, number]> = [];
    for (const { key, value } of dbs.gaps.getRange({ start: this.keys.kindTime(chainId, 0, 0).subarray(0, 4), end: chainEnd(chainId) })) {
      gaps.push([keyU32(key, 4), value.readUInt32LE(0)]);
    }
    this.info = { maxT: meta.maxT, firstT: meta.firstT, epoch: meta.files, floors: tierFloors(meta, retention), gaps };
  }

  // ---- the chain's files

  /** Days with files starting in [from, to): [day, entry]. */
  private days(from: number, to: number): Array<[number, Buffer]> {
    const out: Array<[number, Buffer]> = [];
    if (to <= from) return out;
    for (const { key, value } of this.dbs.days.getRange({
      start: Buffer.from(this.keys.chainTime(this.chainId, spanStart(from, DAY))),
      end: Buffer.from(this.keys.chainTime(this.chainId, to)),
    })) {
      out.push([keyU32(key, 4), Buffer.from(value)]);
    }
    return out;
  }

  /** The files of an hour, [t, seq] in order (none when the hour's entry is gone). */
  private hourFileList(hour: number): File[] {
    const entry = this.dbs.files.getBinaryFast(this.keys.chainTime(this.chainId, hour));
    return entry === undefined ? [] : hourFiles(entry, hour);
  }

  /** The observed files in [from, to). */
  private filesIn(from: number, to: number): File[] {
    const out: File[] = [];
    for (const [day, entry] of this.days(from, to)) {
      for (const span of dayHourSpans(entry, day)) {
        if (span.t + HOUR <= from || span.t >= to) continue;
        for (const f of this.hourFileList(span.t)) if (f[0] >= from && f[0] < to) out.push(f);
      }
    }
    return out;
  }

  spans(tier: HistoryTier, from: number, to: number): ChainSpan[] {
    if (tier === "raw") return this.filesIn(from, to).map(([t]) => ({ t, count: 1, firstT: t, lastT: t }));
    const out: ChainSpan[] = [];
    for (const [day, entry] of this.days(from, to)) {
      if (tier === "day") {
        if (day >= from) out.push(daySpan(entry, day));
      } else for (const span of dayHourSpans(entry, day)) if (span.t >= from && span.t < to) out.push(span);
    }
    return out;
  }

  lastFileAtOrBefore(t: number): number | null {
    for (const { key, value } of this.dbs.days.getRange({
      start: Buffer.from(this.keys.chainTime(this.chainId, spanStart(t, DAY))),
      end: Buffer.from(this.keys.chainTime(this.chainId, 0)),
      reverse: true,
    })) {
      const day = keyU32(key, 4);
      const whole = daySpan(value, day);
      if (whole.firstT > t) continue;
      if (whole.lastT <= t) return whole.lastT;
      const hours = dayHourSpans(value, day);
      for (let h = hours.length - 1; h >= 0; h--) {
        const span = hours[h];
        if (span.firstT > t) continue;
        if (span.lastT <= t) return span.lastT;
        let last = span.firstT;
        for (const [ft] of this.hourFileList(span.t)) if (ft <= t) last = ft;
        return last;
      }
    }
    return null;
  }

  // ---- where an entity's data is

  private dayCompacted(kind: EntityKind, id: number, day: number): boolean {
    const mark = this.meta.day[kind];
    return day < mark.t || (day === mark.t && id >> L0_GROUP_BITS < mark.group);
  }

  private hourCompacted(kind: EntityKind, id: number, hour: number): boolean {
    const mark = this.meta.l1[kind];
    return hour < mark.t || (hour === mark.t && id >> L0_GROUP_BITS < mark.group);
  }

  /** The entity's records in an hour of a day not compacted (from l1, or each file's l0). */
  private hourRecords(kind: EntityKind, id: number, hour: number, out: RawRecord[]): void {
    const n = valueCount(kind);
    const push = (r: RawRecord) => out.push(r);
    if (this.hourCompacted(kind, id, hour)) {
      const blob = this.dbs.l1.getBinaryFast(this.keys.l1(this.chainId, kind, hour, id >> L1_GROUP_BITS));
      const at = blob === undefined ? null : findInShard(blob, id & ((1 << L1_GROUP_BITS) - 1));
      if (at !== null) readRecordChunk(blob!, at[0], at[1], hour, n, push);
      return;
    }
    for (const [t, seq] of this.hourFileList(hour)) {
      const blob = this.dbs.l0.getBinaryFast(this.keys.l0(this.chainId, kind, t, seq, id >> L0_GROUP_BITS));
      const at = blob === undefined ? null : findInShard(blob, id & ((1 << L0_GROUP_BITS) - 1));
      if (at !== null) readRecordChunk(blob!, at[0], at[1], t, n, (r) => out.push({ t: r.t, seq, values: r.values }));
    }
  }

  /** The entity's records of a day (its entry is a day with files). */
  private dayRecords(kind: EntityKind, id: number, day: number, entry: Buffer): RawRecord[] {
    const out: RawRecord[] = [];
    if (this.dayCompacted(kind, id, day)) {
      const blob = this.dbs.l2.getBinaryFast(this.keys.dayGroup(this.chainId, kind, day, id >> DAY_GROUP_BITS));
      const at = blob === undefined ? null : findInShard(blob, id & ((1 << DAY_GROUP_BITS) - 1));
      if (at !== null) readRecordChunk(blob!, at[0], at[1], day, valueCount(kind), (r) => out.push(r));
      return out;
    }
    for (const span of dayHourSpans(entry, day)) this.hourRecords(kind, id, span.t, out);
    return out;
  }

  /** The day's files, [t, seq] in order. */
  private dayFiles(day: number, entry: Buffer): File[] {
    const out: File[] = [];
    for (const span of dayHourSpans(entry, day)) out.push(...this.hourFileList(span.t));
    return out;
  }

  // ---- states and units

  stateBefore(kind: EntityKind, id: number, t: number): EntityState {
    const day = spanStart(t, DAY);
    if (t > day) {
      const entry = this.dbs.days.getBinary(this.keys.chainTime(this.chainId, day));
      if (entry !== undefined && this.dayCompacted(kind, id, day) && day < this.meta.rawDropped) {
        // The day's records are past the raw tier's retention: its hour units hold the state at each hour's
        // end (t is then an hour's start: the hour and day tiers ask at bucket starts only).
        const carried = this.stateAtEndOfDayBefore(kind, id, day);
        let state = carried;
        for (const u of this.hourUnits(kind, id, day, entry, carried).units) if (u.t < t) state = stateAfter(kind, u);
        return state;
      }
      if (entry !== undefined) {
        const records = this.dayRecords(kind, id, day, entry);
        for (let i = records.length - 1; i >= 0; i--) if (records[i].t < t) return records[i].values;
      }
    }
    return this.stateAtEndOfDayBefore(kind, id, day);
  }

  /** The state at the last file of the last day with files before `day`. */
  private stateAtEndOfDayBefore(kind: EntityKind, id: number, day: number): EntityState {
    for (const { key } of this.dbs.days.getRange({
      start: Buffer.from(this.keys.chainTime(this.chainId, day - 1)),
      end: Buffer.from(this.keys.chainTime(this.chainId, 0)),
      reverse: true,
      limit: 1,
    })) {
      const previous = keyU32(key, 4);
      if (!this.dayCompacted(kind, id, previous)) {
        const entry = this.dbs.days.getBinary(this.keys.chainTime(this.chainId, previous))!;
        const records = this.dayRecords(kind, id, previous, entry);
        return records.length > 0 ? records[records.length - 1].values : this.stateAtEndOfDayBefore(kind, id, previous);
      }
      const unit = this.dailyUnit(kind, id, previous);
      return unit === null ? null : stateAfter(kind, unit);
    }
    return null;
  }

  private dailyUnit(kind: EntityKind, id: number, day: number): HistoryUnit | null {
    const blob = this.dbs.daily.getBinaryFast(this.keys.daily(this.chainId, kind, day, id >> DAILY_GROUP_BITS));
    const at = blob === undefined ? null : findInShard(blob, id & ((1 << DAILY_GROUP_BITS) - 1));
    if (at === null) return null;
    let unit: HistoryUnit | null = null;
    readUnitChunk(
      blob!,
      at[0],
      at[1],
      unitValueCount(kind),
      () => day,
      (_, u) => (unit = u),
    );
    return unit;
  }

  units(kind: EntityKind, id: number, tier: HistoryTier, from: number, to: number): HistoryUnit[] {
    if (tier === "raw") return this.rawUnits(kind, id, from, to);
    const out: HistoryUnit[] = [];
    let state: EntityState | undefined;
    for (const [day, entry] of this.days(from, to)) {
      if (tier === "day" && this.dayCompacted(kind, id, day)) {
        if (day < from) continue;
        const unit = this.dailyUnit(kind, id, day);
        if (unit !== null) out.push(unit);
        state = undefined;
        continue;
      }
      state ??= this.stateBefore(kind, id, day);
      const hours = this.hourUnits(kind, id, day, entry, state);
      state = hours.state;
      const units = tier === "day" ? foldUnits(kind, hours.units, DAY) : hours.units;
      for (const u of units) if (u.t >= from && u.t < to) out.push(u);
    }
    return out;
  }

  /** The entity's hour units of a day with files (from its hourly entry, or its records), and its state after. */
  private hourUnits(
    kind: EntityKind,
    id: number,
    day: number,
    entry: Buffer,
    state: EntityState,
  ): { units: HistoryUnit[]; state: EntityState } {
    if (!this.dayCompacted(kind, id, day)) {
      const files = fileUnits(kind, this.dayFiles(day, entry), this.dayRecords(kind, id, day, entry), state);
      return { units: foldUnits(kind, files.units, HOUR), state: files.state };
    }
    const stored = new Map<number, HistoryUnit>();
    const blob = this.dbs.hourly.getBinaryFast(this.keys.dayGroup(this.chainId, kind, day, id >> DAY_GROUP_BITS));
    const at = blob === undefined ? null : findInShard(blob, id & ((1 << DAY_GROUP_BITS) - 1));
    if (at !== null)
      readUnitChunk(
        blob!,
        at[0],
        at[1],
        unitValueCount(kind),
        (h) => day + h * HOUR,
        (h, u) => stored.set(h, u),
      );
    const units: HistoryUnit[] = [];
    for (const span of dayHourSpans(entry, day)) {
      const h = (span.t - day) / HOUR;
      const unit = stored.get(h) ?? (state === null ? null : carriedUnit(kind, span, state));
      if (unit === null) continue;
      units.push(unit);
      state = stateAfter(kind, unit);
    }
    return { units, state };
  }

  private rawUnits(kind: EntityKind, id: number, from: number, to: number): HistoryUnit[] {
    const files: File[] = [];
    const records: RawRecord[] = [];
    for (const [day, entry] of this.days(from, to)) {
      for (const f of this.dayFiles(day, entry)) if (f[0] >= from && f[0] < to) files.push(f);
      for (const r of this.dayRecords(kind, id, day, entry)) if (r.t >= from && r.t < to) records.push(r);
    }
    return fileUnits(kind, files, records, this.stateBefore(kind, id, from)).units;
  }
}

/** The first key after every key of the chain (a u32 prefix). */
function chainEnd(chainId: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(chainId + 1, 0);
  return b;
}
