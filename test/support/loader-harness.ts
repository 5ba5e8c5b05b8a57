/**
 * A SnapshotLoader on a temp directory with the real build worker (dist/workers/snapshot-worker.js), driven scan
 * by scan with a clock the test moves: what the loader tells its listener and its log is recorded. Call
 * `stopHarnesses` after each test.
 */
import { renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pino } from "pino";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import type { SnapshotErrorReason } from "../../src/snapshot/snapshot-error.js";
import { SnapshotLoader } from "../../src/snapshot/snapshot-loader.js";
import type { ChangeSetDraft } from "../../src/tables/change-sets.js";
import type { ChainSnapshotInfo, CompiledChain } from "../../src/tables/compiled-chain.js";
import type { TokenIndexData } from "../../src/tables/token-index.js";
import { packSnapshot, tempDir } from "./fixtures.js";
import { PROJECT_ROOT } from "./gateway-process.js";

const WORKER_FILE = path.join(PROJECT_ROOT, "dist/workers/snapshot-worker.js");
/** The harness clock's start (Unix seconds). */
export const LOADER_NOW_S = 1_760_000_000;
/** The harness's token logo template. */
export const LOADER_LOGO_TEMPLATE = "https://logo/{chainId}/{address}";

export interface Harness {
  readonly dir: string;
  readonly loader: SnapshotLoader;
  readonly built: { version: number; chains: readonly CompiledChain[]; tokenIndex: TokenIndexData; changes: readonly ChangeSetDraft[] }[];
  readonly accepted: ChainSnapshotInfo[];
  readonly rejected: SnapshotErrorReason[];
  readonly failed: number[];
  /** Each build's wait (s) and niceness, as the metrics get them. */
  readonly waited: { seconds: number; niceness: number }[];
  readonly logs: Record<string, unknown>[];
  clock: number;
  /** Atomic push (temporary name, rename). */
  push(file: SnapshotFile): Buffer;
  /** Atomic push of bytes as the chain's file. */
  pushBytes(chainId: number, bytes: Uint8Array): void;
  events(event: string): Record<string, unknown>[];
}

export interface HarnessOptions {
  maxFutureSkewSeconds?: number;
  dir?: string;
  startBuilds?: number;
  splitFromBytes?: number;
  servingLoad?: () => number;
}

const harnesses: Harness[] = [];

/** Stops every harness started (afterEach). */
export async function stopHarnesses(): Promise<void> {
  await Promise.all(harnesses.splice(0).map((h) => h.loader.stop()));
}

export function harness(options: HarnessOptions = {}): Harness {
  const dir = options.dir ?? tempDir("lgw-loader-");
  const logs: Record<string, unknown>[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const pushBytes = (chainId: number, bytes: Uint8Array) => {
    const tmp = path.join(dir, `.chain-${chainId}.tmp`);
    writeFileSync(tmp, bytes);
    renameSync(tmp, path.join(dir, `chain-${chainId}.msgpack`));
  };
  const h: Harness = {
    dir,
    built: [],
    accepted: [],
    rejected: [],
    failed: [],
    waited: [],
    logs,
    clock: LOADER_NOW_S * 1000,
    loader: undefined as unknown as SnapshotLoader,
    push(file) {
      const bytes = packSnapshot(file);
      pushBytes(file.chainId, bytes);
      return bytes;
    },
    pushBytes,
    events: (event) => logs.filter((l) => l.event === event),
  };
  Object.assign(h, {
    loader: new SnapshotLoader(
      {
        snapshotDir: dir,
        rebuildCron: "0 0 1 1 *",
        logoTemplate: LOADER_LOGO_TEMPLATE,
        watchDebounceMs: 50,
        workerFile: WORKER_FILE,
        workerMaxOldGenerationMb: null,
        maxFutureSkewSeconds: options.maxFutureSkewSeconds ?? 300,
        now: () => h.clock,
        startBuilds: options.startBuilds,
        splitFromBytes: options.splitFromBytes,
        servingLoad: options.servingLoad,
      },
      {
        snapshotBuilt: (version, chains, tokenIndex, changes) => void h.built.push({ version, chains, tokenIndex, changes }),
        chainAccepted: (info) => void h.accepted.push(info),
        fileRejected: (reason) => void h.rejected.push(reason),
        buildFailed: () => void h.failed.push(1),
        buildTimed: () => undefined,
        buildWaited: (seconds, niceness) => void h.waited.push({ seconds, niceness }),
      },
      log,
    ),
  });
  harnesses.push(h);
  return h;
}
