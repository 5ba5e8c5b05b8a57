/**
 * Feeds chain files to the history store as the gateway does (compiled as the build workers compile them,
 * each with its change set against the file served before it in the same process), next to the reference
 * (reference-history.ts). Restarts, batches (two files accepted, the second served) and rollbacks are the
 * caller's to make.
 */
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import type { ChainId } from "../../src/chains/chains.js";
import { HistoryCompactor } from "../../src/history/history-compactor.js";
import { HistoryReads, type HistoryRetention } from "../../src/history/history-reader.js";
import { openHistoryDbs, type HistoryDbs } from "../../src/history/history-store.js";
import { HistoryWriter, type ServedFile, type WriteOutcome } from "../../src/history/history-writer.js";
import { compileChain } from "../../src/snapshot/compile-chain.js";
import { diffChain } from "../../src/snapshot/diff-chain.js";
import { DEFAULT_TOKEN_LOGO_TEMPLATE } from "../../src/snapshot/normalize-token.js";
import { parseSnapshotBytes } from "../../src/snapshot/read-snapshot-file.js";
import { changeSetId, type ChangeLists } from "../../src/tables/change-sets.js";
import type { CompiledChain } from "../../src/tables/compiled-chain.js";
import { packSnapshot, tempDir } from "./fixtures.js";
import { ReferenceHistory } from "./reference-history.js";

export interface Compiled {
  readonly file: SnapshotFile;
  readonly chain: CompiledChain;
  readonly id: string;
}

export function compileFile(file: SnapshotFile): Compiled {
  const bytes = packSnapshot(file);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const chain = compileChain(parseSnapshotBytes(bytes, file.chainId as ChainId), {
    file: `chain-${file.chainId}.msgpack`,
    fileBytes: bytes.length,
    sha256,
    fileMtimeMs: 0,
    logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
  });
  return { file, chain, id: changeSetId(file.generatedAt, sha256) };
}

/**
 * The ServedFile of a batch as the gateway posts it (history-feed.ts): `files` accepted in turn after
 * `before` (the file served before, null after a restart), the last one served, with every change set.
 */
export function servedFile(before: Compiled | null, files: readonly Compiled[]): ServedFile {
  const lists: ChangeLists[] = [];
  let chain = before?.chain ?? null;
  for (const f of files) {
    lists.push(diffChain(chain, f.chain));
    chain = f.chain;
  }
  const last = files[files.length - 1];
  return {
    chainId: last.file.chainId,
    generatedAt: last.file.generatedAt,
    id: last.id,
    previous: before?.id ?? null,
    lists,
    tables: { pools: last.chain.pools, tokens: last.chain.tokens, tokenByAddress: last.chain.tokenRun.byAddress },
  };
}

export class HistoryHarness {
  readonly dir = tempDir("lgw-history-");
  readonly dbs: HistoryDbs;
  writer: HistoryWriter;
  readonly compactor: HistoryCompactor;
  readonly reads: HistoryReads;
  readonly reference: ReferenceHistory;
  /** The chain's file served last in this "process", and its id. */
  private served: Compiled | null = null;

  constructor(readonly retention: HistoryRetention) {
    this.dbs = openHistoryDbs(this.dir);
    this.writer = new HistoryWriter(this.dbs);
    this.compactor = new HistoryCompactor(
      this.dbs,
      retention,
      (c) => this.writer.meta(c),
      (c, m) => this.writer.setMeta(c, m),
    );
    this.reads = new HistoryReads(this.dbs, retention);
    this.reference = new ReferenceHistory(retention);
  }

  /** Serves `files` as one batch: each accepted in turn, the last one served (its change sets since the file served before). */
  serve(...files: Compiled[]): WriteOutcome {
    const served = servedFile(this.served, files);
    const last = files[files.length - 1];
    const outcome = this.writer.write(served);
    this.reference.serve(last.file, last.id, served.previous);
    this.served = last;
    return outcome;
  }

  /** A restart of the process: the writer starts over from the store; the next file has no previous. */
  restart(): void {
    this.writer = new HistoryWriter(this.dbs);
    (this.compactor as unknown as { metaOf: unknown }).metaOf = (c: number) => this.writer.meta(c);
    (this.compactor as unknown as { metaChanged: unknown }).metaChanged = (c: number, m: Parameters<HistoryWriter["setMeta"]>[1]) =>
      this.writer.setMeta(c, m);
    this.served = null;
    this.reference.restart();
  }

  /** Runs up to `steps` compaction steps (Infinity: until nothing is left). */
  compact(steps: number): number {
    let n = 0;
    while (n < steps && this.compactor.step() !== null) n++;
    return n;
  }

  close(): void {
    void this.dbs.env.close(); // only synchronous writes: nothing pending to fail
    rmSync(this.dir, { recursive: true, force: true });
  }
}
