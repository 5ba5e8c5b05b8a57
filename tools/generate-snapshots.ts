/**
 * Generates deterministic sample snapshot files, one per supported chain, and
 * the sample baskets file (baskets.json) built from their tokens.
 *
 *   node dist/tools/generate-snapshots.js [--seed N] [--scale small|large] [--out DIR]
 *                                         [--series N [--every S] [--churn F]]
 *
 * Same seed and scale give byte-identical files. `small` (the committed
 * sample) is a few thousand pools; `large` is over 500,000 pools and 250,000
 * tokens for benchmarks, built and written one chain at a time. With
 * `--series N`, each chain's file is followed by N successive files
 * (samplegen/series.ts: every S seconds, a share F of pools and tokens
 * changed) in DIR/series/1/, DIR/series/2/, ...: what an indexer pushes.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { pack } from "msgpackr";
import { parseBasketsFile } from "../src/baskets/basket-file.js";
import { CHAINS, SUPPORTED_CHAIN_IDS, type ChainId } from "../src/chains/chains.js";
import { snapshotFileName } from "../src/api/snapshot-format.js";
import { writeFileAtomic } from "./samplegen/atomic-write.js";
import { buildChainSnapshot, type ChainSnapshotInput } from "./samplegen/chain-snapshot.js";
import { sampleBasketMembers, sampleBasketsFile, type ChainBasketMembers } from "./samplegen/sample-baskets.js";
import { SCALE_NAMES, scaleProfile, type ScaleName } from "./samplegen/scale.js";
import { ChainSeries } from "./samplegen/series.js";
import { buildSharedCatalog } from "./samplegen/tail-tokens.js";
import { reservedSymbols } from "./samplegen/token-factory.js";

const USAGE = `usage: generate-snapshots [--seed N] [--scale small|large] [--out DIR] [--series N [--every S] [--churn F]]
  --seed N      non-negative integer seed (default 1); same seed and scale => identical files
  --scale S     small (a few thousand pools, default) or large (>= 500k pools, 250k tokens)
  --out DIR     output directory (default ./snapshots), created if missing; also gets baskets.json
  --series N    also write N successive files per chain, in DIR/series/1 ... DIR/series/N (default 0)
  --every S     seconds between two files of a series (generatedAt steps; default 300)
  --churn F     share of pools and of tokens that change from one file to the next, 0-1 (default 0.05)
  --help        show this help`;

interface Options {
  seed: number;
  scale: ScaleName;
  out: string;
  series: number;
  everySeconds: number;
  churn: number;
}

class UsageError extends Error {}

function parseSeed(text: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`--seed must be a non-negative integer, got '${text}'`);
  }
  return Number(text);
}

function parseCount(text: string, option: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`${option} must be a non-negative integer, got '${text}'`);
  return Number(text);
}

function parseShare(text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 1)
    throw new UsageError(`--churn must be a number within 0-1, got '${text}'`);
  return value;
}

function parseScale(text: string): ScaleName {
  const scale = SCALE_NAMES.find((name) => name === text);
  if (!scale) throw new UsageError(`--scale must be one of ${SCALE_NAMES.join(", ")}, got '${text}'`);
  return scale;
}

/** The options (node:util's parseArgs: `--flag value` or `--flag=value`); null when help was asked for. */
export function readOptions(argv: readonly string[]): Options | null {
  let values;
  try {
    const text = { type: "string" } as const;
    ({ values } = parseArgs({
      args: [...argv],
      options: { seed: text, scale: text, out: text, series: text, every: text, churn: text, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    // parseArgs's own message: an unknown option, a missing value, a stray argument.
    if ((error as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS") === true) throw new UsageError((error as Error).message);
    throw error;
  }
  if (values.help === true) return null;
  if (values.out === "") throw new UsageError("--out needs a non-empty directory");
  const everySeconds = values.every === undefined ? 300 : parseCount(values.every, "--every");
  if (everySeconds === 0) throw new UsageError("--every must be at least 1 second");
  return {
    seed: values.seed === undefined ? 1 : parseSeed(values.seed),
    scale: values.scale === undefined ? "small" : parseScale(values.scale),
    out: values.out ?? "snapshots",
    series: values.series === undefined ? 0 : parseCount(values.series, "--series"),
    everySeconds,
    churn: values.churn === undefined ? 0.05 : parseShare(values.churn),
  };
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

function rss(): string {
  return megabytes(process.memoryUsage().rss);
}

function log(message: string): void {
  process.stderr.write(message + "\n");
}

interface ChainResult {
  tokens: number;
  pools: number;
  bytes: number;
  baskets: ChainBasketMembers;
}

const BASKETS_FILE_NAME = "baskets.json";

function generateChain(options: Options, context: ChainSnapshotInput): ChainResult {
  const { chainId } = context;
  const label = `[chain ${chainId} ${CHAINS[chainId].name}]`;
  const started = performance.now();
  const snapshot = buildChainSnapshot({
    ...context,
    onPoolProgress: (built, total) =>
      log(`${label} ${built.toLocaleString("en-US")}/${total.toLocaleString("en-US")} pools (rss ${rss()})`),
  });
  const encoded = pack(snapshot);
  const path = writeFileAtomic(options.out, snapshotFileName(chainId), encoded);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  log(
    `${label} ${snapshot.tokens.length.toLocaleString("en-US")} tokens, ${snapshot.pools.length.toLocaleString("en-US")} pools, ` +
      `${snapshot.protocols.length} protocols, ${encoded.length.toLocaleString("en-US")} bytes -> ${path} (${seconds} s, rss ${rss()})`,
  );
  if (options.series > 0) {
    const series = new ChainSeries(snapshot, options.seed, { everySeconds: options.everySeconds, churn: options.churn });
    for (let k = 1; k <= options.series; k++) {
      const next = series.next();
      const written = writeFileAtomic(seriesDir(options.out, k), snapshotFileName(chainId), pack(next));
      log(`${label} series ${k}/${options.series}: ${next.tokens.length} tokens, ${next.pools.length} pools -> ${written}`);
    }
  }
  return {
    tokens: snapshot.tokens.length,
    pools: snapshot.pools.length,
    bytes: encoded.length,
    baskets: sampleBasketMembers(chainId, snapshot.tokens),
  };
}

/** Where file k (1-based) of every chain's series goes. */
export function seriesDir(out: string, k: number): string {
  return join(out, "series", String(k));
}

function run(options: Options): void {
  const started = performance.now();
  const scale = scaleProfile(options.scale);
  mkdirSync(options.out, { recursive: true });
  const reserved = reservedSymbols();
  const sharedCatalog = buildSharedCatalog(options.seed, scale, reserved);
  log(`generating ${options.scale} snapshots, seed ${options.seed}, into ${options.out}`);
  if (options.series > 0) {
    log(`and a series of ${options.series} files per chain, every ${options.everySeconds} s, churn ${options.churn}`);
    for (let k = 1; k <= options.series; k++) mkdirSync(seriesDir(options.out, k), { recursive: true });
  }

  const total = { tokens: 0, pools: 0, bytes: 0 };
  const baskets = new Map<ChainId, ChainBasketMembers>();
  for (const chainId of SUPPORTED_CHAIN_IDS) {
    const result = generateChain(options, { chainId, seed: options.seed, scale, sharedCatalog, reservedSymbols: reserved });
    total.tokens += result.tokens;
    total.pools += result.pools;
    total.bytes += result.bytes;
    baskets.set(chainId, result.baskets);
  }
  const basketsText = JSON.stringify(sampleBasketsFile(baskets), null, 2) + "\n";
  parseBasketsFile(basketsText, BASKETS_FILE_NAME); // the generator's output must be a valid file
  log(`baskets -> ${writeFileAtomic(options.out, BASKETS_FILE_NAME, Buffer.from(basketsText))}`);

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const peak = megabytes(process.resourceUsage().maxRSS * 1024);
  log(
    `done: ${SUPPORTED_CHAIN_IDS.length} chains, ${total.tokens.toLocaleString("en-US")} tokens, ${total.pools.toLocaleString("en-US")} pools, ` +
      `${total.bytes.toLocaleString("en-US")} bytes (${megabytes(total.bytes)}) in ${seconds} s; peak rss ${peak}`,
  );
}

function main(argv: readonly string[]): number {
  let options: Options | null;
  try {
    options = readOptions(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      log(`generate-snapshots: ${error.message}\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  if (options === null) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  run(options);
  return 0;
}

// Run only as the entry point, so that tests may import readOptions.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
