/**
 * Compaction and retention of the history store, in small steps between observations (history-thread.ts):
 * each step is one transaction over one chain, one kind and one group of 1,024 ids, so a step holds little
 * and an observation never waits long. A step moves the chain's marks (history-store.ts) with the data it
 * moved, so a reader finds every span at one place whatever the progress.
 *
 * - hour: once an hour is closed (an observation at or after its end), each file's records of the hour
 *   (l0) become one chunk per entity of the hour (l1);
 * - day: once a day is closed and its hours are in l1, each entity's records of the day become one l2
 *   entry, its hour units (the hours it changed in) one hourly entry, and every entity present that day a
 *   day unit (daily): the state at the end of a day, where the next day's units start from;
 * - retention: the raw tier's days (l2, and the files by hour) before HISTORY_RAW_HOURS and the hourly
 *   tier's days before HISTORY_HOUR_DAYS are deleted once compacted. Readers never answer past a tier's
 *   floor (history-reader.ts, tierFloors), so answers do not depend on when this runs.
 */
import {
  DAY,
  fileUnits,
  foldUnits,
  HOUR,
  POOL,
  spanStart,
  stateAfter,
  TOKEN,
  unitValueCount,
  valueCount,
  type EntityKind,
  type EntityState,
  type HistoryUnit,
  type RawRecord,
} from "../query/history-units.js";
import { ByteSink, keyU32 } from "./byte-codec.js";
import { dayHourSpans, hourFiles } from "./hour-files.js";
import {
  DAILY_GROUP_BITS,
  DAY_GROUP_BITS,
  encodeMeta,
  HistoryKeys,
  L0_GROUP_BITS,
  L1_GROUP_BITS,
  OrderedPuts,
  type ChainMeta,
  type HistoryDb,
  type HistoryDbs,
} from "./history-store.js";
import { tierFloors, type HistoryRetention } from "./history-reader.js";
import { readRecordChunk, readUnitChunk, RecordChunkWriter, shardEntries, ShardBlobWriter, UnitChunkWriter } from "./records.js";

/** Most keys one retention step deletes. */
const DELETE_BATCH = 50_000;

/** What a step did, for the metrics. */
export type CompactionStep = "hour" | "day" | "retention" | null;

export class HistoryCompactor {
  private readonly keys = new HistoryKeys();
  private readonly puts = new OrderedPuts();

  constructor(
    private readonly dbs: HistoryDbs,
    private readonly retention: HistoryRetention,
    /** The chain's meta as the writer holds it, and where to hand a changed one back. */
    private readonly metaOf: (chainId: number) => ChainMeta | null,
    private readonly metaChanged: (chainId: number, meta: ChainMeta) => void,
  ) {}

  /** One step of work on some chain; null when there is nothing to do. */
  step(): CompactionStep {
    for (const chainId of this.chainIds()) {
      const meta = this.metaOf(chainId);
      if (meta === null) continue;
      for (const kind of [TOKEN, POOL] as const) if (this.hourStep(chainId, kind, meta)) return "hour";
      for (const kind of [TOKEN, POOL] as const) if (this.dayStep(chainId, kind, meta)) return "day";
      if (this.retentionStep(chainId, meta)) return "retention";
    }
    return null;
  }

  /** Hours and days waiting to be compacted, over every chain (the compaction backlog). */
  backlog(): { hours: number; days: number } {
    let hours = 0;
    let days = 0;
    for (const chainId of this.chainIds()) {
      const meta = this.metaOf(chainId);
      if (meta === null) continue;
      for (const kind of [TOKEN, POOL]) {
        hours += Math.max(0, (spanStart(meta.maxT, HOUR) - meta.l1[kind].t) / HOUR);
        days += Math.max(0, (spanStart(meta.maxT, DAY) - meta.day[kind].t) / DAY);
      }
    }
    return { hours, days };
  }

  private chainIds(): number[] {
    const ids: number[] = [];
    for (const key of this.dbs.meta.getKeys()) ids.push(keyU32(key as Buffer, 0));
    return ids;
  }

