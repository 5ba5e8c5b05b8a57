/**
 * Reading a snapshot's pools one at a time (msgpack-layout.ts, pool-stream.ts):
 * value framing against msgpackr's own decoding, the split of a file into its
 * header and pools, and the files that must be decoded whole instead.
 */
import { createHash } from "node:crypto";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MessageChannel } from "node:worker_threads";
import fc from "fast-check";
import { Packr, pack } from "msgpackr";
import { afterAll, describe, expect, it } from "vitest";
import type { ChainId } from "../../../src/chains/chains.js";
import { decodeSnapshotBytes } from "../../../src/snapshot/decode-snapshot.js";
import { arrayHeader, mapHeader, valueEnd, valueEndWithin } from "../../../src/snapshot/msgpack-layout.js";
import { splitPools } from "../../../src/snapshot/pool-stream.js";
import { SnapshotError } from "../../../src/snapshot/snapshot-error.js";
import {
  hashOpenFile,
  openSnapshotBytes,
  openSnapshotFile,
  openSnapshotSource,
  parseSnapshotBytes,
} from "../../../src/snapshot/read-snapshot-file.js";
import { arraySource, FileSource } from "../../../src/snapshot/byte-source.js";
import { applyByteEdits, byteEdits } from "../../support/byte-edits.js";
import { addr, chainFile, nativeToken, poolStats, poolToken, protocol, token, v2Pool, v3Pool } from "../../support/fixtures.js";

const CHAIN = 8453 as ChainId;
/** Maps in their smallest form (msgpackr's pack writes map16 by default). */
const smallest = new Packr({ variableMapSize: true, useRecords: false });

function sampleFile(pools = 5) {
  const tokens = [
    nativeToken(CHAIN),
    token(CHAIN, { address: addr("a1"), symbol: "AAA" }),
    token(CHAIN, { address: addr("b2"), symbol: "BBB" }),
  ];
  const list = Array.from({ length: pools }, (_, i) =>
    (i % 2 === 0 ? v2Pool : v3Pool)({
      address: addr(`f${(i + 1).toString(16)}`),
      protocolId: "uni",
      tokens: [poolToken(addr("a1"), i + 1, 2 * i + 1), poolToken(addr("b2"), 3, 4)],
      stats: poolStats(i + 1),
    }),
  );
  return chainFile(CHAIN, { tokens, protocols: [protocol("uni")], pools: list });
}

/** Everything openSnapshotBytes gives, with the pools taken. */
function streamed(bytes: Uint8Array) {
  const { snapshot, pools } = openSnapshotBytes(bytes, CHAIN);
  const list = [];
  for (let i = 0; i < pools.count; i++) list.push(pools.next());
  return { ...snapshot, pools: list };
}

/** JSON-like values msgpackr packs without extensions (no Date, no bigint, no undefined). */
const plainValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }),
    fc.double({ noNaN: true }),
    fc.string({ maxLength: 300 }),
    fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
    fc.array(tie("value"), { maxLength: 20 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("value"), { maxKeys: 20 }),
  ),
})).value;

