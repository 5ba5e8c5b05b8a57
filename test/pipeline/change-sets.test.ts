/**
 * The loader's change sets (live.md §12) with the real build worker on a temp directory: each accepted
 * file's draft follows the chain's previously accepted file; when the snapshot that would serve them
 * cannot be built, they wait and go out, in order, with the next one; files that bring every chain back
 * to what is served make none; a rollback (allow-older) is flagged with the chain's rollback floor; the
 * diff is timed as its own build phase.
 *
 * The token-index failure is real: the worker file used here runs the gateway's worker, except that a
 * token-index task fails while a flag file exists (as a worker that runs out of memory would).
 */
import { createHash } from "node:crypto";
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { NATIVE_ADDRESS, type ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { writeAllowOlderMarker } from "../../src/snapshot/allow-older-marker.js";
import { SnapshotLoader } from "../../src/snapshot/snapshot-loader.js";
import type { ChangeSetDraft } from "../../src/tables/change-sets.js";
import { addr, oneTokenChain, packSnapshot, tempDir } from "../support/fixtures.js";
import { PROJECT_ROOT } from "../support/gateway-process.js";
import { listsOf } from "../support/reference-changes.js";

const REAL_WORKER = path.join(PROJECT_ROOT, "dist/workers/snapshot-worker.js");
const NOW_S = 1_760_000_000;

const chain = (chainId: ChainId, generatedAt: number, symbol: string, pools = 1): SnapshotFile =>
  oneTokenChain(
    chainId,
    generatedAt,
    symbol,
    Array.from({ length: pools }, (_, i) => addr(`abc${i}`)),
  );

const idOf = (file: SnapshotFile) => `${file.generatedAt}.${createHash("sha256").update(packSnapshot(file)).digest("hex").slice(0, 12)}`;

interface Harness {
  readonly dir: string;
  readonly loader: SnapshotLoader;
  readonly published: ChangeSetDraft[][];
  readonly timed: string[];
  failures: number;
  push(file: SnapshotFile): void;
  failTokenIndex(on: boolean): void;
}

const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.loader.stop()));
});

function harness(): Harness {
  const dir = tempDir("lgw-changes-");
  const work = tempDir("lgw-changes-worker-");
  const flag = path.join(work, "fail-token-index");
  const workerFile = path.join(work, "worker.mjs");
  writeFileSync(
    workerFile,
    `import { existsSync } from "node:fs";
import run from ${JSON.stringify(pathToFileURL(REAL_WORKER).href)};
export default function (task) {
  if (task.kind === "token-index" && existsSync(${JSON.stringify(flag)})) throw new Error("token index failed (test flag)");
  return run(task);
}
`,
  );
  const h: Harness = {
    dir,
    published: [],
    timed: [],
    failures: 0,
    loader: undefined as unknown as SnapshotLoader,
    push(file) {
      const tmp = path.join(dir, `.chain-${file.chainId}.tmp`);
      writeFileSync(tmp, packSnapshot(file));
      renameSync(tmp, path.join(dir, `chain-${file.chainId}.msgpack`));
    },
    failTokenIndex(on) {
      if (on) writeFileSync(flag, "1");
      else if (existsSync(flag)) rmSync(flag);
    },
  };
  Object.assign(h, {
    loader: new SnapshotLoader(
      {
        snapshotDir: dir,
        rebuildCron: "0 0 1 1 *",
        logoTemplate: "https://logo/{chainId}/{address}",
        watchDebounceMs: 50,
        workerFile,
        workerMaxOldGenerationMb: null,
        maxFutureSkewSeconds: 300,
        now: () => NOW_S * 1000,
      },
      {
        snapshotBuilt: (_version, _chains, _index, changes) => void h.published.push([...changes]),
        chainAccepted: () => undefined,
        fileRejected: () => undefined,
        buildFailed: () => void h.failures++,
        buildTimed: (phase) => void h.timed.push(phase),
      },
      pino({ level: "silent" }),
    ),
  });
  harnesses.push(h);
  return h;
}

