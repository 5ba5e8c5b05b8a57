/**
 * `liquidity-gateway history rebuild --from DIR`: replays a directory of archived chain files into a
 * history store (shared/spec/history.md §25), so a new instance can be seeded. Each file is read,
 * validated and compiled as the build workers do, then observed as the history thread observes a served
 * file, with its change set against the chain's file before it: the same answers as live ingestion of the
 * same files in the same order.
 *
 * - Files: every `*.msgpack` under DIR (subdirectories included) whose name holds `chain-<chainId>`
 *   (`chain-8453.msgpack`, `chain-8453-1750000000.msgpack`, `2026-11-27/chain-8453.msgpack`), ordered by
 *   their `generatedAt` (ties: by path). A file that does not read or validate is reported and skipped.
 * - The store: HISTORY_DIR (or `--history-dir`) with HISTORY_RAW_HOURS and HISTORY_HOUR_DAYS, as the
 *   gateway reads them: run it with the gateway's settings, while no gateway writes that directory.
 *
 * Exit codes: 0 done, 1 a failure (I/O, the store is in use), 2 usage error.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { isSupportedChainId, type ChainId } from "../chains/chains.js";
import { ConfigError, historyOptions, loadConfig } from "../config/config.js";
import { HistoryService } from "../history/history-service.js";
import { HistoryStatusCells } from "../history/history-status.js";
import { compileChain } from "../snapshot/compile-chain.js";
import { diffChain } from "../snapshot/diff-chain.js";
import { openSnapshotBytes, parseSnapshotBytes } from "../snapshot/read-snapshot-file.js";
import { changeSetId, type ChangeLists } from "../tables/change-sets.js";
import type { CompiledChain } from "../tables/compiled-chain.js";

export interface HistoryCliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
}

const PROGRAM = "liquidity-gateway history";

const HELP = `Usage: ${PROGRAM} rebuild --from DIR [--history-dir DIR] [--history-raw-hours N] [--history-hour-days N]

Replays archived chain files (every *.msgpack under --from whose name holds chain-<chainId>, oldest
generatedAt first) into the history store, as live ingestion of the same files would. Run it while no
gateway writes the store, with the gateway's HISTORY_* settings.
`;

const CHAIN_IN_NAME = /chain-(\d+)/;

interface Archived {
  readonly path: string;
  readonly chainId: ChainId;
  readonly generatedAt: number;
}

export function runHistoryCli(argv: readonly string[], io: HistoryCliIo): number {
  if (argv.length === 0 || argv.includes("--help") || argv.includes("-h")) {
    io.stdout(HELP);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] !== "rebuild") {
    io.stderr(`${PROGRAM}: unknown command "${argv[0]}"\n${HELP}`);
    return 2;
  }
  const rest = [...argv.slice(1)];
  const at = rest.indexOf("--from");
  const from = at >= 0 ? rest[at + 1] : undefined;
  if (from === undefined || from.startsWith("--")) {
    io.stderr(`${PROGRAM} rebuild: --from DIR is required\n${HELP}`);
    return 2;
  }
  rest.splice(at, 2);
  let config;
  try {
    config = loadConfig(rest, io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`${PROGRAM} rebuild: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  try {
    if (!statSync(from).isDirectory()) throw new Error(`${from} is not a directory`);
  } catch (error) {
    io.stderr(`${PROGRAM} rebuild: --from: ${(error as Error).message}\n`);
    return 2;
  }
  const started = performance.now();
  const archived = listArchived(resolve(from), io);
  let service: HistoryService;
  const status = new HistoryStatusCells();
  try {
    service = new HistoryService(historyOptions(config), status, {
      failed: (what, error) => io.stderr(`${PROGRAM} rebuild: ${what} failed: ${(error as Error).message}\n`),
    });
  } catch (error) {
    io.stderr(`${PROGRAM} rebuild: cannot open the history store: ${(error as Error).message}\n`);
    return 1;
  }
  let peakRss = process.memoryUsage().rss;
  let observed = 0;
  let failed = false;
  const last = new Map<ChainId, { chain: CompiledChain; id: string }>();
  try {
    for (const file of archived) {
      const compiled = compileArchived(file, config.tokenLogoTemplate, io);
      if (compiled === null) continue;
      const before = last.get(file.chainId) ?? null;
      const diff = diffChain(before?.chain ?? null, compiled.chain);
      const lists: ChangeLists = {
        poolsUpserted: diff.poolsUpserted,
        poolsRemoved: diff.poolsRemoved,
        tokensUpserted: diff.tokensUpserted,
        tokensRemoved: diff.tokensRemoved,
      };
      service.enqueue({
        chainId: file.chainId,
        generatedAt: file.generatedAt,
        id: compiled.id,
        previous: before?.id ?? null,
        lists: [lists],
        tables: { pools: compiled.chain.pools, tokens: compiled.chain.tokens, tokenByAddress: compiled.chain.tokenRun.byAddress },
      });
      service.drain();
      if (service.failures > 0) {
        failed = true;
        break;
      }
      last.set(file.chainId, compiled);
      observed++;
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }
  } finally {
    service.close();
  }
  const seconds = (performance.now() - started) / 1000;
  io.stdout(
    `${PROGRAM} rebuild: ${observed} of ${archived.length} files observed into ${resolve(config.historyDir)} in ${seconds.toFixed(1)} s (${status.figures().records} observations written, peak RSS ${Math.round(peakRss / 2 ** 20)} MiB)\n`,
  );
  return failed ? 1 : 0;
}

/** The archived chain files under `dir`, oldest generatedAt first. */
function listArchived(dir: string, io: HistoryCliIo): Archived[] {
  const out: Archived[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".msgpack")) {
        const m = CHAIN_IN_NAME.exec(basename(path));
        const chainId = m === null ? NaN : Number(m[1]);
        if (!isSupportedChainId(chainId)) {
          io.stderr(`skipped ${relative(dir, path)}: its name names no supported chain (chain-<chainId>)\n`);
          continue;
        }
        try {
          // The top level only (its pools are not read): the order of the replay.
          const { snapshot } = openSnapshotBytes(readFileSync(path), chainId);
          out.push({ path, chainId, generatedAt: snapshot.generatedAt });
        } catch (error) {
          io.stderr(`skipped ${relative(dir, path)}: ${(error as Error).message}\n`);
        }
      }
    }
  };
  walk(dir);
  return out.sort((a, b) => a.generatedAt - b.generatedAt || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function compileArchived(file: Archived, logoTemplate: string, io: HistoryCliIo): { chain: CompiledChain; id: string } | null {
  try {
    const bytes = readFileSync(file.path);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const chain = compileChain(parseSnapshotBytes(bytes, file.chainId, logoTemplate), {
      file: basename(file.path),
      fileBytes: bytes.length,
      sha256,
      fileMtimeMs: 0,
      logoTemplate,
    });
    return { chain, id: changeSetId(file.generatedAt, sha256) };
  } catch (error) {
    io.stderr(`skipped ${file.path}: ${(error as Error).message}\n`);
    return null;
  }
}
