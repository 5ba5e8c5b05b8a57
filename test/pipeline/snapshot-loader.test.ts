/**
 * SnapshotLoader on a temp directory with the real build worker
 * (dist/workers/snapshot-worker.js), driven scan by scan: which files are
 * built, accepted, rejected and retried (issue 10, items 2-5), with a clock
 * the test moves. What the loader tells its listener and its log is what is
 * checked; the HTTP view of the same behaviour is in test/server/snapshot-pipeline.test.ts.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NATIVE_ADDRESS, type ChainId } from "../../src/chains/chains.js";
import type { CompiledChain } from "../../src/tables/compiled-chain.js";
import type { SnapshotFile, SnapshotPool } from "../../src/api/snapshot-format.js";
import { snapshotVersion } from "../../src/api/snapshot-version.js";
import { writeAllowOlderMarker } from "../../src/snapshot/allow-older-marker.js";
import { compileTokenIndex } from "../../src/snapshot/compile-token-index.js";
import {
  addr,
  chainFile,
  nativeToken,
  oneTokenChain,
  packSnapshot,
  poolStats,
  poolToken,
  protocol,
  token,
  v2Pool,
  v3Pool,
  wrappedNativeToken,
} from "../support/fixtures.js";
import { comparable } from "../support/byte-edits.js";
import { harness, LOADER_NOW_S, stopHarnesses, type Harness } from "../support/loader-harness.js";

afterEach(stopHarnesses);

const NOW_S = LOADER_NOW_S;

const chain = (chainId: ChainId, generatedAt: number, symbol: string): SnapshotFile => oneTokenChain(chainId, generatedAt, symbol);

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("start-up builds (BUILD_START_WORKERS)", () => {
  it("two files at once at start-up: one snapshot with every good chain, a bad file rejected; later pushes build one at a time", async () => {
    const h = harness({ startBuilds: 2 });
    const files = [chain(1, NOW_S, "AAA"), chain(8453, NOW_S, "BBB"), chain(130, NOW_S, "CCC"), chain(999, NOW_S, "DDD")];
    const bytes = files.map((f) => h.push(f));
    writeFileSync(path.join(h.dir, "chain-143.msgpack"), packSnapshot(chain(143, NOW_S, "EEE")).subarray(0, 40));
    await h.loader.scan("start");
    expect(h.built).toHaveLength(1);
    expect(h.built[0]!.chains.map((c) => c.info.chainId).sort((a, b) => a - b)).toEqual([1, 130, 999, 8453]);
    expect(h.built[0]!.version).toBe(snapshotVersion(files.map((f, i) => ({ chainId: f.chainId, sha256: sha(bytes[i]!) }))));
    expect(h.rejected).toEqual(["decode"]);
    // Served now: a re-push of two files builds them one after the other and serves them (one batch each or together).
    h.push(chain(1, NOW_S + 10, "AAA2"));
    h.push(chain(130, NOW_S + 10, "CCC2"));
    await h.loader.scan("change");
    const last = h.built[h.built.length - 1]!;
    expect(last.chains.map((c) => c.info.generatedAt).sort()).toEqual([NOW_S, NOW_S, NOW_S + 10, NOW_S + 10]);
    expect(h.accepted).toHaveLength(6);
  });
});

describe("one file built by two threads (src/snapshot/compile-pool-range.ts)", () => {
  /** Many pools with several tokens each (wrapped native among them), so a build takes long enough for the helper to join it. */
  function large(
    chainId: ChainId,
    generatedAt: number,
    pools: number,
    change: (pools: SnapshotPool[]) => void = () => undefined,
  ): SnapshotFile {
    const tokens = [
      nativeToken(chainId),
      wrappedNativeToken(chainId),
      ...Array.from({ length: 40 }, (_, t) =>
        token(chainId, {
          address: addr((0x2000 + t).toString(16)),
          symbol: `T${t}v${generatedAt % 5}`,
          trackedTotalValuePooledUsd: ((t * 37 + generatedAt) % 11) * 1000,
        }),
      ),
    ];
    const list: SnapshotPool[] = Array.from({ length: pools }, (_, i) =>
      (i % 2 ? v2Pool : v3Pool)({
        address: addr((0x100000 + i).toString(16)),
        protocolId: i % 3 ? "p" : "q",
        tokens: [
          poolToken(tokens[1 + (i % 41)]!.address, 1 + i, 2),
          poolToken(
            tokens[(i * 7) % 42]!.address === tokens[1 + (i % 41)]!.address ? NATIVE_ADDRESS : tokens[(i * 7) % 42]!.address,
            3,
            4 + i,
          ),
        ],
        stats: poolStats(1 + (i % 9)),
      }),
    );
    change(list);
    return chainFile(chainId, { generatedAt, protocols: [protocol("p"), protocol("q")], tokens, pools: list });
  }
  /** A compiled chain or token index as comparable data; what differs between two directories (mtime, build time) left out. */
  const plain = (value: unknown) => comparable(value, ["buildMs", "fileMtimeMs"]);
  const helped = (h: Harness) => h.events("snapshot-accepted").map((e) => e.helperPools as number);

  it("serves what one thread builds, to the byte; the helper builds part of the pools when the serving threads are idle", async () => {
    const two = harness({ startBuilds: 2, splitFromBytes: 0, servingLoad: () => 0 });
    const one = harness({ startBuilds: 1 });
    for (const h of [two, one]) {
      h.push(chain(1, NOW_S, "AAA"));
      await h.loader.scan("start");
    }
    for (let round = 1; round <= 3; round++) {
      const file = large(8453, NOW_S + round, 6000 + round);
      for (const h of [two, one]) {
        h.push(file);
        await h.loader.scan("change");
      }
      const [a, b] = [two, one].map((h) => h.built[h.built.length - 1]!.chains.find((c) => c.info.chainId === 8453)!);
      expect(a!.info.generatedAt).toBe(NOW_S + round);
      expect(plain(a)).toEqual(plain(b));
      // The token index, started on the helper's thread before the chain was done, is the one built after it.
      expect(plain(two.built[two.built.length - 1]!.tokenIndex)).toEqual(plain(one.built[one.built.length - 1]!.tokenIndex));
      // Each reused what the served index saved (chain 1 is the same file): it is the index built afresh.
      const { chains, tokenIndex } = one.built[one.built.length - 1]!;
      const inputs = chains.map((c) => ({ chainId: c.info.chainId, sha256: c.info.sha256, tokens: c.tokens, run: c.tokenRun }));
      expect(plain(tokenIndex)).toEqual(plain(compileTokenIndex(inputs)));
      // Its log line says so (one chain, chain 1, reused) and how long the index task ran on its thread.
      for (const h of [two, one]) {
        const built = h.events("snapshot-built").at(-1)!;
        expect(built.reusedChains).toBe(1);
        expect(built.indexWallMs).toBeGreaterThanOrEqual(0);
      }
    }
    expect(two.events("snapshot-built").some((e) => e.indexStartedEarly === true)).toBe(true);
    expect(one.events("snapshot-built").every((e) => e.indexStartedEarly === false)).toBe(true);
    expect(helped(one).every((n) => n === 0)).toBe(true);
    // The helper's thread, idle when a file is pushed, hashes it while the chain's thread frames it (the same SHA-256:
    // the chains above are equal, info.sha256 included).
    const hashedBy = (h: Harness) =>
      h.events("snapshot-accepted").map((e) => Object.keys((e.stages ?? {}) as object).find((s) => s.endsWith("hash")));
    expect(hashedBy(two).slice(1)).toContain("helper-hash");
    expect(hashedBy(one).every((s) => s === "hash")).toBe(true);
    // The helper's thread is there from the start-up build; it takes its range unless the chain's own pools are all
    // written before it gets the offer (a thread starved for a whole build): not three times in a row.
    expect(
      helped(two)
        .slice(1)
        .some((n) => n > 0),
    ).toBe(true);
  });

  it("rejects with the one-thread message: a repeat across the two halves, a problem in the first half while the helper runs; then builds the next file", async () => {
    const h = harness({ startBuilds: 2, splitFromBytes: 0, servingLoad: () => 0 });
    h.push(chain(1, NOW_S, "AAA"));
    await h.loader.scan("start");
    h.push(large(8453, NOW_S + 1, 6000, (pools) => (pools[5999] = { ...pools[5999]!, address: pools[0]!.address })));
    await h.loader.scan("change");
    h.push(large(8453, NOW_S + 2, 6000, (pools) => (pools[1] = { ...pools[1]!, protocolId: "nowhere" })));
    await h.loader.scan("change");
    expect(h.events("snapshot-rejected").map((e) => [e.reason, e.error])).toEqual([
      ["duplicate", `pools[5999].address: duplicate of pools[0] ("${addr((0x100000).toString(16))}")`],
      ["reference", 'pools[1].protocolId: not in protocols ("nowhere")'],
    ]);
    h.push(large(8453, NOW_S + 3, 6000));
    await h.loader.scan("change");
    expect(h.built[h.built.length - 1]!.chains.find((c) => c.info.chainId === 8453)!.info.generatedAt).toBe(NOW_S + 3);
    expect(h.failed).toEqual([]);
  });

  it("two large files pushed at once (a batch each, or one): the same chains and token index as one thread builds", async () => {
    const two = harness({ startBuilds: 2, splitFromBytes: 0, servingLoad: () => 0 });
    const one = harness({ startBuilds: 1 });
    for (const h of [two, one]) {
      h.push(large(1, NOW_S, 500));
      h.push(large(130, NOW_S, 500));
      await h.loader.scan("start");
      h.push(large(1, NOW_S + 1, 5000));
      h.push(large(130, NOW_S + 1, 4000, (pools) => pools.reverse()));
      await h.loader.scan("change");
    }
    const last = (h: Harness) => h.built[h.built.length - 1]!;
    expect(last(two).version).toBe(last(one).version);
    // Chains in chain order (the loader lists them in the order their first builds finished).
    const byChain = (h: Harness) => [...last(h).chains].sort((a, b) => a.info.chainId - b.info.chainId);
    expect(plain(byChain(two))).toEqual(plain(byChain(one)));
    expect(plain(last(two).tokenIndex)).toEqual(plain(last(one).tokenIndex));
    expect(
      helped(two)
        .slice(2)
        .some((n) => n > 0),
    ).toBe(true);
  });

  it("under load (the serving threads busy) a file builds on one thread", async () => {
    const h = harness({ startBuilds: 2, splitFromBytes: 0, servingLoad: () => 1 });
    h.push(chain(1, NOW_S, "AAA"));
    await h.loader.scan("start");
    h.push(large(8453, NOW_S + 1, 3000));
    await h.loader.scan("change");
    expect(helped(h)).toEqual([0, 0]);
  });
});

