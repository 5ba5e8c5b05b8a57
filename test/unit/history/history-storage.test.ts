/**
 * The history store's lifecycle (shared/spec/history.md §22, §23, §25): retention drops exactly the days
 * past HISTORY_RAW_HOURS and HISTORY_HOUR_DAYS once compacted, and keeps the rest; a rollback file never
 * rewrites a closed bucket; a full disk (a small tmpfs, as root) makes history `failed`, loses nothing
 * already written, and history resumes by itself once space returns.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { open } from "lmdb";
import { afterEach, describe, expect, it } from "vitest";
import { keyU32 } from "../../../src/history/byte-codec.js";
import { tierFloors } from "../../../src/history/history-reader.js";
import { HistoryService } from "../../../src/history/history-service.js";
import { HISTORY_FORMAT, openHistoryDbs, openHistoryForReading, OrderedPuts } from "../../../src/history/history-store.js";
import { HistoryStatusCells } from "../../../src/history/history-status.js";
import { answerBuckets, TIER_SPAN, type HistoryTier } from "../../../src/query/history-answer.js";
import { DAY, HOUR, TOKEN } from "../../../src/query/history-units.js";
import { hexBytes } from "../../../src/history/observe.js";
import { tempDir } from "../../support/fixtures.js";
import { compileFile, HistoryHarness, servedFile, type Compiled } from "../../support/history-harness.js";
import { historySeries } from "../../support/history-series.js";

const CHAIN = 8453;
let harness: HistoryHarness | null = null;
afterEach(() => {
  harness?.close();
  harness = null;
});

describe("retention", () => {
  it("drops exactly the days past each tier's retention, once compacted, and answers what is kept", () => {
    const retention = { rawHours: 30, hourDays: 4 };
    const h = (harness = new HistoryHarness(retention));
    const files = historySeries(3, {
      chainId: CHAIN,
      tokens: 4,
      looseTokens: 2,
      pools: 4,
      files: 130,
      churn: 0.3,
      start: 1_750_000_000,
      step: () => 3600,
    });
    for (const f of files) h.serve(compileFile(f));
    h.compact(Infinity);
    const meta = h.writer.meta(CHAIN)!;
    const floors = tierFloors(meta, retention);
    // The raw tier keeps the days holding its floor and after; the hourly tier likewise.
    expect(meta.rawDropped).toBe(floors.raw - (floors.raw % DAY));
    expect(meta.hourlyDropped).toBe(floors.hour - (floors.hour % DAY));
    expect(meta.rawDropped).toBeGreaterThan(files[0].generatedAt);
    expect(meta.hourlyDropped).toBeLessThan(meta.rawDropped);
    expect(meta.hourlyDropped).toBeGreaterThan(files[0].generatedAt);
    // The tiers' keys begin with their day (history-store.ts).
    const days = (db: typeof h.dbs.l2, at: number) => [...db.getKeys()].map((k) => keyU32(k as Buffer, at));
    const raw = days(h.dbs.l2, 0);
    const hourly = days(h.dbs.hourly, 0);
    expect(Math.min(...raw)).toBe(meta.rawDropped);
    expect(Math.min(...hourly)).toBe(meta.hourlyDropped);
    expect(Math.min(...[...h.dbs.files.getKeys()].map((k) => keyU32(k as Buffer, 4)))).toBe(meta.rawDropped);
    // Daily units are kept without limit: from the first day.
    expect(Math.min(...days(h.dbs.daily, 0))).toBe(files[0].generatedAt - (files[0].generatedAt % DAY));
    // Answers stop at each tier's floor and equal the reference.
    const address = files[0].tokens[0].address;
    const id = h.reads.entityId(CHAIN, TOKEN, hexBytes(address))!;
    const chain = h.reads.chain(CHAIN)!;
    for (const tier of ["raw", "hour", "day"] as HistoryTier[]) {
      const got = answerBuckets(chain, { kind: TOKEN, id, tier, width: TIER_SPAN[tier], before: Infinity, limit: 1000, fill: false });
      const want = h.reference.candles({
        kind: "token",
        address,
        tier,
        width: TIER_SPAN[tier],
        before: Infinity,
        limit: 1000,
        fill: false,
      });
      expect(got.buckets.map((b) => [b.t, ...b.v])).toEqual(want.buckets.map((b) => [b.t, ...b.v]));
      expect(got.coverage.from).toBe(tier === "day" ? files[0].generatedAt - (files[0].generatedAt % DAY) : floors[tier]);
    }
  });
});

describe("a rollback", () => {
  it("is not observed and never rewrites a closed bucket; the next file carries its changes", () => {
    const h = (harness = new HistoryHarness({ rawHours: 48, hourDays: 90 }));
    const files = historySeries(8, {
      chainId: CHAIN,
      tokens: 4,
      looseTokens: 2,
      pools: 4,
      files: 12,
      churn: 0.6,
      start: 1_750_000_000,
      step: () => 700,
    });
    const compiled: Compiled[] = files.map(compileFile);
    for (const c of compiled.slice(0, 8)) h.serve(c);
    const snapshot = () => {
      const chain = h.reads.chain(CHAIN)!;
      const out = new Map<string, string>();
      for (const t of files[0].tokens) {
        const id = h.reads.entityId(CHAIN, TOKEN, hexBytes(t.address));
        if (id === null) continue;
        for (const [tier, width] of [
          ["raw", 60],
          ["raw", 900],
          ["hour", HOUR],
        ] as const) {
          for (const b of answerBuckets(chain, { kind: TOKEN, id, tier, width, before: Infinity, limit: 1000, fill: true }).buckets) {
            out.set(`${t.address} ${width} ${b.t}`, JSON.stringify(b));
          }
        }
      }
      return out;
    };
    const before = snapshot();
    const maxT = files[7].generatedAt;
    // An allowed rollback: an older file (its contents and its time) served after the newest.
    expect(h.serve(compiled[3]).kind).toBe("rollback");
    expect(h.serve(compiled[8]).kind).toBe("observed");
    h.compact(Infinity);
    const after = snapshot();
    let closed = 0;
    for (const [key, value] of before) {
      const [, width, t] = key.split(" ").map(Number);
      if (t + width > maxT) continue; // open when the rollback came
      closed++;
      expect(after.get(key), key).toBe(value);
    }
    expect(closed).toBeGreaterThan(10);
    // The file after the rollback is observed with every change since the file served before it.
    expect(h.reads.chain(CHAIN)!.info.maxT).toBe(files[8].generatedAt);
  });
});

const asRoot = process.getuid?.() === 0;

describe("the store's format", () => {
  it("stamps a new store, and refuses a store of another format (or an unstamped one holding history) by name", () => {
    const dir = tempDir("lgw-history-format-");
    try {
      const stamp = (format: number | null) => {
        const env = open<Buffer, Buffer>({ path: dir, maxDbs: 16, keyEncoding: "binary", encoding: "binary" });
        const key = Buffer.from("history-format");
        env.transactionSync(() => {
          if (format === null) env.removeSync(key);
          else env.putSync(key, Buffer.from(Uint32Array.of(format).buffer));
        });
        void env.close();
      };
      let service = new HistoryService({ dir, retention: { rawHours: 48, hourDays: 90 } }, new HistoryStatusCells());
      const files = historySeries(1, {
        chainId: CHAIN,
        tokens: 3,
        looseTokens: 1,
        pools: 3,
        files: 2,
        churn: 0.5,
        start: 1_750_000_000,
        step: () => 60,
      });
      service.enqueue(servedFile(null, [compileFile(files[0])]));
      service.drain();
      service.close();
      // The same format opens again.
      service = new HistoryService({ dir, retention: { rawHours: 48, hourDays: 90 } }, new HistoryStatusCells());
      service.close();
      stamp(1);
      expect(() => openHistoryDbs(dir)).toThrow(
        /holds history in format 1; this gateway reads and writes format 3: move that directory aside/,
      );
      stamp(2);
      expect(() => openHistoryDbs(dir)).toThrow(/holds history in format 2; this gateway reads and writes format 3/);
      stamp(null);
      expect(() => new HistoryService({ dir, retention: { rawHours: 48, hourDays: 90 } }, new HistoryStatusCells())).toThrow(
        /holds history in format 1/,
      );
      stamp(HISTORY_FORMAT);
      void openHistoryDbs(dir).env.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the store's directory", () => {
  it("is a directory even when its name has a dot (lmdb would take it for a file), for the writer and for readers", () => {
    const parent = tempDir("lgw-history-dotted-");
    const dir = join(parent, "store-0.02");
    try {
      const service = new HistoryService({ dir, retention: { rawHours: 48, hourDays: 90 } }, new HistoryStatusCells());
      service.close();
      const read = openHistoryForReading(dir, null);
      expect(read.problem).toBeNull();
      void read.env?.close();
      expect(readdirSync(dir).sort()).toEqual(["data.mdb", "lock.mdb"]);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe("puts in key order", () => {
  it("appends keys past the database's last and puts any other key in its place (another writer's view too)", () => {
    const dir = tempDir("lgw-history-puts-");
    const dbs = openHistoryDbs(dir);
    try {
      const key = (n: number) => Buffer.from([0, n]);
      const puts = new OrderedPuts();
      // In order, out of order (another chain's older hour), over an existing key, and after a deletion.
      dbs.env.transactionSync(() => {
        for (const n of [3, 5, 4, 1, 9]) puts.put(dbs.l1, key(n), Buffer.from([n]));
        puts.put(dbs.l1, key(5), Buffer.from([55]));
        dbs.l1.removeSync(key(9));
        puts.put(dbs.l1, key(7), Buffer.from([7]));
      });
      // A writer starting over an existing store reads its last key first.
      dbs.env.transactionSync(() => new OrderedPuts().put(dbs.l1, key(6), Buffer.from([6])));
      // One whose view is stale (another wrote since it looked) still puts the key where it belongs.
      const stale = new OrderedPuts();
      dbs.env.transactionSync(() => stale.put(dbs.l0, key(1), Buffer.from([1])));
      dbs.env.transactionSync(() => new OrderedPuts().put(dbs.l0, key(8), Buffer.from([8])));
      dbs.env.transactionSync(() => stale.put(dbs.l0, key(2), Buffer.from([2])));
      expect([...dbs.l0.getKeys()].map((k) => (k as Buffer)[1])).toEqual([1, 2, 8]);
      expect([...dbs.l1.getRange()].map(({ key: k, value }) => [k[1], value[0]])).toEqual([
        [1, 1],
        [3, 3],
        [4, 4],
        [5, 55],
        [6, 6],
        [7, 7],
      ]);
    } finally {
      void dbs.env.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a full disk", () => {
  // Under HISTORY_MIN_FREE_MB nothing is written, so lmdb never meets the full disk itself (its write-error path can
  // corrupt the process's heap: history-service.ts, checkRoom); a 1 MiB floor on a 2 MiB tmpfs.
  it.runIf(asRoot)("marks history failed before the disk is full, keeps what was written, and resumes when space returns", () => {
    const mountPoint = tempDir("lgw-history-tmpfs-");
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint]);
    const status = new HistoryStatusCells();
    const failures: string[] = [];
    let service: HistoryService | null = null;
    try {
      const dir = join(mountPoint, "history");
      mkdirSync(dir);
      // The last file written (a compaction step after it may be what met the floor).
      let written = 0;
      service = new HistoryService({ dir, retention: { rawHours: 48, hourDays: 90 }, minFreeBytes: 1 << 20 }, status, {
        failed: (_what, error) => failures.push((error as Error).message),
        written: (file) => (written = file.generatedAt),
      });
      const files = historySeries(5, {
        chainId: CHAIN,
        tokens: 400,
        looseTokens: 50,
        pools: 600,
        files: 150,
        churn: 0.9,
        start: 1_750_000_000,
        step: () => 60,
      });
      let before: Compiled | null = null;
      let i = 0;
      for (; i < files.length && status.state !== "failed"; i++) {
        const c = compileFile(files[i]);
        service.enqueue(servedFile(before, [c]));
        service.drain();
        before = c;
      }
      expect(status.state, "the 2 MiB tmpfs came within 1 MiB of full").toBe("failed");
      // A write or a compaction step met the floor first: either is refused before lmdb writes anything.
      expect(failures.length).toBeGreaterThan(0);
      expect(failures[0]).toMatch(/MiB free on its file system, under HISTORY_MIN_FREE_MB \(1 MiB\)/);
      const kept = written;
      expect(kept).toBeGreaterThan(0);
      expect(status.lastObservedAt).toBe(kept);
      // Still under the floor: the next file is not written (counted as a failure), nothing written before is lost.
      const lost = compileFile(files[i]);
      service.enqueue(servedFile(before, [lost]));
      service.drain();
      expect(status.state).toBe("failed");
      expect(status.figures().failures).toBeGreaterThan(0);
      expect(written).toBe(kept);
      expect(status.lastObservedAt).toBe(kept);
      // Space returns: the next file is written (a fresh start, the lost span a gap) and history is ok again.
      execFileSync("mount", ["-o", "remount,size=256m", mountPoint]);
      const next = files[i + 1];
      service.enqueue(servedFile(lost, [compileFile(next)]));
      service.drain();
      expect(status.state).toBe("ok");
      expect(status.lastObservedAt).toBe(next.generatedAt);
      const reads = new HistoryHarnessReads(service);
      expect(reads.gaps()).toEqual([[kept, next.generatedAt]]);
    } finally {
      service?.close();
      execFileSync("umount", [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });
});

/** The chain's gaps as a serving thread reads them. */
class HistoryHarnessReads {
  constructor(private readonly service: HistoryService) {}

  gaps(): number[][] {
    const out: number[][] = [];
    for (const { key, value } of this.service.dbs.gaps.getRange()) out.push([keyU32(key, 4), value.readUInt32LE(0)]);
    return out;
  }
}
