/**
 * Micro-benchmarks (tinybench) of the request hot paths, in-process, over a
 * snapshot directory: `npm run bench:micro -- [--dir DIR] [--time MS]`.
 * Builds the same structures the server serves from, with the same functions.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { Bench } from "tinybench";
import typia from "typia";
import type { TokenListRequest } from "../../src/api/wire.js";
import { validated } from "../../src/http/validation-error.js";
import { CursorCodec, PositionWriter } from "../../src/query/cursor.js";
import { evaluateTokenList } from "../../src/query/evaluate-token-list.js";
import { DEFAULT_TOKEN_QUERY, toTokenQuery, tokenQueryKey } from "../../src/query/token-query.js";
import { compileChain } from "../../src/snapshot/compile-chain.js";
import { compileTokenIndex } from "../../src/snapshot/compile-token-index.js";
import { SNAPSHOT_FILE_PATTERN } from "../../src/api/snapshot-format.js";
import { findPool, poolJson } from "../../src/tables/pool-table.js";
import { chainIdFromSnapshotFileName, parseSnapshotBytes } from "../../src/snapshot/read-snapshot-file.js";
import { ServingSnapshot } from "../../src/serving/serving-snapshot.js";
import { snapshotVersion } from "../../src/api/snapshot-version.js";
import { columnString } from "../../src/tables/shared-columns.js";
import { integerOption, readArgs } from "../shared/command-line.js";

/** prefix + parts (joined by `separator`) + suffix: what the response writer assembles. */
function assemble(prefix: string, parts: readonly Uint8Array[], separator: string, suffix: string): Buffer {
  const pieces: Uint8Array[] = [Buffer.from(prefix)];
  parts.forEach((part, i) => pieces.push(...(i > 0 ? [Buffer.from(separator), part] : [part])));
  pieces.push(Buffer.from(suffix));
  return Buffer.concat(pieces);
}
const validateTokenListRequest = typia.createValidateEquals<TokenListRequest>();

const options = readArgs(
  process.argv.slice(2),
  { dir: { type: "string" }, time: { type: "string" } },
  "usage: npm run bench:micro -- [--dir DIR] [--time MS]",
);
const dir = options.dir ?? "snapshots";
const time = integerOption("--time", options.time, 1, 600_000) ?? 1000;

const started = performance.now();
let parseMs = 0;
const chains = readdirSync(dir)
  .filter((name) => SNAPSHOT_FILE_PATTERN.test(name))
  .map((name) => {
    const path = join(dir, name);
    const parseStarted = performance.now();
    const bytes = readFileSync(path);
    const snapshot = parseSnapshotBytes(bytes, chainIdFromSnapshotFileName(name), "https://logo/{chainId}/{address}");
    parseMs += performance.now() - parseStarted;
    return compileChain(snapshot, {
      file: name,
      fileBytes: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      fileMtimeMs: 0,
      logoTemplate: "https://logo/{chainId}/{address}",
    });
  });
const indexStarted = performance.now();
const index = compileTokenIndex(chains.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens })));
const indexMs = performance.now() - indexStarted;
const snapshot = ServingSnapshot.of(snapshotVersion(chains.map((c) => c.info)), chains, index);
const buildMs = performance.now() - started;
const compileMs = chains.reduce((n, c) => n + c.info.buildMs, 0);

const base = chains.find((c) => c.info.chainId === 8453) ?? chains[0];
const poolAddresses = Array.from({ length: 1024 }, (_, i) => {
  const k = (i * 7919) % base.pools.count;
  return String.fromCharCode(...base.pools.keys.subarray(k * 66, k * 66 + base.pools.keyLength[k]))
    .toUpperCase()
    .replace("0X", "0x");
});
const filtered = toTokenQuery({
  filters: { chainIds: [1, 8453], minimumTotalValuePooledUsd: 5000, minimumSwapsCount: 100, minimumSwapVolumeUsd: 10_000 },
});
const everything = toTokenQuery({
  config: { matchAllSymbols: true },
  filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0, ignoreWrappedNative: false },
});
const codec = new CursorCodec(Buffer.from("bench-secret-bench-secret"));
const queryHash = codec.scope("tokens.list", tokenQueryKey(DEFAULT_TOKEN_QUERY));
const cursor = codec.encode(queryHash, snapshot.version, new PositionWriter().u32(10).f64(123456.78).string("USDC").bytes());
const requestBody = {
  config: { limit: 50, orderBy: { direction: "desc" } },
  filters: { chainIds: [1, 8453], minimumTotalValuePooledUsd: 5000 },
};
const prefix = '{"statusCode":200,"timestamp":"2026-01-01T00:00:00.000Z","path":"/v1/pools/x","traceId":"t","data":{"pool":';

