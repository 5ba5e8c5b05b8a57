/**
 * Pool search on a snapshot directory, in-process, through the route's own
 * handler (validation, sides, search, response pieces, next cursor):
 * `npm run bench:pool-search -- [--dir DIR] [--iterations N] [--rounds R] [--json]`.
 *
 * Prints the machine, the data, what the pool-search index costs (build time
 * per chain, measured by building it alone; shared-column bytes), and p50 /
 * p99 per search for (a) USDC on all chains, (b) USDC/WETH on all chains,
 * (c) usd-stablecoins × eth-pegged-tokens, each by TVL and by 7-day yield, at
 * limits 10 and 100, first pages and second pages (with the cursor).
 *
 * Baskets: the directory's baskets.json, else the sample generator's baskets
 * built from the directory's tokens (what `snapshots:generate` writes).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { PerformanceObserver } from "node:perf_hooks";
import { join } from "node:path";
import { authenticate } from "../../src/access/authenticate.js";
import { KeyStore } from "../../src/access/key-store.js";
import type { PoolSearchRequest } from "../../src/api/wire.js";
import { BasketCatalogue } from "../../src/baskets/basket-catalogue.js";
import { parseBasketsFile, type BasketsFile } from "../../src/baskets/basket-file.js";
import type { ChainId } from "../../src/chains/chains.js";
import { CHAINS } from "../../src/chains/chains.js";
import type { GatewayContext } from "../../src/http/gateway-context.js";
import { searchPoolsRoute } from "../../src/http/handlers/pool-search.js";
import type { DataReply } from "../../src/http/reply.js";
import { CursorCodec } from "../../src/query/cursor.js";
import type { PoolSearchIndexData } from "../../src/tables/pool-search-index.js";
import { compileChain } from "../../src/snapshot/compile-chain.js";
import { PoolSearchIndexBuilder } from "../../src/snapshot/compile-pool-search.js";
import { compileTokenIndex } from "../../src/snapshot/compile-token-index.js";
import type { CompiledChain } from "../../src/tables/compiled-chain.js";
import { SNAPSHOT_FILE_PATTERN } from "../../src/api/snapshot-format.js";
import { DEFAULT_TOKEN_LOGO_TEMPLATE } from "../../src/snapshot/normalize-token.js";
import { chainIdFromSnapshotFileName, parseSnapshotBytes, type NormalizedSnapshotFile } from "../../src/snapshot/read-snapshot-file.js";
import { ServingSnapshot } from "../../src/serving/serving-snapshot.js";
import { snapshotVersion } from "../../src/api/snapshot-version.js";
import { createHash } from "node:crypto";
import { SnapshotStore } from "../../src/serving/snapshot-store.js";
import { sampleBasketMembers, sampleBasketsFile, type ChainBasketMembers } from "../../tools/samplegen/sample-baskets.js";
import { integerOption, readArgs } from "../shared/command-line.js";

const options = readArgs(
  process.argv.slice(2),
  { dir: { type: "string" }, iterations: { type: "string" }, rounds: { type: "string" }, json: { type: "boolean" } },
  "usage: npm run bench:pool-search -- [--dir DIR] [--iterations N] [--rounds R] [--json]",
);
const dir = options.dir ?? "snapshots";
const iterations = integerOption("--iterations", options.iterations, 1, 1_000_000) ?? 400;
const rounds = integerOption("--rounds", options.rounds, 1, 1000) ?? 5;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/** The index built alone from a parsed chain (what compileChain adds for it). */
function buildIndexAlone(snapshot: NormalizedSnapshotFile): { ms: number; index: PoolSearchIndexData } {
  const rowOf = new Map<string, number>(snapshot.tokens.map((t, i) => [t.address, i]));
  const rows = snapshot.pools.map((p) => Uint32Array.from(p.tokens, (t) => rowOf.get(t.address)!));
  const started = performance.now();
  const builder = new PoolSearchIndexBuilder({
    chainId: snapshot.chainId as ChainId,
    tokenCount: snapshot.tokens.length,
    protocolIds: snapshot.protocols.map((p) => p.id),
    poolCount: snapshot.pools.length,
    wrappedRow: rowOf.get(CHAINS[snapshot.chainId as ChainId].wrappedNative) ?? -1,
    wrappedJsonBytes: 0,
    nativeTokenJson: new Uint8Array(0),
  });
  for (let i = 0; i < snapshot.pools.length; i++) builder.add(snapshot.pools[i], rows[i], []);
  const index = builder.finish(snapshot.pools.map((p) => p.address));
  return { ms: performance.now() - started, index };
}

/** Bytes of every typed array of the index (shared columns: resident once per snapshot). */
function indexBytes(index: PoolSearchIndexData): number {
  let n = 0;
  for (const value of Object.values(index)) {
    if (ArrayBuffer.isView(value)) n += value.byteLength;
    else if (value !== null && typeof value === "object" && !Array.isArray(value))
      for (const inner of Object.values(value)) if (ArrayBuffer.isView(inner)) n += inner.byteLength;
  }
  return n;
}