describe("content-derived versions", () => {
  it("the version comes from the files' SHA-256: identical files in another directory (another instance) give the same version", async () => {
    const a = harness();
    const one = a.push(chain(1, NOW_S, "AAA"));
    const base = a.push(chain(8453, NOW_S, "BBB"));
    await a.loader.scan("start");
    expect(a.built).toHaveLength(1);
    const expected = snapshotVersion([
      { chainId: 1, sha256: sha(one) },
      { chainId: 8453, sha256: sha(base) },
    ]);
    expect(a.built[0]!.version).toBe(expected);
    expect(a.accepted.map((i) => i.sha256).sort()).toEqual([sha(one), sha(base)].sort());

    const b = harness();
    b.push(chain(8453, NOW_S, "BBB"));
    b.push(chain(1, NOW_S, "AAA"));
    await b.loader.scan("start");
    expect(b.built[0]!.version).toBe(expected);
  });

  it("a correction with the same generatedAt, the same size and the same mtime is served", async () => {
    const h = harness();
    const file = path.join(h.dir, "chain-1.msgpack");
    const first = h.push(chain(1, NOW_S, "AAA"));
    await h.loader.scan("start");
    const { mtime } = statSync(file);
    const corrected = packSnapshot(chain(1, NOW_S, "AAB"));
    expect(corrected.length).toBe(first.length);
    writeFileSync(file, corrected); // in place, same inode
    utimesSync(file, mtime, mtime);
    await h.loader.scan("change");
    expect(h.built).toHaveLength(2);
    expect(h.built[1]!.version).not.toBe(h.built[0]!.version);
    expect(h.built[1]!.chains[0]!.info.sha256).toBe(sha(corrected));
    expect(h.events("snapshot-accepted")).toHaveLength(2);
  });

  it("the same bytes pushed again (new inode, new mtime) are read and hashed but not rebuilt or announced", async () => {
    const h = harness();
    const bytes = h.push(chain(1, NOW_S, "AAA"));
    await h.loader.scan("start");
    h.push(chain(1, NOW_S, "AAA"));
    await h.loader.scan("change");
    expect(h.built).toHaveLength(1);
    expect(h.events("snapshot-accepted")).toHaveLength(1);
    expect(h.events("snapshot-unchanged")).toMatchObject([{ chainId: 1, sha256: sha(bytes) }]);
  });
});

