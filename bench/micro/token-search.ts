/**
 * The token surface's request work, in-process, over a snapshot directory (the large set:
 * `npm run snapshots:generate -- --scale large --out DIR`):
 *
 *   npm run bench:token-search -- --dir DIR [--time MS] [--out bench/results/token-search.md]
 *
 * Builds the structures the server serves from with the same functions (compileChain,
 * compileTokenIndex, ServingSnapshot), then times what a request costs when its answer is not
 * cached: the match, the grouping and ordering (evaluateTokenSearch / evaluateSingleChain) and the
 * first page's bytes; lookups, prices and baskets likewise. HTTP, authentication and the envelope
 * are measured by `npm run bench` and `npm run bench:micro`. Baskets are the sample generator's,
 * built from the directory's tokens.
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { Bench } from "tinybench";
import { BasketCatalogue } from "../../src/baskets/basket-catalogue.js";
import { SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../../src/chains/chains.js";
import type { PagedList } from "../../src/query/paged-list.js";
import { instanceOnChain, instancesWithAddress, parseAddress, priceInstance } from "../../src/tables/token-lookup.js";
import { toSingleChainQuery, toTokenSearchQuery, type SingleChainQuery, type TokenSearchQuery } from "../../src/query/token-query.js";
import { BasketView } from "../../src/serving/basket-view.js";
import { compileChain } from "../../src/snapshot/compile-chain.js";
import { compileTokenIndex } from "../../src/snapshot/compile-token-index.js";
import { SNAPSHOT_FILE_PATTERN } from "../../src/api/snapshot-format.js";
import { chainIdFromSnapshotFileName, parseSnapshotBytes } from "../../src/snapshot/read-snapshot-file.js";
import { ServingSnapshot } from "../../src/serving/serving-snapshot.js";
import { snapshotVersion } from "../../src/api/snapshot-version.js";
import { createHash } from "node:crypto";
import { sampleBasketMembers, sampleBasketsFile, type ChainBasketMembers } from "../../tools/samplegen/sample-baskets.js";
import { instanceJson } from "../../src/tables/token-index.js";
import { integerOption, readArgs } from "../shared/command-line.js";

const options = readArgs(
  process.argv.slice(2),
  { dir: { type: "string" }, time: { type: "string" }, out: { type: "string" } },
  "usage: npm run bench:token-search -- [--dir DIR] [--time MS] [--out FILE]",
);
const dir = options.dir ?? "snapshots";
const time = integerOption("--time", options.time, 1, 600_000) ?? 1500;
const out = options.out ?? "";

// ------------------------------------------------------------------ build, as the build worker does

const started = performance.now();
const members = new Map<ChainId, ChainBasketMembers>();
const chains = readdirSync(dir)
  .filter((name) => SNAPSHOT_FILE_PATTERN.test(name))
  .map((name) => {
    const path = join(dir, name);
    const chainId = chainIdFromSnapshotFileName(name) as ChainId;
    const bytes = readFileSync(path);
    const snapshot = parseSnapshotBytes(bytes, chainId, "https://logo/{chainId}/{address}");
    members.set(chainId, sampleBasketMembers(chainId, snapshot.tokens));
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
const catalogue = new BasketCatalogue(sampleBasketsFile(members));
const buildMs = performance.now() - started;

// ------------------------------------------------------------------ what a request does on a cache miss

/** The first page's entries joined, as the response writer sends them. */
function page(list: PagedList<unknown>, limit: number): number {
  const parts: Uint8Array[] = [];
  for (let e = 0; e < Math.min(limit, list.count); e++) parts.push(list.entry(e));
  return Buffer.concat(parts).length + parts.length;
}

const search = (
  term: string,
  limit: number,
  extra: { relevance?: boolean; chainIds?: ChainId[]; matchAllSymbols?: boolean } = {},
): TokenSearchQuery =>
  toTokenSearchQuery(
    {
      search: term,
      config: { limit, matchAllSymbols: extra.matchAllSymbols, orderBy: extra.relevance ? { field: "relevance" } : undefined },
      filters: extra.chainIds ? { chainIds: extra.chainIds } : undefined,
    },
    term,
  );
