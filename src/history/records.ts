/**
 * How the store writes an entity's records and units (docs/decisions/014-history-store.md).
 *
 * A record chunk (l0, l1, l2 entries): records in time order, each
 *   dt (varint, seconds after the previous record, the first after the chunk's base time)
 *   head (varint): bit 0 removed, bit 1 has seq, then two bits per value: 0 decimal code, 1 the same as the
 *     previous record's, 2 float64, 3 zero
 *   [seq varint] [values]
 * A unit chunk (hourly entries, daily units): units in time order, each
 *   index (varint: hour of the day; 0 for a day unit), flags (bit 0 present at end, bit 1 observed),
 *   [nObs varint, lastT - span start varint, head varint, values] when observed.
 * The same-as-previous value and decimal codes make a walking price 3 to 6 bytes, an unchanged one none.
 */
import { ByteSink, ByteSource, decimalCode, decimalValue } from "./byte-codec.js";
import type { HistoryUnit, RawRecord } from "../query/history-units.js";

const SAME = 1;
const RAW = 2;
const ZERO = 3;

/** Writes values after a head of their kinds (relative to `prev`, the previous values of the chunk, or null). */
class ValueWriter {
  private readonly codes: number[] = [];

  /** The head bits of `values` (2 bits each from bit `shift`), computing their codes. */
  head(values: readonly number[], prev: readonly number[] | null, shift: number): number {
    let head = 0;
    for (let i = 0; i < values.length; i++) {
      const x = values[i];
      let kind: number;
      let code = -1;
      if (prev !== null && Object.is(prev[i], x)) kind = SAME;
      else if (x === 0 && !Object.is(x, -0)) kind = ZERO;
      else {
        code = decimalCode(x);
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

function readValues(src: ByteSource, head: number, shift: number, n: number, prev: readonly number[] | null): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const kind = Math.floor(head / 2 ** (shift + 2 * i)) % 4;
    if (kind === 0) out[i] = decimalValue(src.varint());
    else if (kind === SAME) out[i] = prev![i];
    else if (kind === RAW) out[i] = src.f64();
    else out[i] = 0;
  }
  return out;
}

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
    sink.varint(r.t - this.prevT);
    this.prevT = r.t;
    const seqBit = r.seq > 0 ? 2 : 0;
    if (r.values === null) {
      sink.varint(1 | seqBit);
      if (seqBit) sink.varint(r.seq);
      this.prev = null;
      return;
    }
    const head = this.values.head(r.values, this.prev, 2) + seqBit;
    sink.varint(head);
    if (seqBit) sink.varint(r.seq);
    this.values.write(sink, r.values, head, 2);
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
    t += src.varint();
    const head = src.varint();
    const seq = head & 2 ? src.varint() : 0;
    if (head & 1) {
      prev = null;
      each({ t, seq, values: null });
      continue;
    }
    prev = readValues(src, head, 2, n, prev);
    each({ t, seq, values: prev });
  }
}

/** Writes an entity's units into a unit chunk. */
export class UnitChunkWriter {
  private readonly values = new ValueWriter();
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
    const head = this.values.head(unit.v, this.prev, 0);
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
    prev = readValues(src, head, 0, n, prev);
    each(index, { t, nObs, lastT, presentAtEnd: (flags & 1) !== 0, v: prev });
  }
}

/**
 * A shard blob: the chunks of the ids of one group (ids sharing `id >> bits`), found by binary search.
 *   count (u16), low ids (u16 each, ascending), chunk ends (u32 each, from the data's start), data
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
    const head = new ByteSink(2 + 6 * n);
    head.u16(n);
    for (const id of this.ids) head.u16(id);
    for (const e of this.ends) head.u32(e);
    const out = Buffer.allocUnsafe(head.at + this.data.at);
    const h = head.take();
    out.set(h, 0);
    out.set(this.data.take(), h.length);
    this.ids.length = 0;
    this.ends.length = 0;
    return out;
  }
}

/** Where an id's chunk is in a shard blob: [start, end) byte offsets, or null. */
export function findInShard(blob: Uint8Array, lowId: number): [number, number] | null {
  const n = blob[0] | (blob[1] << 8);
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = blob[2 + 2 * mid] | (blob[3 + 2 * mid] << 8);
    if (v === lowId) return shardChunk(blob, n, mid);
    if (v < lowId) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}

function shardChunk(blob: Uint8Array, n: number, i: number): [number, number] {
  const data = 2 + 6 * n;
  const endAt = (k: number) => {
    const o = 2 + 2 * n + 4 * k;
    return blob[o] + blob[o + 1] * 256 + blob[o + 2] * 65536 + blob[o + 3] * 16777216;
  };
  return [data + (i === 0 ? 0 : endAt(i - 1)), data + endAt(i)];
}

/** Every (lowId, start, end) of a shard blob, ascending. */
export function* shardEntries(blob: Uint8Array): Generator<[number, number, number]> {
  const n = blob[0] | (blob[1] << 8);
  for (let i = 0; i < n; i++) {
    const [s, e] = shardChunk(blob, n, i);
    yield [blob[2 + 2 * i] | (blob[3 + 2 * i] << 8), s, e];
  }
}