let sink = 0;
let p = 0;
const bench = new Bench({ time });
bench
  .add("swap: a serving thread takes a new version (ServingSnapshot over the same chains and index)", () => {
    sink += ServingSnapshot.of(snapshot.version + 1, chains, index).loadedMask;
  })
  .add("swap work moved off it: the index's search strings decoded at once", () => {
    const text = index.searchText;
    sink += Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString("utf8").length;
  })
  .add("swap work moved off it: the default token list evaluated", () => {
    sink += evaluateTokenList(index, DEFAULT_TOKEN_QUERY, snapshot.loadedMask).count;
  })
  .add("token list: default view, page of 10 (cached list)", () => {
    const view = snapshot.tokenList(DEFAULT_TOKEN_QUERY);
    const parts = [];
    for (let e = 0; e < Math.min(10, view.count); e++) parts.push(view.entry(e));
    sink += assemble("{", parts, ",", "}").length;
  })
  .add("token list: uncached filtered query (2 chains, low thresholds)", () => {
    sink += evaluateTokenList(index, filtered, snapshot.loadedMask).count;
  })
  .add("token list: uncached, all thresholds 0 + matchAllSymbols", () => {
    sink += evaluateTokenList(index, everything, snapshot.loadedMask).count;
  })
  .add("pool: lookup (mixed case) + response bytes", () => {
    const address = poolAddresses[p++ & 1023];
    const i = findPool(base.pools, address);
    sink += assemble(prefix, [poolJson(base.pools, i)], "", "}}").length;
  })
  .add("cursor: encode", () => {
    sink += codec.encode(queryHash, 1, new PositionWriter().u32(20).f64(98765.4).string("WETH").bytes()).length;
  })
  .add("cursor: decode", () => {
    const decoded = codec.decode(cursor, queryHash);
    sink += typeof decoded === "object" ? decoded.position.u32() : 0;
  })
  .add("request validation (typia, valid body)", () => {
    sink += validated(validateTokenListRequest, requestBody).config ? 1 : 0;
  });

await bench.run();

const cpu = cpus()[0]?.model ?? "unknown CPU";
console.log(`machine: ${cpus().length} cores, ${cpu}; node ${process.version}`);
console.log(
  `data: ${dir}: ${chains.length} chains, ${chains.reduce((n, c) => n + c.info.poolCount, 0)} pools, ${index.instanceCount} token instances, ${index.groupCount} symbol groups`,
);
console.log(
  `in-process build ${buildMs.toFixed(0)} ms: decode + validate ${parseMs.toFixed(0)} ms, compile chains ${compileMs} ms, token index ${indexMs.toFixed(0)} ms`,
);
console.log(
  `uncached filtered query returns ${evaluateTokenList(index, filtered, snapshot.loadedMask).count} entries; all-0 + matchAllSymbols ` +
    `${evaluateTokenList(index, everything, snapshot.loadedMask).count}; default view ${snapshot.tokenList(DEFAULT_TOKEN_QUERY).count} entries; ` +
    `first: ${columnString(index.groupSymbol, snapshot.tokenList(DEFAULT_TOKEN_QUERY).result.group[0])}`,
);
console.table(
  bench.tasks.map((task) => {
    const r = task.result as { latency?: { mean: number; p50?: number; p99?: number }; throughput?: { mean: number } } | undefined;
    const us = (ms: number | undefined) => (ms === undefined ? "-" : (ms * 1000).toFixed(2));
    return {
      task: task.name,
      "mean µs": us(r?.latency?.mean),
      "p50 µs": us(r?.latency?.p50),
      "p99 µs": us(r?.latency?.p99),
      "ops/s": r?.throughput ? Math.round(r.throughput.mean) : "-",
    };
  }),
);
if (sink === -1) console.log(sink);