  private save(chainId: number, meta: ChainMeta): void {
    this.dbs.meta.putSync(Buffer.from(this.keys.meta(chainId)), encodeMeta(meta));
  }

  /** The first hour (day) with files in [from, limit), or limit. */
  private nextWithFiles(db: HistoryDb, chainId: number, from: number, limit: number): number {
    for (const { key } of db.getRange({
      start: Buffer.from(this.keys.chainTime(chainId, from)),
      end: Buffer.from(this.keys.chainTime(chainId, limit)),
      limit: 1,
    })) {
      return keyU32(key, 4);
    }
    return limit;
  }

  private groups(meta: ChainMeta, kind: EntityKind): number {
    return Math.max(1, Math.ceil(meta.nextId[kind] / (1 << L0_GROUP_BITS)));
  }

  /** Moves one group of a closed hour's l0 records into l1. */
  private hourStep(chainId: number, kind: EntityKind, meta: ChainMeta): boolean {
    const limit = spanStart(meta.maxT, HOUR);
    const mark = meta.l1[kind];
    if (mark.t >= limit) return false;
    const entry = this.dbs.files.getBinary(this.keys.chainTime(chainId, mark.t));
    const next = { ...meta, l1: [...meta.l1] as ChainMeta["l1"] };
    if (entry === undefined) {
      next.l1[kind] = { t: this.nextWithFiles(this.dbs.files, chainId, mark.t + HOUR, limit), group: 0 };
      this.commit(chainId, next, () => {});
      return true;
    }
    const hour = mark.t;
    const group = mark.group;
    const n = valueCount(kind);
    this.commit(chainId, next, () => {
      const byId = new Map<number, RawRecord[]>();
      const files = hourFiles(entry, hour);
      for (const [t, seq] of files) {
        const key = Buffer.from(this.keys.l0(chainId, kind, t, seq, group));
        const blob = this.dbs.l0.getBinary(key);
        if (blob === undefined) continue;
        for (const [low, s, e] of shardEntries(blob)) {
          const id = (group << L0_GROUP_BITS) + low;
          let list = byId.get(id);
          if (list === undefined) byId.set(id, (list = []));
          readRecordChunk(blob, s, e, t, n, (r) => list.push({ t: r.t, seq, values: r.values }));
        }
        this.dbs.l0.removeSync(key);
      }
      this.writeShards(
        this.dbs.l1,
        (sub) => this.keys.l1(chainId, kind, hour, sub),
        L1_GROUP_BITS,
        byId,
        (sink, records) => {
          const w = new RecordChunkWriter(sink, hour);
          for (const r of records) w.add(r);
        },
      );
      const nextGroup = group + 1;
      next.l1[kind] =
        nextGroup < this.groups(meta, kind)
          ? { t: hour, group: nextGroup }
          : { t: this.nextWithFiles(this.dbs.files, chainId, hour + HOUR, limit), group: 0 };
    });
    return true;
  }

  /** Writes chunks of ids (ascending) as shard blobs of `bits`-sized groups. */
  private writeShards<T>(
    db: HistoryDb,
    keyOf: (shard: number) => Buffer,
    bits: number,
    byId: Map<number, T>,
    write: (sink: ByteSink, value: T) => void,
  ): void {
    const ids = [...byId.keys()].sort((a, b) => a - b);
    const blob = new ShardBlobWriter();
    let shard = -1;
    const flush = () => {
      if (shard >= 0 && blob.count > 0) this.puts.put(db, Buffer.from(keyOf(shard)), blob.take());
    };
    for (const id of ids) {
      if (id >> bits !== shard) {
        flush();
        shard = id >> bits;
      }
      blob.begin(id & ((1 << bits) - 1));
      write(blob.data, byId.get(id)!);
      blob.end();
    }
    flush();
  }