describe("a re-push is served in batches", () => {
  /** A chain file with `pools` pools (its size grows with them). */
  /** A chain file of `pools` pools; another `reserve` changes every pool record. */
  function sized(chainId: ChainId, generatedAt: number, pools: number, reserve = 1): SnapshotFile {
    return chainFile(chainId, {
      generatedAt,
      protocols: [protocol("p")],
      tokens: [nativeToken(chainId), token(chainId, { address: addr("1001"), symbol: "AAA" })],
      pools: Array.from({ length: pools }, (_, i) =>
        v2Pool({
          address: addr((0x10000 + i).toString(16)),
          protocolId: "p",
          tokens: [poolToken(NATIVE_ADDRESS, reserve, 2), poolToken(addr("1001"), 3, 4)],
        }),
      ),
    });
  }
  const shaOf = (chains: readonly CompiledChain[]) => Object.fromEntries(chains.map((c) => [c.info.chainId, c.info.sha256]));

  it("the initial load is one snapshot; a re-push of every record serves what it built before a batch passes a third of the served bytes", async () => {
    const h = harness();
    // chain-1 holds about 70 % of the bytes, the three others about 10 % each (built in name order: 1, 130, 143, 8453).
    const plan: Array<[ChainId, number]> = [
      [1, 140],
      [130, 20],
      [143, 20],
      [8453, 20],
    ];
    const before = Object.fromEntries(plan.map(([id, n]) => [id, sha(h.push(sized(id, NOW_S, n)))]));
    await h.loader.scan("start");
    expect(h.built).toHaveLength(1);
    expect(shaOf(h.built[0]!.chains)).toEqual(before);

    const after = Object.fromEntries(plan.map(([id, n]) => [id, sha(h.push(sized(id, NOW_S + 60, n, 2)))]));
    await h.loader.scan("change");
    // chain-1 alone (the next file would bring the batch past a third), then the three small ones together.
    expect(h.built.map((b) => shaOf(b.chains))).toEqual([before, { ...before, 1: after[1] }, after]);
    expect(new Set(h.built.map((b) => b.version)).size).toBe(3);
    // Then the same files with only their generatedAt changed: incremental builds add a small share of their chains'
    // memory (the unchanged pools' JSON stays where it is), so the push is one batch.
    const again = Object.fromEntries(plan.map(([id, n]) => [id, sha(h.push(sized(id, NOW_S + 120, n, 2)))]));
    await h.loader.scan("change");
    expect(h.built.slice(3).map((b) => shaOf(b.chains))).toEqual([again]);
  });

  it("files changed one by one are each served as before", async () => {
    const h = harness();
    h.push(sized(1, NOW_S, 20));
    h.push(sized(130, NOW_S, 20));
    await h.loader.scan("start");
    const next = sha(h.push(sized(130, NOW_S + 60, 20)));
    await h.loader.scan("change");
    expect(h.built).toHaveLength(2);
    expect(shaOf(h.built[1]!.chains)[130]).toBe(next);
  });
});