describe("valueEnd: where a MessagePack value ends", () => {
  it("finds the end msgpackr decodes to, and -1 for every truncation (property)", () => {
    fc.assert(
      fc.property(plainValue, (value) => {
        const bytes = pack(value);
        expect(valueEnd(bytes, 0)).toBe(bytes.length);
        // A value followed by more bytes still ends where it ends.
        const padded = Buffer.concat([bytes, Buffer.from([0xc0, 0x01])]);
        expect(valueEnd(padded, 0)).toBe(bytes.length);
        for (let cut = 0; cut < bytes.length; cut += Math.max(1, Math.floor(bytes.length / 16))) {
          expect(valueEnd(bytes.subarray(0, cut), 0)).toBe(-1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("valueEndWithin, over any window of the bytes, answers valueEnd's end or -1 (property)", () => {
    fc.assert(
      fc.property(fc.array(plainValue, { minLength: 1, maxLength: 4 }), fc.nat(), fc.nat(), (values, cutAt, shift) => {
        const bytes = Buffer.concat(values.map((v) => pack(v)));
        const base = shift % bytes.length;
        const window = bytes.subarray(base, base + (cutAt % (bytes.length - base + 1)));
        for (let at = base; at < bytes.length; at += 1 + Math.floor((bytes.length - base) / 8)) {
          const within = valueEndWithin(window, base, at);
          if (within !== -1) expect(within).toBe(valueEnd(bytes, at));
        }
        expect(valueEndWithin(bytes, 0, 0)).toBe(valueEnd(bytes, 0));
      }),
      { numRuns: 300 },
    );
  });

  it("handles every width of strings, binaries, arrays and maps", () => {
    const values = [
      "x".repeat(31),
      "x".repeat(32),
      "x".repeat(255),
      "x".repeat(256),
      "x".repeat(70_000),
      Buffer.alloc(255),
      Buffer.alloc(256),
      Buffer.alloc(70_000),
      Array.from({ length: 15 }, (_, i) => i),
      Array.from({ length: 16 }, (_, i) => i),
      Array.from({ length: 70_000 }, () => 1),
      Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, i])),
      Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, i])),
      -1,
      -33,
      -129,
      -32769,
      -(2 ** 31) - 1,
      2 ** 32,
      2 ** 53 - 1,
      0.5,
      2 ** 70,
    ];
    for (const value of values) {
      for (const bytes of [pack(value), smallest.pack(value)]) expect(valueEnd(bytes, 0)).toBe(bytes.length);
    }
    const wide = smallest.pack(Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, i])));
    expect(wide[0]).toBe(0xdf); // map32
    expect(valueEnd(wide, 0)).toBe(wide.length);
  });

  it("refuses the unused byte 0xc1 and extension values, and counts that cannot fit", () => {
    expect(valueEnd(Uint8Array.of(0xc1), 0)).toBe(-1);
    expect(valueEnd(pack(new Date(0)), 0)).toBe(-1); // timestamp extension
    expect(valueEnd(new Packr().pack([{ a: 1 }, { a: 2 }]), 0)).toBe(-1); // msgpackr records
    expect(valueEnd(Uint8Array.of(0xd4, 0x01, 0x00), 0)).toBe(-1); // fixext1
    expect(valueEnd(Uint8Array.of(0xc7, 0x01, 0x05, 0x00), 0)).toBe(-1); // ext8
    // An array32 that claims 4 billion items in 5 bytes: refused at once, not walked.
    expect(valueEnd(Uint8Array.of(0xdd, 0xff, 0xff, 0xff, 0xff, 0x01), 0)).toBe(-1);
    // Nesting far deeper than any stack: counted, not recursed.
    const deep = new Uint8Array(1_000_001).fill(0x91);
    deep[deep.length - 1] = 0x01;
    expect(valueEnd(deep, 0)).toBe(deep.length);
  });

  it("reads map and array headers of every width", () => {
    expect(mapHeader(smallest.pack({ a: 1 }), 0)).toEqual({ count: 1, body: 1 });
    expect(mapHeader(pack({ a: 1 }), 0)).toEqual({ count: 1, body: 3 });
    expect(mapHeader(Uint8Array.of(0xde, 0x01, 0x00), 0)).toEqual({ count: 256, body: 3 });
    expect(mapHeader(Uint8Array.of(0xdf, 0x00, 0x01, 0x00, 0x00), 0)).toEqual({ count: 65_536, body: 5 });
    expect(mapHeader(pack([1]), 0)).toBeNull();
    expect(arrayHeader(pack([1, 2]), 0)).toEqual({ count: 2, body: 1 });
    expect(arrayHeader(Uint8Array.of(0xdc, 0x01), 0)).toBeNull(); // truncated header
    expect(arrayHeader(Uint8Array.of(0xdd, 0x80, 0x00, 0x00, 0x01), 0)).toEqual({ count: 2 ** 31 + 1, body: 5 });
  });
});