/** The highest-TVL token with this symbol on a chain. */
function topToken(snapshot: NormalizedSnapshotFile, symbol: string): string | null {
  let best: { address: string; tvl: number } | null = null;
  for (const t of snapshot.tokens)
    if (t.symbol === symbol && (best === null || t.trackedTotalValuePooledUsd > best.tvl))
      best = { address: t.address, tvl: t.trackedTotalValuePooledUsd };
  return best?.address ?? null;
}

// ------------------------------------------------------------------ load

const loadAtStart = loadavg();
const started = performance.now();
const chains: CompiledChain[] = [];
const usdc: { chainId: ChainId; address: string }[] = [];
const weth: { chainId: ChainId; address: string }[] = [];
const basketMembers = new Map<ChainId, ChainBasketMembers>();
const indexRows: {
  chainId: number;
  pools: number;
  tokens: number;
  compileMs: number;
  indexMs: number;
  indexBytes: number;
  lists: number;
  pairs: number;
}[] = [];
for (const name of readdirSync(dir)
  .filter((n) => SNAPSHOT_FILE_PATTERN.test(n))
  .sort()) {
  const path = join(dir, name);
  const bytes = readFileSync(path);
  const snapshot = parseSnapshotBytes(bytes, chainIdFromSnapshotFileName(name));
  const chainId = snapshot.chainId as ChainId;
  const compileStarted = performance.now();
  const chain = compileChain(snapshot, {
    file: name,
    fileBytes: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    fileMtimeMs: 0,
    logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
  });
  const compileMs = performance.now() - compileStarted;
  const alone = buildIndexAlone(snapshot);
  chains.push(chain);
  indexRows.push({
    chainId,
    pools: chain.info.poolCount,
    tokens: chain.info.tokenCount,
    compileMs,
    indexMs: alone.ms,
    indexBytes: indexBytes(chain.poolSearch),
    lists: chain.poolSearch.membershipCount,
    pairs: chain.poolSearch.pairKeys.length,
  });
  const u = topToken(snapshot, "USDC");
  if (u !== null) usdc.push({ chainId, address: u });
  const w = CHAINS[chainId].nativeSymbol === "ETH" ? CHAINS[chainId].wrappedNative : topToken(snapshot, "WETH");
  if (w !== null) weth.push({ chainId, address: w });
  try {
    basketMembers.set(chainId, sampleBasketMembers(chainId, snapshot.tokens));
  } catch {
    // not generated data: baskets come from the directory's file
  }
}
const tokenIndex = compileTokenIndex(chains.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens })));
const snapshot = ServingSnapshot.of(snapshotVersion(chains.map((c) => c.info)), chains, tokenIndex);
const loadMs = performance.now() - started;

const basketsPath = join(dir, "baskets.json");
const basketsFile: BasketsFile = existsSync(basketsPath)
  ? parseBasketsFile(readFileSync(basketsPath, "utf8"), basketsPath)
  : sampleBasketsFile(basketMembers);
const baskets = new BasketCatalogue(basketsFile);

const store = new SnapshotStore(null);
store.swap(snapshot, 0);
const keyText = "lgw_bench_0123456789abcdef0123456789";
const keys = new KeyStore({ keys: [{ id: "bench", name: "bench", sha256: KeyStore.hashKey(keyText), status: "active" }] });
const key = authenticate(`Bearer ${keyText}`, keys, Date.now());
const ctx = { store, baskets, cursors: new CursorCodec(Buffer.from("bench-secret-bench-secret")) } as unknown as GatewayContext;

/** Garbage-collection pauses while a case runs (the bench process also holds what loading left behind). */
const gcPauses: number[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauses.push(entry.duration);
}).observe({ entryTypes: ["gc"] });
const collect = (globalThis as { gc?: () => void }).gc;
collect?.();

function run(body: PoolSearchRequest): { reply: DataReply; bytes: number } {
  const reply = searchPoolsRoute({
    ctx,
    params: [],
    routeName: "pools.search",
    query: "",
    path: "/v1/pools/search",
    body,
    headers: {},
    key,
  }) as DataReply;
  let bytes = 0;
  for (const chunk of reply.data) bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
  return { reply, bytes };
}

