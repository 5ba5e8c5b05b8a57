/**
 * A chain's observed files, by hour and by day: which files a bucket holds (a candle's observations, and
 * whether an empty bucket had files without the entity or none at all).
 *
 * - an hour's entry: count (u16), then each file's offset from the hour's start (u16), in the order observed
 *   (files of the same second keep that order: their `seq`);
 * - a day's entry: count, first and last generatedAt (u32 each), then for each of its 24 hours: count, first
 *   and last offset from the hour's start (u16 each).
 */
import { HOUR, type ChainSpan } from "../query/history-units.js";

export function hourFilesWith(previous: Uint8Array | undefined, hour: number, t: number): Buffer {
  const n = previous === undefined ? 0 : previous[0] | (previous[1] << 8);
  const out = Buffer.alloc(2 + 2 * (n + 1));
  if (previous !== undefined) out.set(previous.subarray(0, 2 + 2 * n), 0);
  out.writeUInt16LE(n + 1, 0);
  out.writeUInt16LE(t - hour, 2 + 2 * n);
  return out;
}

/** The files of an hour's entry: [t, seq] in the order observed. */
export function hourFiles(entry: Uint8Array, hour: number): Array<[number, number]> {
  const n = entry[0] | (entry[1] << 8);
  const out: Array<[number, number]> = [];
  let lastT = -1;
  let seq = 0;
  for (let i = 0; i < n; i++) {
    const t = hour + (entry[2 + 2 * i] | (entry[3 + 2 * i] << 8));
    seq = t === lastT ? seq + 1 : 0;
    lastT = t;
    out.push([t, seq]);
  }
  return out;
}

const DAY_HEAD = 12;
export const DAY_ENTRY_BYTES = DAY_HEAD + 24 * 6;

export function dayFilesWith(previous: Uint8Array | undefined, day: number, t: number): Buffer {
  const out = Buffer.alloc(DAY_ENTRY_BYTES);
  if (previous !== undefined) out.set(previous.subarray(0, DAY_ENTRY_BYTES), 0);
  const count = out.readUInt32LE(0);
  out.writeUInt32LE(count + 1, 0);
  if (count === 0) out.writeUInt32LE(t, 4);
  out.writeUInt32LE(t, 8);
  const h = Math.floor((t - day) / HOUR);
  const at = DAY_HEAD + 6 * h;
  const hourCount = out.readUInt16LE(at);
  const offset = t - day - h * HOUR;
  out.writeUInt16LE(hourCount + 1, at);
  if (hourCount === 0) out.writeUInt16LE(offset, at + 2);
  out.writeUInt16LE(offset, at + 4);
  return out;
}

/** The day's span (all its files). */
export function daySpan(entry: Uint8Array, day: number): ChainSpan {
  const b = Buffer.from(entry.buffer, entry.byteOffset, entry.length);
  return { t: day, count: b.readUInt32LE(0), firstT: b.readUInt32LE(4), lastT: b.readUInt32LE(8) };
}

/** The spans of the day's hours that have files, in order. */
export function dayHourSpans(entry: Uint8Array, day: number): ChainSpan[] {
  const b = Buffer.from(entry.buffer, entry.byteOffset, entry.length);
  const out: ChainSpan[] = [];
  for (let h = 0; h < 24; h++) {
    const at = DAY_HEAD + 6 * h;
    const count = b.readUInt16LE(at);
    if (count === 0) continue;
    const hour = day + h * HOUR;
    out.push({ t: hour, count, firstT: hour + b.readUInt16LE(at + 2), lastT: hour + b.readUInt16LE(at + 4) });
  }
  return out;
}