describe("generatedAt bounds", () => {
  it("more than the skew ahead is rejected as future-generated-at; a correct push is then accepted", async () => {
    const h = harness({ maxFutureSkewSeconds: 300 });
    h.push(chain(1, NOW_S, "AAA"));
    await h.loader.scan("start");
    h.push(chain(1, 4_925_000_000, "FUT")); // the year 2126
    await h.loader.scan("change");
    expect(h.rejected).toEqual(["future-generated-at"]);
    expect(h.built).toHaveLength(1);
    h.push(chain(1, NOW_S + 60, "NEW"));
    await h.loader.scan("change");
    expect(h.built).toHaveLength(2);
    expect(h.built[1]!.chains[0]!.info.generatedAt).toBe(NOW_S + 60);
  });

  it("within the skew is accepted; a file just beyond it is taken once the clock allows it, unchanged", async () => {
    const h = harness({ maxFutureSkewSeconds: 300 });
    h.push(chain(1, NOW_S + 300, "EDGE"));
    await h.loader.scan("start");
    expect(h.built).toHaveLength(1);
    h.push(chain(1, NOW_S + 400, "SOON"));
    await h.loader.scan("change");
    expect(h.rejected).toEqual(["future-generated-at"]);
    h.clock += 99_000;
    await h.loader.scan("tick");
    expect(h.built).toHaveLength(1);
    h.clock += 1_000;
    await h.loader.scan("tick");
    expect(h.built).toHaveLength(2);
    expect(h.built[1]!.chains[0]!.info.generatedAt).toBe(NOW_S + 400);
  });
});

