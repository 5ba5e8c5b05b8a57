/**
 * Compiles one validated chain snapshot (token defaults filled) into its
 * serving form: token columns for the cross-chain index, pre-encoded pool
 * details and the pool-search index.
 */
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../chains/chains.js";
import type { PoolToken, Protocol } from "../api/wire.js";
import { encodeStringColumn, sharedArray, StringColumnBuilder, utf8 } from "../tables/shared-columns.js";
import type { ChainSnapshotInfo, ChainTokenColumns, CompiledChain } from "../tables/compiled-chain.js";
import { PoolSearchIndexBuilder } from "./compile-pool-search.js";
import { PoolJsonEncoder } from "./encode-pool.js";
import { tokenLogoUrl, type NormalizedSnapshotToken } from "./normalize-token.js";
import { buildPoolTable } from "../tables/pool-table.js";
import type { NormalizedSnapshotFile } from "./read-snapshot-file.js";
import { poolArray, type PoolSource } from "./pool-stream.js";
import { compileTokenRun } from "./compile-token-run.js";

/** First guess of a pool's JSON size (the column grows if pools are larger). */
const EXPECTED_POOL_JSON_BYTES = 3072;

export interface CompileChainSource {
  readonly file: string;
  readonly fileBytes: number;
  readonly sha256: string;
  readonly fileMtimeMs: number;
  /** The token logo URL template (the native asset's logo when the chain has no native token record). */
  readonly logoTemplate: string;
}

/**
 * @param poolSource the snapshot's pools, taken one at a time (a streamed file's
 *   pools are decoded and validated as they are taken: see pool-stream.ts)
 */
export function compileChain(
  snapshot: NormalizedSnapshotFile,
  source: CompileChainSource,
  poolSource: PoolSource = poolArray(snapshot.pools),
): CompiledChain {
  const started = performance.now();
  const chainId = snapshot.chainId as ChainId;

  const encoder = new PoolJsonEncoder(chainId, snapshot.tokens, snapshot.protocols);
  const protocolById = new Map<string, Protocol>();
  for (const p of snapshot.protocols) protocolById.set(p.id, { id: p.id, name: p.name, logoUrl: p.logoUrl, url: p.url });

  const poolCount = poolSource.count;
  const poolAddresses: string[] = new Array(poolCount);
  const poolJson = new StringColumnBuilder(poolCount, poolCount * EXPECTED_POOL_JSON_BYTES);
  const search = new PoolSearchIndexBuilder({
    chainId,
    tokenCount: snapshot.tokens.length,
    protocolIds: snapshot.protocols.map((p) => p.id),
    poolCount,
    wrappedRow: encoder.wrappedRow,
    wrappedJsonBytes: encoder.wrappedJsonBytes,
    nativeTokenJson: encoder.tokenJsonOf(NATIVE_ADDRESS) ?? nativeTokenJson(chainId, source.logoTemplate),
  });
  const usedProtocols = new Set<string>();
  for (let i = 0; i < poolCount; i++) {
    const pool = poolSource.next();
    poolAddresses[i] = pool.address;
    encoder.write(pool, poolJson);
    search.add(pool, encoder.lastTokenRows(), encoder.wrappedOffsets);
    usedProtocols.add(pool.protocolId);
  }

  const pools = buildPoolTable(poolAddresses, poolJson.finish());
  const tokens = tokenColumns(snapshot.tokens);
  const tokenRun = compileTokenRun(chainId, tokens);
  const poolSearch = search.finish(poolAddresses);
  const info: ChainSnapshotInfo = {
    chainId,
    generatedAt: snapshot.generatedAt,
    blockNumber: snapshot.blockNumber ?? null,
    file: source.file,
    fileBytes: source.fileBytes,
    sha256: source.sha256,
    fileMtimeMs: source.fileMtimeMs,
    tokenCount: snapshot.tokens.length,
    poolCount,
    buildMs: Math.round(performance.now() - started),
  };
  return { info, protocols: [...usedProtocols].sort().map((id) => protocolById.get(id)!), pools, tokens, tokenRun, poolSearch };
}

/** The native asset as a pool token when the chain's snapshot has no record of it (api-decisions.md §6). */
function nativeTokenJson(chainId: ChainId, logoTemplate: string): Uint8Array {
  const chain = CHAINS[chainId];
  const token: PoolToken = {
    chainId,
    address: NATIVE_ADDRESS,
    decimals: 18,
    name: chain.nativeName,
    symbol: chain.nativeSymbol,
    logoUrl: tokenLogoUrl(logoTemplate, chainId, NATIVE_ADDRESS),
  };
  return utf8(JSON.stringify(token));
}

function tokenColumns(tokens: readonly NormalizedSnapshotToken[]): ChainTokenColumns {
  const n = tokens.length;
  const tvl = sharedArray(Float64Array, n);
  const price = sharedArray(Float64Array, n);
  const swaps = sharedArray(Float64Array, n);
  const volume = sharedArray(Float64Array, n);
  const decimals = sharedArray(Uint8Array, n);
  for (let i = 0; i < n; i++) {
    const t = tokens[i];
    decimals[i] = t.decimals;
    tvl[i] = t.trackedTotalValuePooledUsd;
    price[i] = t.trackedUsdPrice;
    swaps[i] = t.swapsCount;
    volume[i] = t.trackedSwapVolumeUsd;
  }
  return {
    count: n,
    address: encodeStringColumn(tokens.map((t) => t.address)),
    symbol: encodeStringColumn(tokens.map((t) => t.symbol)),
    name: encodeStringColumn(tokens.map((t) => t.name)),
    logoUrl: encodeStringColumn(tokens.map((t) => t.logoUrl)),
    normalizedSymbol: encodeStringColumn(tokens.map((t) => t.normalizedSymbol)),
    normalizedName: encodeStringColumn(tokens.map((t) => t.normalizedName)),
    decimals,
    tvl,
    price,
    swaps,
    volume,
  };
}