const chainQuery = (
  chainId: ChainId,
  term: string | null,
  extra: { relevance?: boolean; asc?: boolean; zero?: boolean } = {},
): SingleChainQuery =>
  toSingleChainQuery(
    chainId,
    {
      ...(term === null ? {} : { search: term }),
      config: { orderBy: extra.relevance ? { field: "relevance" } : extra.asc ? { direction: "asc" } : undefined },
      filters: extra.zero
        ? { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0, ignoreWrappedNative: false }
        : undefined,
    } as never,
    term,
  );

const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const USDC_UPPER = "0xA0B86991C6218B36C1D19D4A2E9EB0CE3606EB48";
const base = chains.find((c) => c.info.chainId === 8453)!;
const priced = Array.from({ length: 100 }, (_, i) => {
  const row = (i * 7919) % base.tokens.count;
  const address = Buffer.from(
    base.tokens.address.bytes.subarray(base.tokens.address.offsets[row], base.tokens.address.offsets[row + 1]),
  ).toString();
  return { chainId: 8453 as ChainId, address: i % 10 === 0 ? "0x" + "e".repeat(40) : address };
});

interface Case {
  readonly group: string;
  readonly name: string;
  readonly run: () => number;
  /** Entries the full result holds (for the table). */
  readonly size: () => number;
}

const searchCase = (name: string, q: TokenSearchQuery, limit: number): Case => ({
  group: "POST /v1/tokens/search",
  name,
  run: () => page(snapshot.evaluateTokenSearch(q), limit),
  size: () => snapshot.evaluateTokenSearch(q).count,
});
const chainCase = (group: string, name: string, q: SingleChainQuery, limit: number): Case => ({
  group,
  name,
  run: () => page(snapshot.evaluateSingleChain(q), limit),
  size: () => snapshot.evaluateSingleChain(q).count,
});

const CASES: Case[] = [
  searchCase('"us", tvl, limit 10', search("us", 10), 10),
  searchCase('"us", relevance, limit 10', search("us", 10, { relevance: true }), 10),
  searchCase('"us", relevance, limit 100', search("us", 100, { relevance: true }), 100),
  searchCase('"usdc", tvl, limit 10', search("usdc", 10), 10),
  searchCase('"usdc", relevance, limit 100', search("usdc", 100, { relevance: true }), 100),
  searchCase(
    '"usdc", matchAllSymbols, chains 1 + 8453, limit 100',
    search("usdc", 100, { matchAllSymbols: true, chainIds: [1, 8453] }),
    100,
  ),
  searchCase("an address (upper case), tvl, limit 10", search(USDC_UPPER, 10), 10),
  searchCase('"wrapped ether", relevance, limit 10', search("wrapped ether", 10, { relevance: true }), 10),
  searchCase('"zzqx" (no match), limit 10', search("zzqx", 10), 10),
  searchCase('"a" (one letter: nearly everything), tvl, limit 10', search("a", 10), 10),
  searchCase('"a", relevance, limit 100', search("a", 100, { relevance: true }), 100),
  chainCase("POST /v1/tokens/{chainId}", "Base (98k tokens), defaults, limit 10", chainQuery(8453, null), 10),
  chainCase("POST /v1/tokens/{chainId}", "Base, asc, limit 100", chainQuery(8453, null, { asc: true }), 100),
  chainCase("POST /v1/tokens/{chainId}", "Base, all thresholds 0, limit 100", chainQuery(8453, null, { zero: true }), 100),
  chainCase("POST /v1/tokens/{chainId}/search", 'Base, "us", tvl, limit 10', chainQuery(8453, "us"), 10),
  chainCase("POST /v1/tokens/{chainId}/search", 'Base, "us", relevance, limit 100', chainQuery(8453, "us", { relevance: true }), 100),
  chainCase("POST /v1/tokens/{chainId}/search", 'Base, "a", relevance, limit 100', chainQuery(8453, "a", { relevance: true }), 100),
  {
    group: "lookups",
    name: "GET /v1/tokens/{tokenAddress} (every chain)",
    run: () =>
      instancesWithAddress(index, parseAddress(USDC_UPPER)!).reduce((n, i) => n + instanceJson(index, "metadataJson", i).length, 0),
    size: () => instancesWithAddress(index, parseAddress(USDC)!).length,
  },
  {
    group: "lookups",
    name: "GET /v1/tokens/{chainId}/{tokenAddress}",
    run: () => instanceJson(index, "metadataJson", instanceOnChain(index, 1, parseAddress(USDC_UPPER)!)).length,
    size: () => 1,
  },
  {
    group: "lookups",
    name: "POST /v1/tokens/prices (100 tokens)",
    run: () =>
      JSON.stringify({
        prices: priced.map((t) => ({ ...t, price: index.price[priceInstance(index, t.chainId, parseAddress(t.address)!)] ?? null })),
      }).length,
    size: () => priced.length,
  },
  {
    group: "baskets",
    name: "a basket on every chain (uncached)",
    run: () => new BasketView(catalogue, index).basketJson(catalogue.get("usd-stablecoins")!, SUPPORTED_CHAIN_IDS_ASCENDING)?.length ?? 0,
    size: () => [...catalogue.get("usd-stablecoins")!.addresses.values()].reduce((n, a) => n + a.length, 0),
  },
];

