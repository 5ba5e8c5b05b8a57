/**
 * The two ends of a chain's two-thread build (src/snapshot/helper-link.ts): the chain thread's end
 * (helper-offer.ts) and the helper thread's end (helper-answer.ts) driven against each other in one thread,
 * each way the claim can go; then the worker's two tasks on a real file through the same link (in one
 * thread the chain's task always gets to its offered pools first; real threads: test/pipeline/snapshot-loader.test.ts).
 */
import { MessageChannel } from "node:worker_threads";
import { createHash } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NATIVE_ADDRESS } from "../../../src/chains/chains.js";
import type { ChainTask, ChainTaskResult, EarlyTokens, HelperJob } from "../../../src/snapshot/build-tasks.js";
import { admissionBounds } from "../../../src/snapshot/chain-admission.js";
import { buildChainFile } from "../../../src/snapshot/chain-file-task.js";
import { ChainCompiler, chainPoolTargets, compileChain } from "../../../src/snapshot/compile-chain.js";
import { joinPoolRange, ownPoolCount, type PoolRangeResult } from "../../../src/snapshot/compile-pool-range.js";
import { answerOffer } from "../../../src/snapshot/helper-answer.js";
import {
  askToStop,
  claimOffer,
  HELPER_RANGE_KEPT,
  HELPER_RANGE_OPEN,
  HELPER_RANGE_TAKEN,
  openHelperLink,
} from "../../../src/snapshot/helper-link.js";
import { HelperOffer } from "../../../src/snapshot/helper-offer.js";
import { DEFAULT_TOKEN_LOGO_TEMPLATE } from "../../../src/snapshot/normalize-token.js";
import { buildPoolRange } from "../../../src/snapshot/pool-range-task.js";
import { poolRange, splitPools } from "../../../src/snapshot/pool-stream.js";
import { openSnapshotBytes, openSnapshotFile, openSplitSource } from "../../../src/snapshot/read-snapshot-file.js";
import { ThreadNiceness } from "../../../src/snapshot/thread-niceness.js";
import { comparable } from "../../support/byte-edits.js";
import {
  addr,
  chainFile,
  nativeToken,
  packSnapshot,
  poolToken,
  protocol,
  tempDir,
  token,
  v2Pool,
  v3Pool,
  writeChainFile,
} from "../../support/fixtures.js";