describe("splitPools and openSnapshotBytes", () => {
  it("gives the same snapshot as decoding the whole file, with pools one at a time", () => {
    const bytes = pack(sampleFile(40));
    const split = splitPools(arraySource(bytes));
    expect(split).not.toBeNull();
    expect(split!.poolCount).toBe(40);
    expect((decodeSnapshotBytes(split!.header) as { pools: unknown }).pools).toEqual([]);
    expect(streamed(bytes)).toEqual(parseSnapshotBytes(bytes, CHAIN));
  });

  it("gives the top level in shared memory: posted to the helper's thread, it is not copied", async () => {
    const split = splitPools(arraySource(pack(sampleFile(3))))!;
    expect(split.header.buffer).toBeInstanceOf(SharedArrayBuffer);
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<Uint8Array>((resolve) => port2.once("message", resolve));
    port1.postMessage(split.header);
    const header = await received;
    port1.close();
    split.header[0] ^= 0xff; // a write on one side is seen on the other: the same memory
    expect(header[0]).toBe(split.header[0]);
  });

  it("finds pools wherever the key lies among the top-level keys", () => {
    const { pools, ...rest } = sampleFile(3);
    for (const file of [
      { pools, ...rest },
      { ...rest, pools },
      { chainId: rest.chainId, pools, ...rest },
    ]) {
      const bytes = pack(file);
      expect(splitPools(arraySource(bytes))).not.toBeNull();
      expect(streamed(bytes)).toEqual(parseSnapshotBytes(bytes, CHAIN));
    }
  });

  it("decodes whole what it cannot split, with the same result", () => {
    const file = sampleFile(4);
    const records = new Packr().pack(file); // msgpackr records: later pools refer to structures defined earlier
    const trailing = Buffer.concat([pack(file), Buffer.from([0x01])]);
    // `pools` twice: msgpackr keeps the last one.
    const { pools, ...rest } = file;
    const head = smallest.pack(rest);
    const keys = Object.keys(rest).length;
    expect(head[0]).toBe(0x80 + keys);
    const twice = Buffer.concat([Buffer.from([0x80 + keys + 2]), head.subarray(1), pack("pools"), pack([]), pack("pools"), pack(pools)]);
    for (const bytes of [records, twice]) {
      expect(splitPools(arraySource(bytes))).toBeNull();
      expect(streamed(bytes)).toEqual(parseSnapshotBytes(bytes, CHAIN));
    }
    expect(splitPools(arraySource(trailing))).toBeNull();
    expect(() => streamed(trailing)).toThrow(/unexpected bytes after the MessagePack value/);
    expect(splitPools(arraySource(pack([1, 2])))).toBeNull();
    expect(splitPools(arraySource(pack({ ...file, pools: "none" })))).toBeNull();
  });

  it("records where each pool ends; a pool count the bytes cannot hold does not frame (and allocates nothing for it)", () => {
    const file = sampleFile(5);
    const bytes = pack(file);
    const split = splitPools(arraySource(bytes))!;
    expect(split.poolEnds).toHaveLength(5);
    let at = split.poolsAt;
    for (let i = 0; i < 5; i++) {
      expect(split.poolEnds[i]).toBe(valueEnd(bytes, at));
      at = split.poolEnds[i]!;
    }
    // {"pools": array32 of 2^32-1 pools} followed by a few bytes.
    const hostile = Buffer.concat([Buffer.from([0x81]), pack("pools"), Buffer.from([0xdd, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02])]);
    expect(splitPools(arraySource(hostile))).toBeNull();
    expect(() => streamed(hostile)).toThrow(SnapshotError);
  });

  it("names the pool that does not decode or validate, as the whole decode does", () => {
    const file = sampleFile(6);
    const bad = { ...file, pools: file.pools.map((p, i) => (i === 4 ? { ...p, protocolId: "nope" } : p)) };
    const bytes = pack(bad);
    expect(() => streamed(bytes)).toThrow("pools[4].protocolId: not in protocols");
    expect(() => parseSnapshotBytes(bytes, CHAIN)).toThrow("pools[4].protocolId: not in protocols");
    const duplicate = pack({ ...file, pools: [...file.pools, file.pools[2]] });
    expect(() => streamed(duplicate)).toThrow("pools[6].address: duplicate of pools[2]");
  });
});