let sink = 0;
const loadBefore = loadavg()[0];
const bench = new Bench({ time, warmupTime: 300 });
for (const c of CASES)
  bench.add(`${c.group} | ${c.name}`, () => {
    sink += c.run();
  });
await bench.run();

// ------------------------------------------------------------------ report

const cpu = cpus()[0]?.model ?? "unknown CPU";
const machine = `${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`;
const data = `${dir}: ${chains.length} chains, ${index.instanceCount.toLocaleString("en-US")} token instances, ${index.groupCount.toLocaleString("en-US")} symbol groups, ${(index.searchOffsets.length - 1).toLocaleString("en-US")} distinct search strings (${(index.searchText.length / 2 ** 20).toFixed(1)} MiB)`;
const rows = bench.tasks.map((task, i) => {
  const r = task.result as { latency?: { min: number; mean: number; p50?: number; p99?: number; samplesCount?: number } } | undefined;
  const ms = (v: number | undefined) => (v === undefined ? "-" : v < 0.1 ? v.toFixed(4) : v.toFixed(2));
  return {
    case: `${CASES[i].group}: ${CASES[i].name}`,
    entries: CASES[i].size(),
    min: ms(r?.latency?.min),
    p50: ms(r?.latency?.p50),
    p99: ms(r?.latency?.p99),
    mean: ms(r?.latency?.mean),
    samples: r?.latency?.samplesCount ?? 0,
  };
});
const load = `load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end, on ${cpus().length} cores`;
console.log(`machine: ${machine}; ${load}`);
console.log(`data: ${data}`);
console.log(`in-process build ${(buildMs / 1000).toFixed(1)} s (token index ${(indexMs / 1000).toFixed(1)} s)`);
console.table(rows);

if (out !== "") {
  const lines = [
    "# Token surface: search, single-chain lists, lookups (`npm run bench:token-search`)",
    "",
    `Taken ${new Date().toISOString().slice(0, 10)} on ${machine}, **under shared load**: ${load}. The cores`,
    "were shared with other work running at the same time, so p50 and p99 are upper bounds of this code's cost",
    "(p99 mostly measures the scheduler); `min` is the closest to the cost on an idle core.",
    "",
    `Data: the large set (\`npm run snapshots:generate -- --scale large\`), ${data}.`,
    "",
    "What is timed: the work of a request whose answer is not cached yet (match + grouping + order + the first",
    "page's bytes; an answer once computed is cached per snapshot, bounded), in process, one thread, tinybench",
    `(${time} ms per case). Milliseconds. A search matching more than a quarter of the symbol groups (such as \`"a"\`)`,
    "restricts the token list of its filters, which is computed once per snapshot and filters and then cached",
    "like any token list (its first computation costs what an uncached token list with the same filters costs:",
    "`bench:micro`'s all-thresholds-0 case); the figures here are with that list cached.",
    "",
    "| case | entries | min ms | p50 ms | p99 ms | mean ms | samples |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.case} | ${r.entries.toLocaleString("en-US")} | ${r.min} | ${r.p50} | ${r.p99} | ${r.mean} | ${r.samples} |`),
    "",
  ];
  writeFileSync(out, lines.join("\n"));
  console.log(`written to ${out}`);
}
if (sink === -1) console.log(sink);