/** Until `done` holds, letting the event loop deliver messages meanwhile. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}

describe("the helper handshake, one end against the other", () => {
  it("a helper that starts first takes the job, builds it and answers; the chain's end takes its result", async () => {
    const { chainEnd, helperEnd } = openHelperLink();
    const offer = new HelperOffer<number, string>(chainEnd);
    const jobs: number[] = [];
    const answered = answerOffer<number, string>(helperEnd, (job) => (jobs.push(job), `pools from ${job}`));
    offer.offer(21);
    await until(() => Atomics.load(chainEnd.claim, 0) === HELPER_RANGE_TAKEN);
    expect(await offer.take()).toBe("pools from 21");
    offer.close();
    await answered;
    expect(jobs).toEqual([21]);
  });

  it("a chain thread that gets there first keeps the job: the helper, starting late, builds nothing", async () => {
    const { chainEnd, helperEnd } = openHelperLink();
    const offer = new HelperOffer<number, string>(chainEnd);
    offer.offer(21);
    expect(await offer.take()).toBeNull();
    expect(Atomics.load(chainEnd.claim, 0)).toBe(HELPER_RANGE_KEPT);
    const built: number[] = [];
    await answerOffer<number, string>(helperEnd, (job) => (built.push(job), "never"));
    offer.close();
    expect(built).toEqual([]);
  });

  it("nothing offered: closing tells the helper so, and it claims nothing", async () => {
    const { chainEnd, helperEnd } = openHelperLink();
    const answered = answerOffer<number, string>(helperEnd, () => "never");
    new HelperOffer<number, string>(chainEnd).close();
    await answered;
    expect(Atomics.load(chainEnd.claim, 0)).toBe(HELPER_RANGE_OPEN);
  });

  it("a helper whose build throws answers a failure, which the chain's end throws", async () => {
    const { chainEnd, helperEnd } = openHelperLink();
    const offer = new HelperOffer<number, string>(chainEnd);
    const answered = answerOffer<number, string>(helperEnd, () => {
      throw new Error("out of memory");
    });
    offer.offer(1);
    await until(() => Atomics.load(chainEnd.claim, 0) === HELPER_RANGE_TAKEN);
    await expect(offer.take()).rejects.toThrow("the helper build thread failed: out of memory");
    await answered;
  });

  it("a helper asked to stop sees it while it builds, and stop() waits for its answer", async () => {
    const { chainEnd, helperEnd } = openHelperLink();
    const offer = new HelperOffer<number, string>(chainEnd);
    let sawStop: boolean | null = null;
    const answered = answerOffer<number, string>(helperEnd, (_job, stopAsked) => ((sawStop = stopAsked()), "part"));
    offer.offer(1);
    askToStop(chainEnd.claim); // as the chain's stop() does first; here before the helper ran
    await until(() => Atomics.load(chainEnd.claim, 0) === HELPER_RANGE_TAKEN);
    await offer.stop();
    expect(sawStop).toBe(true);
    offer.close();
    await answered;
  });

  it("a helper that gets the hash asked for first makes it; the chain's end takes it, then offers the job", async () => {
    const { chainEnd, helperEnd } = openHelperLink();
    const offer = new HelperOffer<number, string, string, string>(chainEnd);
    const hashed: string[] = [];
    const answered = answerOffer<number, string, string, string>(
      helperEnd,
      (job) => `pools from ${job}`,
      (file) => (hashed.push(file), `hash of ${file}`),
    );
    offer.askHash("chain-1.msgpack");
    expect(() => offer.offer(1)).toThrow("a job offered before the hash asked for was taken");
    await until(() => offer.helperHashes());
    expect(Atomics.load(chainEnd.claim, 2)).toBe(HELPER_RANGE_TAKEN);
    expect(await offer.hashed()).toBe("hash of chain-1.msgpack");
    offer.offer(21);
    await until(() => Atomics.load(chainEnd.claim, 0) === HELPER_RANGE_TAKEN);
    expect(await offer.take()).toBe("pools from 21");
    offer.close();
    await answered;
    expect(hashed).toEqual(["chain-1.msgpack"]);
  });

  it("a chain thread that needs the hash before the helper starts makes it itself: the helper, starting late, hashes nothing", async () => {
    const { chainEnd, helperEnd } = openHelperLink();
    const offer = new HelperOffer<number, string, string, string>(chainEnd);
    offer.askHash("chain-1.msgpack");
    expect(await offer.hashed()).toBeNull();
    expect(offer.helperHashes()).toBe(false);
    expect(Atomics.load(chainEnd.claim, 2)).toBe(HELPER_RANGE_KEPT);
    offer.offer(21);
    const hashed: string[] = [];
    const answered = answerOffer<number, string, string, string>(
      helperEnd,
      (job) => `pools from ${job}`,
      (file) => (hashed.push(file), "never"),
    );
    await until(() => Atomics.load(chainEnd.claim, 0) === HELPER_RANGE_TAKEN);
    expect(await offer.take()).toBe("pools from 21");
    offer.close();
    await answered;
    expect(hashed).toEqual([]);
  });

  it("a helper whose hash throws answers a failure, which the chain's end throws; settleHash waits for a hash the helper makes, asking it to stop", async () => {
    const failing = openHelperLink();
    const offer = new HelperOffer<number, string, string, string>(failing.chainEnd);
    const answered = answerOffer<number, string, string, string>(
      failing.helperEnd,
      () => "never",
      () => {
        throw new Error("EBADF");
      },
    );
    offer.askHash("chain-1.msgpack");
    await until(() => offer.helperHashes());
    await expect(offer.hashed()).rejects.toThrow("the helper build thread failed: EBADF");
    offer.close();
    await answered;

    const { chainEnd, helperEnd } = openHelperLink();
    const settling = new HelperOffer<number, string, string, string>(chainEnd);
    let sawStop: boolean | null = null;
    const answering = answerOffer<number, string, string, string>(
      helperEnd,
      () => "never",
      (_file, stopAsked) => ((sawStop = stopAsked()), "hash"),
    );
    settling.askHash("chain-1.msgpack");
    askToStop(chainEnd.claim); // as settleHash does first; here before the helper ran
    await until(() => settling.helperHashes());
    await settling.settleHash();
    expect(sawStop).toBe(true);
    settling.close();
    await answering;
  });

  it("a helper thread that ends after taking the job, without an answer, fails the chain's end", async () => {
    const { chainEnd, helperEnd } = openHelperLink();
    const offer = new HelperOffer<number, string>(chainEnd);
    offer.offer(1);
    expect(claimOffer(helperEnd.claim, HELPER_RANGE_TAKEN)).toBe(true);
    helperEnd.port.close();
    await expect(offer.take()).rejects.toThrow("its thread stopped before it answered");
  });
});

describe("the worker's chain and helper tasks on a real file", () => {
  const CHAIN = 8453;
  const NOW_S = 1_760_000_000;
  const file = chainFile(CHAIN, {
    generatedAt: NOW_S,
    protocols: [protocol("p")],
    tokens: [
      nativeToken(CHAIN),
      token(CHAIN, { address: addr("1001"), symbol: "AAA" }),
      token(CHAIN, { address: addr("1002"), symbol: "BBB" }),
    ],
    pools: Array.from({ length: 60 }, (_, i) =>
      (i % 2 ? v2Pool : v3Pool)({
        address: addr((0x5000 + i).toString(16)),
        protocolId: "p",
        tokens: [poolToken(NATIVE_ADDRESS, 1 + i, 2), poolToken(addr(i % 3 ? "1001" : "1002"), 3, 4 + i)],
      }),
    ),
  });
  const bytes = packSnapshot(file);
  const plain = (value: unknown) => comparable(value, ["buildMs", "fileMtimeMs"]);
  /** What the chain's compile is told of the file (its SHA-256 left out: the task's own is compared apart). */
  const source = {
    file: "chain-8453.msgpack",
    fileBytes: bytes.length,
    sha256: "",
    fileMtimeMs: 0,
    logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
  };
  const oneThread = () => {
    const { snapshot, pools } = openSnapshotBytes(bytes, CHAIN);
    return compileChain(snapshot, source, pools);
  };
  const quiet = () => new ThreadNiceness(() => undefined);
  const nice = () => new Int32Array(new SharedArrayBuffer(4));

  it("the helper's task builds the offered pools from the open file; joined, they make the one-thread chain", async () => {
    const opened = openSnapshotFile(path.join(writeDir(), "chain-8453.msgpack"));
    try {
      const layout = splitPools(opened.source)!;
      const own = ownPoolCount(layout);
      const targets = chainPoolTargets(layout.poolCount);
      const { chainEnd, helperEnd } = openHelperLink();
      const offer = new HelperOffer<HelperJob, PoolRangeResult>(chainEnd);
      const helper = buildPoolRange({ kind: "pool-range", nice: nice(), ...helperEnd }, quiet());
      offer.offer({
        chainId: CHAIN,
        logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
        header: layout.header,
        range: poolRange(layout, own, layout.poolCount),
        targets,
        fd: opened.fd,
        fileBytes: opened.source.length,
        file: "chain-8453.msgpack",
      });
      await until(() => Atomics.load(chainEnd.claim, 0) === HELPER_RANGE_TAKEN);
      const { snapshot, pools, split } = openSplitSource(opened.source, layout, CHAIN, DEFAULT_TOKEN_LOGO_TEMPLATE);
      const compiler = new ChainCompiler(snapshot, source, pools.count, own, targets);
      for (let i = 0; i < own; i++) compiler.write(pools.next());
      const part = (await offer.take())!;
      expect([part.from, part.to]).toEqual([own, layout.poolCount]);
      joinPoolRange(compiler, split!.checker, part);
      offer.close();
      await helper;
      expect(plain(compiler.finish())).toEqual(plain(oneThread()));
    } finally {
      opened.close();
    }
  });

  it("the chain's task with a helper link keeps its pools when it gets there first, posts its tokens early, and builds the one-thread chain", async () => {
    const dir = writeDir();
    const { chainEnd, helperEnd } = openHelperLink();
    const early = new MessageChannel();
    const posted = new Promise<EarlyTokens>((resolve) => early.port2.once("message", resolve));
    const task: ChainTask = {
      kind: "chain",
      nice: nice(),
      path: path.join(dir, "chain-8453.msgpack"),
      logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
      knownSha256: [],
      maxBytes: bytes.length,
      bounds: admissionBounds(NOW_S * 1000, 300, null, false),
      previous: null,
      helper: chainEnd,
      early: early.port1,
    };
    const result: ChainTaskResult = await buildChainFile(task, quiet());
    await buildPoolRange({ kind: "pool-range", nice: nice(), ...helperEnd }, quiet());
    if (result.status !== "accepted") throw new Error(`not accepted: ${JSON.stringify(result)}`);
    expect(result.helperPools).toBe(0);
    expect(Atomics.load(chainEnd.claim, 0)).toBe(HELPER_RANGE_KEPT);
    const tokens = await posted;
    early.port2.close();
    expect(plain({ tokens: tokens.tokens, run: tokens.run })).toEqual(plain({ tokens: result.chain.tokens, run: result.chain.tokenRun }));
    expect(tokens.sha256).toBe(result.chain.info.sha256);
    expect(plain({ ...result.chain, info: { ...result.chain.info, sha256: "" } })).toEqual(plain(oneThread()));
  });

  it("a known file with a helper link: hashed as it is framed, answered `known` before any pool is offered", async () => {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    for (const helperFirst of [false, true]) {
      const dir = writeDir();
      const { chainEnd, helperEnd } = openHelperLink();
      const task: ChainTask = {
        kind: "chain",
        nice: nice(),
        path: path.join(dir, "chain-8453.msgpack"),
        logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
        knownSha256: ["0".repeat(64), sha256],
        maxBytes: bytes.length,
        bounds: admissionBounds(NOW_S * 1000, 300, null, false),
        previous: null,
        helper: chainEnd,
        early: null,
      };
      const helper = helperFirst ? buildPoolRange({ kind: "pool-range", nice: nice(), ...helperEnd }, quiet()) : null;
      const result = await buildChainFile(task, quiet());
      await (helper ?? buildPoolRange({ kind: "pool-range", nice: nice(), ...helperEnd }, quiet()));
      expect(result).toMatchObject({ status: "known", sha256 });
      expect(Object.keys(result.stages ?? {})).toEqual(["frame", "hash"]);
      expect(Atomics.load(chainEnd.claim, 0)).toBe(HELPER_RANGE_OPEN); // never offered
    }
  });

  function writeDir(): string {
    const dir = tempDir("lgw-helper-");
    writeChainFile(dir, file, "chain-8453.msgpack");
    return dir;
  }
});
