/**
 * How the store writes an entity's records and units (docs/decisions/014-history-store.md, 016-history-format-3.md).
 *
 * A record chunk (l0, l1, l2 entries): records in time order, each
 *   step (varint): dt * 2 + flagged, dt the seconds after the previous record (the first: after the chunk's
 *     base time); flagged (a removal, or a file of the same second as the one before: seq) is followed by
 *     flags (varint: bit 0 removed, bit 1 has seq) [seq varint]
 *   unless removed: head (u8, at most 4 values): two bits per value: 0 decimal code, 1 the same as its
 *     reference, 2 float64, 3 zero; then the values
 * A unit chunk (hourly entries, daily units): units in time order, each
 *   index (varint: hour of the day; 0 for a day unit), flags (bit 0 present at end, bit 1 observed),
 *   [nObs varint, lastT - span start varint, head varint (two bits per value, as a record's), values] when
 *   observed.
 * Each value has a reference (format 3): in a record, the same value of the chunk's previous record; in a unit,
 * the previous unit's same value, but a token's open refers to the previous unit's close and its high, low
 * and close to its own open. A value equal to its reference takes no bytes; a decimal one is written as its
 * difference from it (byte-codec.ts, deltaCode), so a walking price takes 2 to 4 bytes, an hour with one
 * observation of a token one price, not four; a value without a reference is its own decimal code.
 */
import { ByteSink, ByteSource, deltaCode, deltaValue } from "./byte-codec.js";
import type { HistoryUnit, RawRecord } from "../query/history-units.js";

const SAME = 1;
const RAW = 2;
const ZERO = 3;
/** A token unit's numbers: open, high, low, close (indexes 0-3), pooled value. */
const TOKEN_UNIT_VALUES = 5;
const CLOSE = 3;

/** The reference of a unit's value `i` (see the file comment); `v`: the unit's values decoded so far. */
function unitRef(prev: readonly number[] | null, v: readonly number[], i: number, n: number): number | undefined {
  if (n === TOKEN_UNIT_VALUES && i >= 1 && i <= CLOSE) return v[0];
  if (prev === null) return undefined;
  return n === TOKEN_UNIT_VALUES && i === 0 ? prev[CLOSE] : prev[i];
}

/** Writes values after a head of their kinds, against their references (`refs[i]`; undefined: none). */
class ValueWriter {
  private readonly codes: number[] = [];

  /** The head bits of `values` (2 bits each from bit `shift`), computing their codes. */
  head(values: readonly number[], refs: readonly (number | undefined)[], shift: number): number {
    let head = 0;
    for (let i = 0; i < values.length; i++) {
      const x = values[i];
      const ref = refs[i];
      let kind: number;
      let code = -1;
      if (ref !== undefined && Object.is(ref, x)) kind = SAME;
      else if (x === 0 && !Object.is(x, -0)) kind = ZERO;
      else {
        code = deltaCode(x, ref);
        kind = code < 0 ? RAW : 0;
      }
      this.codes[i] = code;
      head += kind * 2 ** (shift + 2 * i);
    }
    return head;
  }

  write(sink: ByteSink, values: readonly number[], head: number, shift: number): void {
    for (let i = 0; i < values.length; i++) {
      const kind = Math.floor(head / 2 ** (shift + 2 * i)) % 4;
      if (kind === 0) sink.varint(this.codes[i]);
      else if (kind === RAW) sink.f64(values[i]);
    }
  }
}

/** The value `i` of a head, read against its reference. */
function readValue(src: ByteSource, head: number, shift: number, i: number, ref: number | undefined): number {
  const kind = Math.floor(head / 2 ** (shift + 2 * i)) % 4;
  if (kind === 0) return deltaValue(src.varint(), ref);
  if (kind === SAME) return ref!;
  if (kind === RAW) return src.f64();
  return 0;
}

const NO_REFS: readonly undefined[] = [];

/** Writes an entity's records into a chunk. */
export class RecordChunkWriter {
  private readonly values = new ValueWriter();
  private prevT: number;
  private prev: readonly number[] | null = null;

