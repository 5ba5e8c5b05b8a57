/**
 * Compiles one validated chain snapshot into its serving form: token columns
 * for the cross-chain index and pre-encoded pool details.
 */
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../chains/chains.js";
import type { PoolToken, Protocol } from "../api/wire.js";
import { encodeStringColumn, sharedArray, utf8 } from "../util/shared-columns.js";
import type { ChainSnapshotInfo, ChainTokenColumns, CompiledChain } from "./compiled-chain.js";
import { toWirePool } from "./encode-pool.js";
import type { SnapshotFile, SnapshotToken } from "./format.js";
import { fillTokenDefaults } from "./normalize-token.js";
import { buildPoolTable } from "./pool-table.js";

export interface CompileChainSource {
  readonly file: string;
  readonly fileBytes: number;
  readonly fileMtimeMs: number;
  readonly logoTemplate: string;
}

/** A token with the gateway's defaults applied (native asset facts, normalized text, logo). */
interface ResolvedToken {
  readonly record: SnapshotToken;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  readonly normalizedSymbol: string;
  readonly normalizedName: string;
  readonly logoUrl: string;
}

function resolveToken(token: SnapshotToken, chainId: ChainId, logoTemplate: string): ResolvedToken {
  // api-decisions.md §4: the native asset carries the chain's native name, symbol and 18 decimals.
  const isNative = token.address === NATIVE_ADDRESS;
  const chain = CHAINS[chainId];
  const base = isNative
    ? { ...token, symbol: chain.nativeSymbol, name: chain.nativeName, decimals: 18 }
    : token;
  const filled = fillTokenDefaults(base, chainId, logoTemplate);
  return {
    record: token,
    symbol: base.symbol,
    name: base.name,
    decimals: base.decimals,
    normalizedSymbol: filled.normalizedSymbol,
    normalizedName: filled.normalizedName,
    logoUrl: filled.logoUrl,
  };
}

export function compileChain(snapshot: SnapshotFile, source: CompileChainSource): CompiledChain {
  const started = performance.now();
  const chainId = snapshot.chainId as ChainId;
  const tokens = snapshot.tokens.map((t) => resolveToken(t, chainId, source.logoTemplate));

  const tokenByAddress = new Map<string, PoolToken>();
  for (const t of tokens) {
    tokenByAddress.set(t.record.address, {
      chainId,
      address: t.record.address,
      decimals: t.decimals,
      name: t.name,
      symbol: t.symbol,
      logoUrl: t.logoUrl,
    });
  }
  const protocolById = new Map<string, Protocol>();
  for (const p of snapshot.protocols) protocolById.set(p.id, { id: p.id, name: p.name, logoUrl: p.logoUrl, url: p.url });

  const poolAddresses: string[] = new Array(snapshot.pools.length);
  const poolJson: Uint8Array[] = new Array(snapshot.pools.length);
  const usedProtocols = new Set<string>();
  for (let i = 0; i < snapshot.pools.length; i++) {
    const pool = snapshot.pools[i];
    poolAddresses[i] = pool.address;
    poolJson[i] = utf8(JSON.stringify(toWirePool(chainId, pool, tokenByAddress, protocolById)));
    usedProtocols.add(pool.protocolId);
  }

  const protocols = [...usedProtocols].sort().map((id) => protocolById.get(id)!);
  const info: ChainSnapshotInfo = {
    chainId,
    generatedAt: snapshot.generatedAt,
    blockNumber: snapshot.blockNumber ?? null,
    file: source.file,
    fileBytes: source.fileBytes,
    fileMtimeMs: source.fileMtimeMs,
    tokenCount: tokens.length,
    poolCount: snapshot.pools.length,
    buildMs: 0,
  };
  const compiled: CompiledChain = {
    info,
    protocols,
    pools: buildPoolTable(poolAddresses, poolJson),
    tokens: tokenColumns(tokens),
  };
  return { ...compiled, info: { ...info, buildMs: Math.round(performance.now() - started) } };
}

function tokenColumns(tokens: readonly ResolvedToken[]): ChainTokenColumns {
  const n = tokens.length;
  const tvl = sharedArray(Float64Array, n);
  const price = sharedArray(Float64Array, n);
  const swaps = sharedArray(Float64Array, n);
  const volume = sharedArray(Float64Array, n);
  for (let i = 0; i < n; i++) {
    const r = tokens[i].record;
    tvl[i] = r.trackedTotalValuePooledUsd;
    price[i] = r.trackedUsdPrice;
    swaps[i] = r.swapsCount;
    volume[i] = r.trackedSwapVolumeUsd;
  }
  return {
    count: n,
    address: encodeStringColumn(tokens.map((t) => t.record.address)),
    symbol: encodeStringColumn(tokens.map((t) => t.symbol)),
    name: encodeStringColumn(tokens.map((t) => t.name)),
    logoUrl: encodeStringColumn(tokens.map((t) => t.logoUrl)),
    normalizedSymbol: encodeStringColumn(tokens.map((t) => t.normalizedSymbol)),
    normalizedName: encodeStringColumn(tokens.map((t) => t.normalizedName)),
    tvl,
    price,
    swaps,
    volume,
  };
}
