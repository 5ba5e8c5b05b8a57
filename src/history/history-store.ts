/**
 * The history store's LMDB environment (npm `lmdb`) in HISTORY_DIR: its databases, their keys, and each
 * chain's meta record. Every key is big-endian fixed fields, so LMDB's byte order is time order; every
 * value is this store's own encoding (records.ts, shard-blob.ts), never lmdb's msgpack.
 * docs/decisions/014-history-store.md says why it is laid out this way.
 *
 * The tiers' keys (l0, l1, l2, hourly, daily) begin with their time, then the chain: files are observed
 * and hours and days compacted in time order, so a new key is almost always the database's last, and is
 * put with MDB_APPEND (putInOrder): LMDB then splits a full page at the new key and leaves the old page
 * full, where a put in the middle splits it half-full (the store's pages were ~60 % full before, format 1).
 *
 * databases (per chain c, kind k: 0 tokens, 1 pools):
 *   ids      c k address            -> id (u32): an entity's number, in order of first observation
 *   files    c hourStart            -> the hour's observed files (hour-files.ts)
 *   days     c dayStart             -> the day's count, first and last file, and each hour's (hour-files.ts)
 *   gaps     c from                 -> to: a span no observation of this instance covers
 *   present  c k                    -> bitset of the ids present at the latest observation
 *   l0       t c k seq group        -> records of one file, ids group*1024.. (a shard blob)
 *   l1       hourStart c k group32  -> records of one hour, ids group32*32.. (a shard blob)
 *   l2       dayStart c k group16   -> records of one day, ids group16*16.. (a shard blob)
 *   hourly   dayStart c k group16   -> hour units of one day (hours each entity changed in), ids group16*16..
 *   daily    dayStart c k group128  -> day units of every entity present that day (a shard blob)
 *   meta     c                      -> the chain's meta record (JSON)
 * and in the environment's main database, FORMAT_KEY -> the store's format (u32 LE, HISTORY_FORMAT).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { open, type Database, type RootDatabase } from "lmdb";
import { KeyWriter } from "./byte-codec.js";

/**
 * Ids per shard blob of each level: a blob stays small, so reading it copies little. An hour's blob of 32 ids
 * stays under LMDB's largest value kept in a leaf page (about 2 KiB with 4 KiB pages) up to about 5 % churn
 * on the sample chain; a larger value takes overflow pages of its own, the last one partly empty (64 ids made
 * 2.3 KiB blobs at 5 %: a page each, 57 % full).
 */
export const L0_GROUP_BITS = 10;
export const L1_GROUP_BITS = 5;
export const DAILY_GROUP_BITS = 7;
/**
 * Ids per l2 and hourly blob (format 3; an entry per entity before): a day's records or hour units of one
 * entity are tens of bytes at low churn, where a key and LMDB's node took 23 bytes more per entry. 16 ids keep
 * a blob in its leaf page at 2-5 % churn (32 made 1.7 KiB blobs at 2 %, a fifth of them in overflow pages).
 */
export const DAY_GROUP_BITS = 4;

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

/**
 * The layout of the store's keys and values. 1: the tiers' keys began with the chain (until 2026-11-28);
 * 2: they begin with their time (appended in order); 3 (since 2026-11-28): a value is written against a
 * reference, as its difference from it (records.ts). A store of another format is refused (checkFormat).
 */
export const HISTORY_FORMAT = 3;
const FORMAT_KEY = Buffer.from("history-format");

/** Opens (creating) the store in `dir`: the history thread's. Every thread of the process shares one environment (lmdb shares it by path). */
export function openHistoryDbs(dir: string): HistoryDbs {
  mkdirSync(dir, { recursive: true });
  const env = openEnv(dir);
  const opened = openDbs(env);
  try {
    checkFormat(opened, dir);
  } catch (error) {
    void env.close();
    throw error;
  }
  return opened;
}

/**
 * For a serving thread: the store as the history thread made it, or why it cannot be read (a string). Never
 * creates nor writes anything: the directory must exist and the store be stamped with this gateway's format,
 * which the history thread does only after it has created every database. `env` is one opened by an earlier
 * call (kept open between attempts).
 */
export function openHistoryForReading(
  dir: string,
  env: RootDatabase<Buffer, Buffer> | null,
): { readonly env: RootDatabase<Buffer, Buffer> | null; readonly dbs: HistoryDbs | null; readonly problem: string | null } {
  if (env === null) {
    if (!existsSync(join(dir, "data.mdb"))) return { env: null, dbs: null, problem: "the history thread has not created its store yet" };
    env = openEnv(dir);
  }
  const format = storedFormat(env);
  if (format === null) return { env, dbs: null, problem: "the history thread has not created its store yet" };
  if (format !== HISTORY_FORMAT) {
    return { env, dbs: null, problem: `the store holds history in format ${format}; this gateway reads format ${HISTORY_FORMAT}` };
  }
  return { env, dbs: openDbs(env), problem: null };
}