  constructor(
    private readonly sink: ByteSink,
    base: number,
  ) {
    this.prevT = base;
  }

  add(r: RawRecord): void {
    const sink = this.sink;
    const flagged = r.values === null || r.seq > 0;
    sink.varint((r.t - this.prevT) * 2 + (flagged ? 1 : 0));
    this.prevT = r.t;
    if (flagged) {
      sink.varint((r.values === null ? 1 : 0) | (r.seq > 0 ? 2 : 0));
      if (r.seq > 0) sink.varint(r.seq);
    }
    if (r.values === null) {
      this.prev = null;
      return;
    }
    if (r.values.length > 4) throw new RangeError(`a record holds at most 4 values, not ${r.values.length}`);
    const head = this.values.head(r.values, this.prev ?? NO_REFS, 0);
    sink.u8(head);
    this.values.write(sink, r.values, head, 0);
    this.prev = r.values;
  }
}

/** Reads a chunk's records (base: the chunk's base time), calling `each` in order. */
export function readRecordChunk(
  bytes: Uint8Array,
  start: number,
  end: number,
  base: number,
  n: number,
  each: (r: RawRecord) => void,
): void {
  const src = new ByteSource(bytes, start, end);
  let t = base;
  let prev: number[] | null = null;
  while (src.more) {
    const step = src.varint();
    t += Math.floor(step / 2);
    let seq = 0;
    if (step % 2 === 1) {
      const flags = src.varint();
      if (flags & 2) seq = src.varint();
      if (flags & 1) {
        prev = null;
        each({ t, seq, values: null });
        continue;
      }
    }
    const head = src.u8();
    const values = new Array<number>(n);
    for (let i = 0; i < n; i++) values[i] = readValue(src, head, 0, i, prev === null ? undefined : prev[i]);
    prev = values;
    each({ t, seq, values });
  }
}

/** Writes an entity's units into a unit chunk. */
export class UnitChunkWriter {
  private readonly values = new ValueWriter();
  private readonly refs: (number | undefined)[] = [];
  private prev: readonly number[] | null = null;

  constructor(private readonly sink: ByteSink) {}

  /** `index`: the unit's hour of the day (0 for a day unit); `spanStart`: the start its lastT is written from. */
  add(unit: HistoryUnit, index: number, spanStart: number): void {
    const sink = this.sink;
    sink.varint(index);
    const observed = unit.nObs > 0;
    sink.u8((unit.presentAtEnd ? 1 : 0) | (observed ? 2 : 0));
    if (!observed) return;
    sink.varint(unit.nObs);
    sink.varint(unit.lastT - spanStart);
    const n = unit.v.length;
    for (let i = 0; i < n; i++) this.refs[i] = unitRef(this.prev, unit.v, i, n);
    this.refs.length = n;
    const head = this.values.head(unit.v, this.refs, 0);
    sink.varint(head);
    this.values.write(sink, unit.v, head, 0);
    this.prev = unit.v;
  }
}

/** Reads a unit chunk: `each(index, unit)` with the unit's t = spanOf(index). */
export function readUnitChunk(
  bytes: Uint8Array,
  start: number,
  end: number,
  n: number,
  spanOf: (index: number) => number,
  each: (index: number, unit: HistoryUnit) => void,
): void {
  const src = new ByteSource(bytes, start, end);
  let prev: number[] | null = null;
  while (src.more) {
    const index = src.varint();
    const flags = src.u8();
    const t = spanOf(index);
    if ((flags & 2) === 0) {
      each(index, { t, nObs: 0, lastT: t, presentAtEnd: (flags & 1) !== 0, v: [] });
      continue;
    }
    const nObs = src.varint();
    const lastT = t + src.varint();
    const head = src.varint();
    const v = new Array<number>(n);
    for (let i = 0; i < n; i++) v[i] = readValue(src, head, 0, i, unitRef(prev, v, i, n));
    prev = v;
    each(index, { t, nObs, lastT, presentAtEnd: (flags & 1) !== 0, v });
  }
}