describe("rolling a chain back on purpose (allow-older marker)", () => {
  it("an older file is out-of-order until the marker is written; it is then accepted and the marker removed", async () => {
    const h = harness();
    h.push(chain(1, NOW_S, "NOW"));
    await h.loader.scan("start");
    h.push(chain(1, NOW_S - 3600, "OLD"));
    await h.loader.scan("change");
    expect(h.rejected).toEqual(["out-of-order"]);
    const marker = writeAllowOlderMarker(h.dir, 1);
    await h.loader.scan("change");
    expect(h.built).toHaveLength(2);
    expect(h.built[1]!.chains[0]!.info.generatedAt).toBe(NOW_S - 3600);
    expect(existsSync(marker)).toBe(false);
    expect(h.events("snapshot-allow-older-used")).toMatchObject([{ chainId: 1, fromGeneratedAt: NOW_S, toGeneratedAt: NOW_S - 3600 }]);
    // good for one file only
    h.push(chain(1, NOW_S - 7200, "OLDER"));
    await h.loader.scan("change");
    expect(h.rejected).toEqual(["out-of-order", "out-of-order"]);
  });

  it("a marker written before the push works the same; it never admits a future file", async () => {
    const h = harness();
    h.push(chain(1, NOW_S, "NOW"));
    await h.loader.scan("start");
    const marker = writeAllowOlderMarker(h.dir, 1);
    h.push(chain(1, NOW_S + 10_000, "FUT"));
    await h.loader.scan("change");
    expect(h.rejected).toEqual(["future-generated-at"]);
    expect(existsSync(marker)).toBe(true);
    h.push(chain(1, NOW_S - 10, "BACK"));
    await h.loader.scan("change");
    expect(h.built.at(-1)!.chains[0]!.info.generatedAt).toBe(NOW_S - 10);
    expect(existsSync(marker)).toBe(false);
  });
  it("a marker the gateway cannot remove (here a directory: EISDIR) is used once, reported, then ignored", async () => {
    const h = harness();
    h.push(chain(1, NOW_S, "NOW"));
    await h.loader.scan("start");
    mkdirSync(path.join(h.dir, "chain-1.allow-older"));
    h.push(chain(1, NOW_S - 60, "BACK"));
    await h.loader.scan("change");
    expect(h.built.at(-1)!.chains[0]!.info.generatedAt).toBe(NOW_S - 60);
    expect(h.events("allow-older-marker-not-removed")).toMatchObject([{ chainId: 1 }]);
    h.push(chain(1, NOW_S - 120, "BACK2"));
    await h.loader.scan("change");
    expect(h.rejected).toEqual(["out-of-order"]);
  });
});