function openEnv(dir: string): RootDatabase<Buffer, Buffer> {
  return open<Buffer, Buffer>({
    path: dir,
    // HISTORY_DIR is a directory whatever its name: lmdb takes a path with an extension ("store-0.02") for a file.
    noSubdir: false,
    maxDbs: NAMES.length + 2,
    mapSize: MAP_SIZE,
    keyEncoding: "binary",
    encoding: "binary",
    // Pages are written with write(2): a full disk is an error of the commit, never a signal in a reader.
    useWritemap: false,
    noMemInit: true,
  });
}

function openDbs(env: RootDatabase<Buffer, Buffer>): HistoryDbs {
  const dbs: Record<string, HistoryDb> = {};
  for (const name of NAMES) dbs[name] = env.openDB<Buffer, Buffer>({ name, keyEncoding: "binary", encoding: "binary" });
  return { env, ...(dbs as Omit<HistoryDbs, "env">) };
}

/** The format stamped in the store, or null when it has none. */
function storedFormat(env: RootDatabase<Buffer, Buffer>): number | null {
  const stamped = env.getBinary(FORMAT_KEY);
  return stamped !== undefined && stamped.length >= 4 ? stamped.readUInt32LE(0) : null;
}

/**
 * The store's format, stamped into an empty store by its first open; a store of another format (or an
 * unstamped one that holds history: format 1) is refused with what to do. History is derived from the
 * served files, so the way forward is a new directory, seeded from archived files with `history rebuild`.
 */
function checkFormat(dbs: HistoryDbs, dir: string): void {
  const format = storedFormat(dbs.env);
  if (format === HISTORY_FORMAT) return;
  const holds = format !== null || dbs.meta.getKeysCount({ limit: 1 }) > 0;
  if (holds) {
    throw new Error(
      `${dir} holds history in format ${format ?? 1}; this gateway reads and writes format ${HISTORY_FORMAT}: ` +
        `move that directory aside (or delete it) and seed a new one with \`liquidity-gateway history rebuild --from <archived files>\``,
    );
  }
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(HISTORY_FORMAT, 0);
  dbs.env.transactionSync(() => dbs.env.putSync(FORMAT_KEY, bytes));
}

/**
 * Puts keys with MDB_APPEND when they sort after every key of their database (the common case: see above),
 * others as ordinary puts. It holds the greatest key it has put per database (read once from the store): a
 * key greater than that is greater than every key the database holds, whatever was deleted or rolled back
 * since (the store has one writer: this thread).
 */
export class OrderedPuts {
  private readonly last = new Map<HistoryDb, Buffer | null>();

  put(db: HistoryDb, key: Buffer, value: Buffer): void {
    let last = this.last.get(db);
    if (last === undefined) {
      last = null;
      for (const k of db.getKeys({ reverse: true, limit: 1 })) last = Buffer.from(k as Buffer);
    }
    if (last === null || Buffer.compare(key, last) > 0) {
      // lmdb answers false (and writes nothing) to an append out of order: never so here, but never lost either.
      if (!(db.putSync(key, value, { append: true }) as unknown as boolean)) db.putSync(key, value);
      this.last.set(db, key);
    } else {
      db.putSync(key, value);
      this.last.set(db, last);
    }
  }
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
    return this.w.reset().u32(t).u32(chain).u8(kind).u16(seq).u16(group).view();
  }

  l1(chain: number, kind: number, hour: number, group: number): Buffer {
    return this.w.reset().u32(hour).u32(chain).u8(kind).u16(group).view();
  }

  /** l2 and hourly: a group's entry of a day (ids group << DAY_GROUP_BITS..). */
  dayGroup(chain: number, kind: number, day: number, group: number): Buffer {
    return this.w.reset().u32(day).u32(chain).u8(kind).u16(group).view();
  }

  daily(chain: number, kind: number, day: number, group: number): Buffer {
    return this.w.reset().u32(day).u32(chain).u8(kind).u16(group).view();
  }

  /** The first key of a chain's kind's entries of a day in l2 and hourly (a copy; the kind's end is kind + 1). */
  dayKind(chain: number, kind: number, day: number): Buffer {
    return this.w.reset().u32(day).u32(chain).u8(kind).copy();
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