function nextCursorOf(reply: DataReply): string | null {
  const last = reply.data[reply.data.length - 1] as string;
  const match = /"nextCursor":("[^"]*"|null)\}$/.exec(last);
  return match === null ? null : (JSON.parse(match[1]) as string | null);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// ------------------------------------------------------------------ searches

const sides: Record<string, Pick<PoolSearchRequest, "tokensA" | "tokensB" | "basketsA" | "basketsB">> = {
  "(a) USDC, all chains": { tokensA: usdc },
  "(b) USDC/WETH, all chains": { tokensA: usdc, tokensB: weth },
  "(c) usd-stablecoins × eth-pegged-tokens": { basketsA: [{ basketId: "usd-stablecoins" }], basketsB: [{ basketId: "eth-pegged-tokens" }] },
};
const orders = { "tvl desc": { field: "tvl" as const }, "yield 7d desc": { field: "yield" as const, timeframe: "7d" as const } };

interface Case {
  search: string;
  order: string;
  limit: number;
  page: string;
  body: PoolSearchRequest;
  pools: number;
  kb: number;
  /** Wall-clock ms of every call, per round. */
  rounds: number[][];
  gcCount: number;
  gcMax: number;
}
const cases: Case[] = [];
for (const [searchName, side] of Object.entries(sides)) {
  for (const [orderName, orderBy] of Object.entries(orders)) {
    for (const limit of [10, 100]) {
      const first: PoolSearchRequest = { ...side, config: { limit, orderBy } };
      const cursor = nextCursorOf(run(first).reply);
      const pages: [string, PoolSearchRequest][] = [["1st", first]];
      if (cursor !== null) pages.push(["2nd", { ...side, config: { limit, orderBy, cursor } }]);
      for (const [page, body] of pages) {
        const last = run(body);
        const text = Buffer.concat(last.reply.data.map((c) => (typeof c === "string" ? Buffer.from(c) : c))).toString();
        const pools = (JSON.parse(text) as { pools: unknown[] }).pools.length;
        cases.push({
          search: searchName,
          order: orderName,
          limit,
          page,
          body,
          pools,
          kb: last.bytes / 1024,
          rounds: [],
          gcCount: 0,
          gcMax: 0,
        });
      }
    }
  }
}
for (const c of cases) for (let w = 0; w < 50; w++) run(c.body);
// Rounds interleave the cases, so a burst of load elsewhere on the machine hits one round, not one case.
for (let round = 0; round < rounds; round++) {
  for (const c of cases) {
    gcPauses.length = 0;
    const times: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const t = performance.now();
      run(c.body);
      times.push(performance.now() - t);
    }
    await new Promise((resolve) => setImmediate(resolve)); // let the GC observer report
    c.gcCount += gcPauses.length;
    c.gcMax = gcPauses.reduce((m, d) => Math.max(m, d), c.gcMax);
    c.rounds.push(times.sort((x, y) => x - y));
  }
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

// ------------------------------------------------------------------ report

const totalPools = indexRows.reduce((n, r) => n + r.pools, 0);
const totalIndexBytes = indexRows.reduce((n, r) => n + r.indexBytes, 0);
console.log(
  `machine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}, ${mb(totalmem())} RAM; node ${process.version}; load average (1, 5, 15 min) at the start ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}, at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
console.log(
  `data: ${dir}: ${chains.length} chains, ${totalPools} pools, ${tokenIndex.instanceCount} token instances; loaded in ${(loadMs / 1000).toFixed(1)} s (decode, compile, token index)`,
);
console.log(
  `baskets: ${existsSync(basketsPath) ? basketsPath : "generated from the tokens (sample generator)"}; USDC on ${usdc.length} chains, WETH on ${weth.length} chains`,
);
console.log(`per case: 50 warm-up calls, then ${rounds} rounds of ${iterations} calls, the cases interleaved`);
console.log("\npool-search index per chain (built alone; compile = the whole chain compile, index included):");
console.table(
  indexRows.map((r) => ({
    chain: r.chainId,
    pools: r.pools,
    tokens: r.tokens,
    "token-pool entries": r.lists,
    "token pairs": r.pairs,
    "compile ms": Math.round(r.compileMs),
    "index ms": Math.round(r.indexMs),
    "index MB": +(r.indexBytes / 1048576).toFixed(1),
  })),
);
console.log(
  `index total: ${mb(totalIndexBytes)} of shared columns, ${Math.round(indexRows.reduce((n, r) => n + r.indexMs, 0))} ms to build (one thread, all chains)`,
);
console.log(
  `\nsearch latency (the handler: validation, sides, search, response pieces, next cursor), wall clock; ${rounds} rounds of ${iterations} calls per case:`,
);
console.log(
  "p50 over every call; p99: the median round's and the best round's (load elsewhere on the machine inflates single rounds); GCs: collections during the case, GC max: longest pause",
);
const table = cases.map((c) => {
  const all = c.rounds.flat().sort((x, y) => x - y);
  const p99s = c.rounds.map((r) => percentile(r, 99));
  return {
    search: c.search,
    order: c.order,
    limit: c.limit,
    page: c.page,
    "p50 ms": +percentile(all, 50).toFixed(3),
    "p99 ms (median round)": +median(p99s).toFixed(3),
    "p99 ms (best round)": +Math.min(...p99s).toFixed(3),
    "max ms": +all[all.length - 1].toFixed(2),
    pools: c.pools,
    KiB: +c.kb.toFixed(1),
    GCs: c.gcCount,
    "GC max ms": +c.gcMax.toFixed(2),
  };
});
console.table(table);
if (options.json === true) console.log(JSON.stringify({ indexRows, table }));