  /** Compacts one group of a closed day whose hours are all in l1: l2, hourly and daily entries. */
  private dayStep(chainId: number, kind: EntityKind, meta: ChainMeta): boolean {
    const limit = spanStart(meta.maxT, DAY);
    const mark = meta.day[kind];
    if (mark.t >= limit || meta.l1[kind].t < mark.t + DAY) return false;
    const day = mark.t;
    const entry = this.dbs.days.getBinary(this.keys.chainTime(chainId, day));
    const next = { ...meta, day: [...meta.day] as ChainMeta["day"] };
    if (entry === undefined) {
      next.day[kind] = { t: this.nextWithFiles(this.dbs.days, chainId, day + DAY, limit), group: 0 };
      this.commit(chainId, next, () => {});
      return true;
    }
    const group = mark.group;
    const hours = dayHourSpans(entry, day);
    this.commit(chainId, next, () => {
      const files: Array<[number, number]> = [];
      const records = new Map<number, RawRecord[]>();
      for (const span of hours) {
        const hourEntry = this.dbs.files.getBinary(this.keys.chainTime(chainId, span.t));
        if (hourEntry !== undefined) files.push(...hourFiles(hourEntry, span.t));
        this.readL1Group(chainId, kind, span.t, group, records, true);
      }
      const carried = this.carryIn(chainId, kind, day, group);
      const ids = new Set([...records.keys(), ...carried.keys()]);
      const l2 = new Map<number, RawRecord[]>();
      const hourly = new Map<number, HistoryUnit[]>();
      const daily = new Map<number, HistoryUnit>();
      for (const id of [...ids].sort((a, b) => a - b)) {
        const own = records.get(id) ?? [];
        const units = fileUnits(kind, files, own, carried.get(id) ?? null).units;
        const byHour = foldUnits(kind, units, HOUR);
        const changedHours = new Set(own.map((r) => spanStart(r.t, HOUR)));
        if (own.length > 0) {
          l2.set(id, own);
          hourly.set(
            id,
            byHour.filter((u) => changedHours.has(u.t)),
          );
        }
        const whole = foldUnits(kind, byHour, DAY)[0];
        if (whole !== undefined && whole.nObs > 0) daily.set(id, whole);
      }
      this.writeShards(
        this.dbs.l2,
        (shard) => this.keys.dayGroup(chainId, kind, day, shard),
        DAY_GROUP_BITS,
        l2,
        (sink, list) => {
          const w = new RecordChunkWriter(sink, day);
          for (const r of list) w.add(r);
        },
      );
      this.writeShards(
        this.dbs.hourly,
        (shard) => this.keys.dayGroup(chainId, kind, day, shard),
        DAY_GROUP_BITS,
        hourly,
        (sink, list) => {
          const w = new UnitChunkWriter(sink);
          for (const u of list) w.add(u, (u.t - day) / HOUR, u.t);
        },
      );
      this.writeShards(
        this.dbs.daily,
        (shard) => this.keys.daily(chainId, kind, day, shard),
        DAILY_GROUP_BITS,
        daily,
        (sink, unit) => new UnitChunkWriter(sink).add(unit, 0, day),
      );
      const nextGroup = group + 1;
      next.day[kind] =
        nextGroup < this.groups(meta, kind)
          ? { t: day, group: nextGroup }
          : { t: this.nextWithFiles(this.dbs.days, chainId, day + DAY, limit), group: 0 };
    });
    return true;
  }

  /** The l1 records of one l0-sized group of ids in an hour (deleting them when `remove`). */
  private readL1Group(
    chainId: number,
    kind: EntityKind,
    hour: number,
    group: number,
    out: Map<number, RawRecord[]>,
    remove: boolean,
  ): void {
    const n = valueCount(kind);
    const perGroup = 1 << (L0_GROUP_BITS - L1_GROUP_BITS);
    for (let sub = group * perGroup; sub < (group + 1) * perGroup; sub++) {
      const key = Buffer.from(this.keys.l1(chainId, kind, hour, sub));
      const blob = this.dbs.l1.getBinary(key);
      if (blob === undefined) continue;
      for (const [low, s, e] of shardEntries(blob)) {
        const id = (sub << L1_GROUP_BITS) + low;
        let list = out.get(id);
        if (list === undefined) out.set(id, (list = []));
        readRecordChunk(blob, s, e, hour, n, (r) => list.push(r));
      }
      if (remove) this.dbs.l1.removeSync(key);
    }
  }