/**
 * A shard blob: the chunks of the ids of one group (ids sharing `id >> bits`), found by binary search.
 *   count (u16), widths (u8: bit 0 low ids are u16, else u8; bit 1 chunk ends are u32, else u16),
 *   low ids (ascending), chunk ends (from the data's start), data
 * An hour's blob of 32 ids (l1) and a day's of 128 (daily) take 3 bytes of index a chunk (format 3; 6 before).
 */
export class ShardBlobWriter {
  private readonly ids: number[] = [];
  private readonly ends: number[] = [];
  readonly data = new ByteSink(1024);

  get count(): number {
    return this.ids.length;
  }

  /** Starts the next id's chunk (ids ascending): write it into `data`, then call `end()`. */
  begin(lowId: number): void {
    this.ids.push(lowId);
  }

  end(): void {
    this.ends.push(this.data.at);
  }

  /** Drops the chunk begun last (nothing was worth keeping). */
  cancel(start: number): void {
    this.ids.pop();
    this.data.at = start;
  }

  take(): Buffer {
    const n = this.ids.length;
    const wideIds = n > 0 && this.ids[n - 1] > 0xff;
    const wideEnds = this.data.at > 0xffff;
    const head = new ByteSink(3 + 6 * n);
    head.u16(n);
    head.u8((wideIds ? 1 : 0) | (wideEnds ? 2 : 0));
    for (const id of this.ids)
      if (wideIds) head.u16(id);
      else head.u8(id);
    for (const e of this.ends)
      if (wideEnds) head.u32(e);
      else head.u16(e);
    const out = Buffer.allocUnsafe(head.at + this.data.at);
    const h = head.take();
    out.set(h, 0);
    out.set(this.data.take(), h.length);
    this.ids.length = 0;
    this.ends.length = 0;
    return out;
  }
}

/** A shard blob's index: its count, where its ids and ends start, their widths and where its data starts. */
interface ShardIndex {
  readonly n: number;
  readonly idWidth: number;
  readonly endsAt: number;
  readonly endWidth: number;
  readonly dataAt: number;
}

function shardIndex(blob: Uint8Array): ShardIndex {
  const n = blob[0] | (blob[1] << 8);
  const idWidth = blob[2] & 1 ? 2 : 1;
  const endWidth = blob[2] & 2 ? 4 : 2;
  const endsAt = 3 + n * idWidth;
  return { n, idWidth, endsAt, endWidth, dataAt: endsAt + n * endWidth };
}

function lowIdAt(blob: Uint8Array, x: ShardIndex, i: number): number {
  const o = 3 + i * x.idWidth;
  return x.idWidth === 1 ? blob[o] : blob[o] | (blob[o + 1] << 8);
}

function endAt(blob: Uint8Array, x: ShardIndex, i: number): number {
  const o = x.endsAt + i * x.endWidth;
  const low = blob[o] + blob[o + 1] * 256;
  return x.endWidth === 2 ? low : low + blob[o + 2] * 65536 + blob[o + 3] * 16777216;
}

/** Where an id's chunk is in a shard blob: [start, end) byte offsets, or null. */
export function findInShard(blob: Uint8Array, lowId: number): [number, number] | null {
  const x = shardIndex(blob);
  let lo = 0;
  let hi = x.n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = lowIdAt(blob, x, mid);
    if (v === lowId) return shardChunk(blob, x, mid);
    if (v < lowId) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}

function shardChunk(blob: Uint8Array, x: ShardIndex, i: number): [number, number] {
  return [x.dataAt + (i === 0 ? 0 : endAt(blob, x, i - 1)), x.dataAt + endAt(blob, x, i)];
}

/** Every (lowId, start, end) of a shard blob, ascending. */
export function* shardEntries(blob: Uint8Array): Generator<[number, number, number]> {
  const x = shardIndex(blob);
  for (let i = 0; i < x.n; i++) {
    const [s, e] = shardChunk(blob, x, i);
    yield [lowIdAt(blob, x, i), s, e];
  }
}