describe("a snapshot file read through a window (FileSource, openSnapshotFile)", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  /** A path for a file of the test's own (in a directory removed after the tests), with `bytes` written there if given. */
  const tempFile = (name: string, bytes?: Uint8Array): string => {
    const dir = mkdtempSync(path.join(tmpdir(), "lgw-window-"));
    dirs.push(dir);
    const file = path.join(dir, name);
    if (bytes !== undefined) writeFileSync(file, bytes);
    return file;
  };
  const sha256Of = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

  it("gives the same snapshot as the bytes in memory, whatever the window's size (refills, and growth for a larger value)", () => {
    const bytes = pack(sampleFile(30));
    const file = tempFile(`chain-${CHAIN}.msgpack`, bytes);
    const expected = parseSnapshotBytes(bytes, CHAIN);
    for (const windowBytes of [16, 100, 1000, 1 << 20]) {
      const fd = openSync(file, "r");
      try {
        const source = new FileSource(fd, bytes.length, "chain.msgpack", windowBytes);
        const { snapshot, pools } = openSnapshotSource(source, CHAIN);
        const list = [];
        for (let i = 0; i < pools.count; i++) list.push(pools.next());
        expect({ ...snapshot, pools: list }).toEqual(expected);
      } finally {
        closeSync(fd);
      }
    }
    const opened = openSnapshotFile(file);
    try {
      expect(opened.hash()).toBe(sha256Of(bytes));
      expect(opened.chainId).toBe(CHAIN);
      expect(opened.changedSinceOpen()).toBe(false);
      writeFileSync(file, Buffer.concat([bytes, Buffer.from([0])])); // written in place meanwhile
      expect(opened.changedSinceOpen()).toBe(true);
    } finally {
      opened.close();
    }
  });

  it("hashed later (a build that frames first): the same SHA-256, or `io` when the file's length changed since it was opened", () => {
    const bytes = pack(sampleFile(5));
    const file = tempFile(`chain-${CHAIN}.msgpack`, bytes);
    const sha256 = sha256Of(bytes);
    const later = openSnapshotFile(file, 1 << 20, "later");
    try {
      expect(later.source.length).toBe(bytes.length);
      expect(later.hash()).toBe(sha256);
      expect(later.hash()).toBe(sha256); // hashed once
    } finally {
      later.close();
    }
    for (const written of [Buffer.concat([bytes, Buffer.from([0])]), bytes.subarray(0, bytes.length - 1)]) {
      writeFileSync(file, bytes);
      const opened = openSnapshotFile(file, 1 << 20, "later");
      try {
        writeFileSync(file, written); // written in place after it was opened, before it was hashed
        expect(() => opened.hash()).toThrow(
          expect.objectContaining({ reason: "io", message: expect.stringMatching(/the file was written while it was read/) }),
        );
      } finally {
        opened.close();
      }
    }
    // Grown past the limit after it was opened: `too-large`, as when it is hashed as it opens.
    writeFileSync(file, bytes);
    const grown = openSnapshotFile(file, bytes.length + 10, "later");
    try {
      writeFileSync(file, Buffer.concat([bytes, Buffer.alloc(20)]));
      expect(() => grown.hash()).toThrow(expect.objectContaining({ reason: "too-large", file }));
    } finally {
      grown.close();
    }
  });

  it("hashes along any reads, the window's size and the order of reads whatever they are: the file's SHA-256 (property)", () => {
    const bytes = pack(sampleFile(12));
    const file = tempFile(`chain-${CHAIN}.msgpack`, bytes);
    const sha256 = sha256Of(bytes);
    const read = fc.record({ at: fc.nat(bytes.length - 1), size: fc.integer({ min: 1, max: 300 }) });
    fc.assert(
      fc.property(
        fc.integer({ min: 16, max: 2048 }),
        fc.array(read, { maxLength: 40 }),
        fc.boolean(),
        fc.nat(60),
        (windowBytes, reads, early, dropAt) => {
          const fd = openSync(file, "r");
          try {
            const source = new FileSource(fd, bytes.length, "chain.msgpack", windowBytes);
            if (early) source.view(0, Math.min(bytes.length, 10)); // a window read before hashing starts
            // Made elsewhere from the `dropAt`-th read on (another thread took it): the hash is dropped then.
            let asked = 0;
            source.hashAlong(createHash("sha256"), () => ++asked > dropAt);
            for (const { at, size } of reads) {
              const to = Math.min(bytes.length, at + size);
              expect(Buffer.from(source.view(at, to))).toEqual(bytes.subarray(at, to));
            }
            const along = source.stopHashing();
            expect(along === null).toBe(asked > dropAt);
            if (along === null) return;
            const { hash, hashed } = along;
            expect(hashed).toBeLessThanOrEqual(bytes.length);
            expect(hash.update(bytes.subarray(hashed)).digest("hex")).toBe(sha256);
          } finally {
            closeSync(fd);
          }
        },
      ),
      { numRuns: 300 },
    );
    // The framing pass of a file opened to be hashed later reads every byte: hashed along, nothing read again.
    const opened = openSnapshotFile(file, 1 << 20, "later");
    try {
      expect(splitPools(opened.source)).not.toBeNull();
      const along = opened.source.stopHashing()!;
      expect(along.hashed).toBe(bytes.length);
      expect(along.hash.digest("hex")).toBe(sha256);
    } finally {
      opened.close();
    }
  });

  it("hashed elsewhere (the helper's hashOpenFile) while it is framed, from any read on: the same SHA-256 and the same refusals (property)", () => {
    const bytes = pack(sampleFile(12));
    const dir = mkdtempSync(path.join(tmpdir(), "lgw-elsewhere-"));
    const file = path.join(dir, `chain-${CHAIN}.msgpack`);
    writeFileSync(file, bytes);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    fc.assert(
      fc.property(fc.nat(40), (after) => {
        let reads = 0;
        // Hashed elsewhere from the `after`-th read of the framing pass on: the reads here stop hashing then.
        const opened = openSnapshotFile(file, 1 << 20, "later", () => ++reads > after);
        try {
          expect(opened.hashLater).toBe(true);
          const job = { fd: opened.fd, path: file, length: opened.source.length, maxBytes: 1 << 20 };
          expect(hashOpenFile(job)).toEqual({ sha256 });
          expect(splitPools(opened.source)).not.toBeNull();
          const along = opened.source.stopHashing();
          expect(along === null).toBe(reads > after);
          // A file whose hash was left to another thread still hashes here when asked (from its first byte).
          expect(opened.hash()).toBe(sha256);
        } finally {
          opened.close();
        }
      }),
      { numRuns: 60 },
    );
    // Written in place after it was opened, or grown past the limit: the refusals of hash(), as values.
    for (const [written, maxBytes] of [
      [Buffer.concat([bytes, Buffer.from([0])]), 1 << 20],
      [bytes.subarray(0, bytes.length - 1), 1 << 20],
      [Buffer.concat([bytes, Buffer.alloc(20)]), bytes.length + 10],
    ] as const) {
      writeFileSync(file, bytes);
      const opened = openSnapshotFile(file, maxBytes, "later");
      try {
        writeFileSync(file, written);
        const job = { fd: opened.fd, path: file, length: bytes.length, maxBytes };
        let thrown: SnapshotError | null = null;
        try {
          opened.hash();
        } catch (error) {
          thrown = error as SnapshotError;
        }
        expect(thrown).toBeInstanceOf(SnapshotError);
        expect(hashOpenFile(job)).toEqual({ refused: { reason: thrown!.reason, message: thrown!.message } });
      } finally {
        opened.close();
      }
    }
    // Asked to stop: refused at once, without reading the file.
    writeFileSync(file, bytes);
    const stopped = openSnapshotFile(file, 1 << 20, "later");
    try {
      const job = { fd: stopped.fd, path: file, length: bytes.length, maxBytes: 1 << 20 };
      expect(hashOpenFile(job, () => true)).toEqual({ refused: { reason: "io", message: expect.stringMatching(/hashing stopped/) } });
    } finally {
      stopped.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("random byte changes of a file opened to be hashed later, framed or not: hash() is the file's SHA-256 (property)", () => {
    const valid = pack(sampleFile(6));
    const file = tempFile(`chain-${CHAIN}.msgpack`);
    fc.assert(
      fc.property(byteEdits(valid.length), (edits) => {
        const bytes = applyByteEdits(valid, edits);
        writeFileSync(file, bytes);
        const opened = openSnapshotFile(file, 1 << 20, "later");
        try {
          if (bytes.length > 0) splitPools(opened.source);
          expect(opened.hash()).toBe(sha256Of(bytes));
        } finally {
          opened.close();
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a file that ends before the window's read is an I/O error naming it, not a wrong value", () => {
    const bytes = pack(sampleFile(3));
    const file = tempFile("chain.msgpack", bytes.subarray(0, 50));
    const fd = openSync(file, "r");
    try {
      const source = new FileSource(fd, bytes.length, "chain-8453.msgpack", 16);
      expect(() => source.view(40, 80)).toThrow(/chain-8453\.msgpack: the file ended early \(50 of \d+ bytes\)/);
    } finally {
      closeSync(fd);
    }
  });
});

describe("hostile bytes: reading pools one at a time accepts exactly what decoding the whole file accepts", () => {
  it("random byte changes, cuts and insertions of a valid file (property)", () => {
    const valid = pack(sampleFile(6));
    const outcome = (fn: () => unknown) => {
      try {
        return { ok: fn() };
      } catch (error) {
        if (error instanceof Error && error.name === "SnapshotError") return { rejected: true };
        throw error; // anything else escaping is a bug
      }
    };
    fc.assert(
      fc.property(byteEdits(valid.length), (edits) => {
        const bytes = applyByteEdits(valid, edits);
        expect(outcome(() => streamed(bytes))).toEqual(outcome(() => parseSnapshotBytes(bytes, CHAIN)));
      }),
      { numRuns: 1500 },
    );
  });
});