  /** The states of a group's ids at the end of the last day with files before `day` (compacted: its daily units). */
  private carryIn(chainId: number, kind: EntityKind, day: number, group: number): Map<number, EntityState> {
    const out = new Map<number, EntityState>();
    let previous: number | null = null;
    for (const { key } of this.dbs.days.getRange({
      start: Buffer.from(this.keys.chainTime(chainId, day - 1)),
      end: Buffer.from(this.keys.chainTime(chainId, 0)),
      reverse: true,
      limit: 1,
    })) {
      previous = keyU32(key, 4);
    }
    if (previous === null) return out;
    const perGroup = 1 << (L0_GROUP_BITS - DAILY_GROUP_BITS);
    for (let shard = group * perGroup; shard < (group + 1) * perGroup; shard++) {
      const blob = this.dbs.daily.getBinary(this.keys.daily(chainId, kind, previous, shard));
      if (blob === undefined) continue;
      for (const [low, s, e] of shardEntries(blob)) {
        readUnitChunk(
          blob,
          s,
          e,
          unitValueCount(kind),
          () => previous!,
          (_, u) => {
            const state = stateAfter(kind, u);
            if (state !== null) out.set((shard << DAILY_GROUP_BITS) + low, state);
          },
        );
      }
    }
    return out;
  }

  /** Deletes one compacted day past a tier's retention (or a batch of it). */
  private retentionStep(chainId: number, meta: ChainMeta): boolean {
    const floors = tierFloors(meta, this.retention);
    const compacted = Math.min(meta.day[TOKEN].t, meta.day[POOL].t);
    const first = spanStart(meta.firstT, DAY);
    const rawDay = Math.max(meta.rawDropped, first);
    if (rawDay + DAY <= floors.raw && rawDay < compacted) {
      return this.dropDay(chainId, meta, rawDay, [this.dbs.l2], true, (m) => (m.rawDropped = rawDay + DAY));
    }
    const hourDay = Math.max(meta.hourlyDropped, first);
    if (hourDay + DAY <= floors.hour && hourDay < compacted) {
      return this.dropDay(chainId, meta, hourDay, [this.dbs.hourly], false, (m) => (m.hourlyDropped = hourDay + DAY));
    }
    return false;
  }

  private dropDay(chainId: number, meta: ChainMeta, day: number, dbs: HistoryDb[], files: boolean, done: (m: ChainMeta) => void): boolean {
    const next = { ...meta };
    let left = DELETE_BATCH;
    this.commit(chainId, next, () => {
      for (const db of dbs) {
        for (const kind of [TOKEN, POOL]) {
          const keys: Buffer[] = [];
          for (const key of db.getKeys({
            start: this.keys.dayKind(chainId, kind, day),
            end: this.keys.dayKind(chainId, kind + 1, day),
            limit: left + 1,
          })) {
            keys.push(Buffer.from(key as Buffer));
          }
          for (const key of keys.slice(0, left)) db.removeSync(key);
          left -= keys.length;
          if (left < 0) return; // more next step
        }
      }
      if (files) {
        for (let hour = day; hour < day + DAY; hour += HOUR) this.dbs.files.removeSync(Buffer.from(this.keys.chainTime(chainId, hour)));
      }
      done(next);
    });
    return true;
  }

  /** Runs `work` and saves `meta` in one transaction; the writer's copy follows once it is committed. */
  private commit(chainId: number, meta: ChainMeta, work: () => void): void {
    this.dbs.env.transactionSync(() => {
      work();
      this.save(chainId, meta);
    });
    this.metaChanged(chainId, meta);
  }
}