describe("retries", () => {
  it("an I/O failure (a real EIO) is retried on every tick; a content rejection is not", async () => {
    const h = harness();
    // Reading /proc/self/mem from offset 0 fails with EIO; the link's signature never changes.
    symlinkSync("/proc/self/mem", path.join(h.dir, "chain-1.msgpack"));
    writeFileSync(path.join(h.dir, "chain-8453.msgpack"), Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00])); // not MessagePack
    await h.loader.scan("start");
    expect(h.rejected.sort()).toEqual(["decode", "io"]);
    expect(h.events("snapshot-rejected").find((l) => l.chainId === 1)!.error).toBe("chain-1.msgpack: cannot read the file (EIO)");
    await h.loader.scan("tick");
    await h.loader.scan("tick");
    expect(h.rejected.filter((r) => r === "io")).toHaveLength(3);
    expect(h.rejected.filter((r) => r === "decode")).toHaveLength(1);
    // the same chain-1 name now holds a good file: served
    rmSync(path.join(h.dir, "chain-1.msgpack"));
    h.push(chain(1, NOW_S, "AAA"));
    await h.loader.scan("change");
    expect(h.built).toHaveLength(1);
  });

  it("a content rejection is retried when the file changes, and the same bad bytes again stay quiet", async () => {
    const h = harness();
    const file = path.join(h.dir, "chain-1.msgpack");
    writeFileSync(file, Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00]));
    await h.loader.scan("start");
    expect(h.rejected).toEqual(["decode"]);
    writeFileSync(path.join(h.dir, ".tmp"), Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00]));
    renameSync(path.join(h.dir, ".tmp"), file); // new inode, same bytes
    await h.loader.scan("change");
    expect(h.rejected).toEqual(["decode"]);
    h.push(chain(1, NOW_S, "AAA"));
    await h.loader.scan("change");
    expect(h.built).toHaveLength(1);
  });
});

describe("entries that are not regular files", () => {
  it("a directory, a FIFO, a symlink loop and a dangling link are logged and counted once per change, never opened", async () => {
    const h = harness();
    h.push(chain(8453, NOW_S, "BASE"));
    mkdirSync(path.join(h.dir, "chain-1.msgpack"));
    execFileSync("mkfifo", [path.join(h.dir, "chain-130.msgpack")]);
    symlinkSync(path.join(h.dir, "chain-143.msgpack"), path.join(h.dir, "chain-143.msgpack"));
    symlinkSync(path.join(h.dir, "gone"), path.join(h.dir, "chain-999.msgpack"));
    await h.loader.scan("start"); // returns: the FIFO is never opened
    await h.loader.scan("tick");
    await h.loader.scan("change");
    const lines = h.events("snapshot-rejected");
    expect(lines.map((l) => [l.chainId, l.what]).sort()).toEqual([
      [1, "directory"],
      [130, "fifo"],
      [143, "symlink-loop"],
      [999, "dangling-symlink"],
    ]);
    expect(lines.every((l) => l.reason === "not-a-file")).toBe(true);
    expect(h.rejected).toEqual(["not-a-file", "not-a-file", "not-a-file", "not-a-file"]);
    expect(lines.find((l) => l.chainId === 130)!.error).toBe(
      "chain-130.msgpack is a FIFO (named pipe), not a regular file; the chain keeps its last good data",
    );
    // a change (the directory becomes a FIFO) is news again; a good file at the name is served
    rmSync(path.join(h.dir, "chain-1.msgpack"), { recursive: true });
    execFileSync("mkfifo", [path.join(h.dir, "chain-1.msgpack")]);
    await h.loader.scan("change");
    expect(h.rejected).toHaveLength(5);
    rmSync(path.join(h.dir, "chain-1.msgpack"));
    h.push(chain(1, NOW_S, "ONE"));
    await h.loader.scan("change");
    expect(
      h.built
        .at(-1)!
        .chains.map((c) => c.info.chainId)
        .sort(),
    ).toEqual([1, 8453]);
  });

  it("a symbolic link to a regular file is followed", async () => {
    const h = harness();
    const bytes = packSnapshot(chain(1, NOW_S, "LINKED"));
    writeFileSync(path.join(h.dir, "elsewhere.bin"), bytes);
    symlinkSync(path.join(h.dir, "elsewhere.bin"), path.join(h.dir, "chain-1.msgpack"));
    await h.loader.scan("start");
    expect(h.built).toHaveLength(1);
    expect(h.accepted[0]!.sha256).toBe(sha(readFileSync(path.join(h.dir, "elsewhere.bin"))));
  });
});
