/**
 * The history store's LMDB environment (npm `lmdb`) in HISTORY_DIR: its databases, their keys, and each
 * chain's meta record. Every key is big-endian fixed fields, so LMDB's byte order is time order; every
 * value is this store's own encoding (records.ts, shard-blob.ts), never lmdb's msgpack.
 * docs/decisions/014-history-store.md says why it is laid out this way.
 *
 * databases (per chain c, kind k: 0 tokens, 1 pools):
 *   ids      c k address            -> id (u32): an entity's number, in order of first observation
 *   files    c hourStart            -> the hour's observed files (hour-files.ts)
 *   days     c dayStart             -> the day's count, first and last file, and each hour's (hour-files.ts)
 *   gaps     c from                 -> to: a span no observation of this instance covers
 *   present  c k                    -> bitset of the ids present at the latest observation
 *   l0       c k t seq group        -> records of one file, ids group*1024.. (a shard blob)
 *   l1       c k hourStart group64  -> records of one hour, ids group64*64.. (a shard blob)
 *   l2       c k dayStart id        -> an entity's records of one day
 *   hourly   c k dayStart id        -> an entity's hour units of one day (hours it changed in)
 *   daily    c k dayStart group128  -> day units of every entity present that day (a shard blob)
 *   meta     c                      -> the chain's meta record (JSON)
 */
import { mkdirSync } from "node:fs";
import { open, type Database, type RootDatabase } from "lmdb";
import { KeyWriter } from "./byte-codec.js";

/** Ids per shard blob of each level: a blob stays small, so reading it copies little. */
export const L0_GROUP_BITS = 10;
export const L1_GROUP_BITS = 6;
export const DAILY_GROUP_BITS = 7;

/** Address space reserved for the map (not memory): the store grows into it. */
const MAP_SIZE = 2 ** 40;

export type HistoryDb = Database<Buffer, Buffer>;

export interface HistoryDbs {
  readonly env: RootDatabase<Buffer, Buffer>;
  readonly ids: HistoryDb;
  readonly files: HistoryDb;
  readonly days: HistoryDb;
  readonly gaps: HistoryDb;
  readonly present: HistoryDb;
  readonly l0: HistoryDb;
  readonly l1: HistoryDb;
  readonly l2: HistoryDb;
  readonly hourly: HistoryDb;
  readonly daily: HistoryDb;
  readonly meta: HistoryDb;
}

const NAMES = ["ids", "files", "days", "gaps", "present", "l0", "l1", "l2", "hourly", "daily", "meta"] as const;

/** Opens (creating) the store in `dir`. Every thread of the process shares one environment (lmdb shares it by path). */
export function openHistoryDbs(dir: string): HistoryDbs {
  mkdirSync(dir, { recursive: true });
  const env = open<Buffer, Buffer>({
    path: dir,
    maxDbs: NAMES.length + 2,
    mapSize: MAP_SIZE,
    keyEncoding: "binary",
    encoding: "binary",
    // Pages are written with write(2): a full disk is an error of the commit, never a signal in a reader.
    useWritemap: false,
    noMemInit: true,
  });
  const dbs: Record<string, HistoryDb> = {};
  for (const name of NAMES) dbs[name] = env.openDB<Buffer, Buffer>({ name, keyEncoding: "binary", encoding: "binary" });
  return { env, ...(dbs as Omit<HistoryDbs, "env">) };
}

/** A chain's meta record: where its history stands. */
export interface ChainMeta {
  /** generatedAt of the first observation. */
  firstT: number;
  /** generatedAt of the latest observation. */
  maxT: number;
  /** Observations so far (the epoch of the chain's answers). */
  files: number;
  /** Change-set id of the file last observed (`<generatedAt>.<12 hex>`): continuity of the next one. */
  lastFileId: string;
  /** Next id of each kind. */
  nextId: [number, number];
  /** Per kind: hours before `hour` are in l1 (or further); of `hour`, the l0 groups before `group`. */
  l1: [CompactionMark, CompactionMark];
  /** Per kind: days before `day` are in l2/hourly/daily; of `day`, the l0-sized groups before `group`. */
  day: [CompactionMark, CompactionMark];
  /** Raw days before this are deleted (l2); hourly days before `hourlyDropped` too. */
  rawDropped: number;
  hourlyDropped: number;
}

export interface CompactionMark {
  t: number;
  group: number;
}

export function newChainMeta(t: number, fileId: string): ChainMeta {
  const hour = t - (t % 3600);
  const day = t - (t % 86_400);
  return {
    firstT: t,
    maxT: t,
    files: 0,
    lastFileId: fileId,
    nextId: [0, 0],
    l1: [
      { t: hour, group: 0 },
      { t: hour, group: 0 },
    ],
    day: [
      { t: day, group: 0 },
      { t: day, group: 0 },
    ],
    rawDropped: 0,
    hourlyDropped: 0,
  };
}

/** Keys of every database (one writer per thread; a view is valid until the next key of the same writer). */
export class HistoryKeys {
  private readonly w = new KeyWriter(80);

  meta(chain: number): Buffer {
    return this.w.reset().u32(chain).view();
  }

  id(chain: number, kind: number, address: Uint8Array): Buffer {
    return this.w.reset().u32(chain).u8(kind).bytes(address).view();
  }

  chainTime(chain: number, t: number): Buffer {
    return this.w.reset().u32(chain).u32(t).view();
  }

  present(chain: number, kind: number): Buffer {
    return this.w.reset().u32(chain).u8(kind).view();
  }

  l0(chain: number, kind: number, t: number, seq: number, group: number): Buffer {
    return this.w.reset().u32(chain).u8(kind).u32(t).u16(seq).u16(group).view();
  }

  l1(chain: number, kind: number, hour: number, group: number): Buffer {
    return this.w.reset().u32(chain).u8(kind).u32(hour).u16(group).view();
  }

  /** l2 and hourly: an entity's entry of a day. */
  dayEntity(chain: number, kind: number, day: number, id: number): Buffer {
    return this.w.reset().u32(chain).u8(kind).u32(day).u32(id).view();
  }

  daily(chain: number, kind: number, day: number, group: number): Buffer {
    return this.w.reset().u32(chain).u8(kind).u32(day).u16(group).view();
  }

  /** The first key of a chain's kind's entries of time `t` (ranges over l1, l2, hourly, daily). */
  kindTime(chain: number, kind: number, t: number): Buffer {
    return this.w.reset().u32(chain).u8(kind).u32(t).copy();
  }
}

export function encodeMeta(meta: ChainMeta): Buffer {
  return Buffer.from(JSON.stringify(meta));
}

export function decodeMeta(bytes: Uint8Array): ChainMeta {
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8")) as ChainMeta;
}