const summary = (drafts: readonly ChangeSetDraft[]) => drafts.map((d) => [d.chainId, d.id, d.previous, d.rollback, d.rollbackFloor]);

describe("the loader's change sets", () => {
  it("follow the previously accepted file; wait when the snapshot build fails; vanish when the data comes back to what is served", async () => {
    const h = harness();
    const a = chain(1, NOW_S - 300, "AAA");
    const other = chain(8453, NOW_S - 300, "OTH");
    h.push(a);
    h.push(other);
    await h.loader.scan("start");
    expect(h.published).toHaveLength(1);
    expect(summary(h.published[0]!).sort()).toEqual(
      [
        [1, idOf(a), null, false, null],
        [8453, idOf(other), null, false, null],
      ].sort(),
    );
    // A first load: every address upserted.
    const first = h.published[0]!.find((d) => d.chainId === 1)!;
    expect(listsOf(first)).toEqual({
      poolsUpserted: [addr("abc0")],
      poolsRemoved: [],
      tokensUpserted: [NATIVE_ADDRESS, addr("1001")],
      tokensRemoved: [],
    });
    expect(h.timed.filter((p) => p === "diff")).toHaveLength(2);

    // The snapshot build fails: the set waits.
    const b = chain(1, NOW_S - 200, "BBB", 2);
    h.failTokenIndex(true);
    h.push(b);
    await h.loader.scan("change");
    expect(h.failures).toBe(1);
    expect(h.published).toHaveLength(1);

    // The next snapshot serves both, in order, each against the file accepted before it.
    const c = chain(1, NOW_S - 100, "CCC", 2);
    h.failTokenIndex(false);
    h.push(c);
    await h.loader.scan("change");
    expect(h.published).toHaveLength(2);
    expect(summary(h.published[1]!)).toEqual([
      [1, idOf(b), idOf(a), false, null],
      [1, idOf(c), idOf(b), false, null],
    ]);
    // The token's symbol and name changed: the token, and every pool that shows it.
    const changed = { poolsUpserted: [addr("abc0"), addr("abc1")], poolsRemoved: [], tokensUpserted: [addr("1001")], tokensRemoved: [] };
    expect(listsOf(h.published[1]![0]!)).toEqual(changed);
    expect(listsOf(h.published[1]![1]!)).toEqual(changed);

    // C → D, a correction with C's generatedAt (not served: the build fails) → C again: the data is what is
    // served, no set at all.
    const d = chain(1, NOW_S - 100, "DDD");
    h.failTokenIndex(true);
    h.push(d);
    await h.loader.scan("change");
    h.push(c);
    await h.loader.scan("change");
    expect(h.published).toHaveLength(2);
    h.failTokenIndex(false);
    const e = chain(1, NOW_S - 40, "EEE", 2);
    h.push(e);
    await h.loader.scan("change");
    expect(summary(h.published[2]!)).toEqual([[1, idOf(e), idOf(c), false, null]]);
  });

  it("a rollback (allow-older) is flagged with the highest generatedAt served before it, which later sets keep", async () => {
    const h = harness();
    const a = chain(1, NOW_S - 300, "AAA");
    const b = chain(1, NOW_S - 100, "BBB");
    h.push(a);
    await h.loader.scan("start");
    h.push(b);
    await h.loader.scan("change");
    const back = chain(1, NOW_S - 250, "OLD");
    writeAllowOlderMarker(h.dir, 1);
    h.push(back);
    await h.loader.scan("change");
    const after = chain(1, NOW_S - 240, "NEW");
    h.push(after);
    await h.loader.scan("change");
    expect(h.published.map(summary)).toEqual([
      [[1, idOf(a), null, false, null]],
      [[1, idOf(b), idOf(a), false, null]],
      [[1, idOf(back), idOf(b), true, NOW_S - 100]],
      [[1, idOf(after), idOf(back), false, NOW_S - 100]],
    ]);
  });
});
