/**
 * A deliberately simple pool search (api-extended.md §10) for the tests: every pool of every
 * loaded chain is looked at, the rules are applied as the spec words them, and the result is
 * sorted with a comparator. Plus what the answer's bytes must be: each pool's GET
 * /v1/pools/{chainId}/{address} `data.pool` text, with the wrapped native token's JSON object
 * replaced by the native asset's where the rewrite applies.
 */
import { CHAINS, NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS, type ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile, SnapshotPool, SnapshotToken } from "../../src/api/snapshot-format.js";
import { templateLogo } from "./fixtures.js";

export interface BasketsJson {
  baskets: { id: string; name: string; description: string; logoUrl: string; addresses: Record<string, string[]> }[];
}

/** The request as sent (any subset of the body). */
export interface SearchRequest {
  tokensA?: { chainId: number; address: string }[];
  basketsA?: { basketId: string; chainIds?: number[] }[];
  tokensB?: { chainId: number; address: string }[];
  basketsB?: { basketId: string; chainIds?: number[] }[];
  filters?: {
    minimumTotalValueLockedUsd?: number;
    protocols?: string[];
    blockedProtocols?: string[];
    poolTypes?: string[];
    blockedPoolTypes?: string[];
  };
  config?: {
    limit?: number;
    cursor?: string | null;
    orderBy?: { field?: string; direction?: string; timeframe?: string };
    parseWrappedToNative?: string;
    useWrappedForNative?: boolean;
  };
}

export interface ReferencePool {
  chainId: number;
  address: string;
  /** The wrapped native token is shown as the native asset. */
  native: boolean;
}

const STATS = { "24h": "stats24h", "7d": "stats7d", "30d": "stats30d", "90d": "stats90d" } as const;
const FIELDS = { yield: "yield", volume: "swapVolumeUsd", fees: "feesUsd" } as const;

export function poolTvl(pool: SnapshotPool): number {
  return pool.trackedTotalValueLockedUsd ?? pool.totalValueLockedUsd;
}

function orderKey(pool: SnapshotPool, field: string, timeframe: string): number {
  if (field === "tvl") return poolTvl(pool);
  return pool.stats[STATS[timeframe as keyof typeof STATS]][FIELDS[field as keyof typeof FIELDS]];
}

/** "chainId:lowercase address" of every token of a side. */
function sideSet(
  tokens: SearchRequest["tokensA"],
  baskets: SearchRequest["basketsA"],
  basketsFile: BasketsJson,
  keyChains: readonly number[] | null,
): Set<string> {
  const out = new Set<string>();
  for (const t of tokens ?? []) out.add(`${t.chainId}:${t.address.toLowerCase()}`);
  for (const b of baskets ?? []) {
    const basket = basketsFile.baskets.find((x) => x.id === b.basketId)!;
    const chains = b.chainIds !== undefined && b.chainIds.length > 0 ? b.chainIds : (keyChains ?? SUPPORTED_CHAIN_IDS);
    for (const chainId of chains)
      for (const address of basket.addresses[String(chainId)] ?? []) out.add(`${chainId}:${address.toLowerCase()}`);
  }
  return out;
}

export function effectiveFilters(request: SearchRequest) {
  const f = request.filters ?? {};
  return {
    minimumTotalValueLockedUsd: f.minimumTotalValueLockedUsd ?? 0,
    protocols: f.protocols ?? [],
    blockedProtocols: f.blockedProtocols ?? [],
    poolTypes: f.poolTypes ?? [],
    blockedPoolTypes: f.blockedPoolTypes ?? [],
  };
}

export function referencePoolSearch(
  files: readonly SnapshotFile[],
  basketsFile: BasketsJson,
  request: SearchRequest,
  keyChains: readonly number[] | null = null,
): ReferencePool[] {
  const a = sideSet(request.tokensA, request.basketsA, basketsFile, keyChains);
  const hasB = (request.tokensB?.length ?? 0) > 0 || (request.basketsB?.length ?? 0) > 0;
  const b = hasB ? sideSet(request.tokensB, request.basketsB, basketsFile, keyChains) : null;
  const nativeNamed = (chainId: number) => a.has(`${chainId}:${NATIVE_ADDRESS}`) || (b?.has(`${chainId}:${NATIVE_ADDRESS}`) ?? false);
  const useWrapped = request.config?.useWrappedForNative ?? true;
  const withWrapped = (set: Set<string>) => {
    const out = new Set(set);
    if (useWrapped)
      for (const chainId of SUPPORTED_CHAIN_IDS)
        if (set.has(`${chainId}:${NATIVE_ADDRESS}`)) out.add(`${chainId}:${CHAINS[chainId].wrappedNative}`);
    return out;
  };
  const setA = withWrapped(a);
  const setB = b === null ? null : withWrapped(b);
  const f = effectiveFilters(request);
  const field = request.config?.orderBy?.field ?? "tvl";
  const timeframe = request.config?.orderBy?.timeframe ?? "24h";
  const descending = (request.config?.orderBy?.direction ?? "desc") === "desc";
  const mode = request.config?.parseWrappedToNative ?? "AUTO";

  const found: { key: number; pool: ReferencePool }[] = [];
  for (const file of files) {
    const c = file.chainId;
    for (const pool of file.pools) {
      const tokens = pool.tokens.map((t) => `${c}:${t.address}`);
      let match = false;
      if (setB === null) match = tokens.some((t) => setA.has(t));
      else {
        for (let i = 0; i < tokens.length; i++) {
          for (let j = 0; j < tokens.length; j++) if (i !== j && setA.has(tokens[i]) && setB.has(tokens[j])) match = true;
        }
      }
      if (!match) continue;
      if (!(poolTvl(pool) >= f.minimumTotalValueLockedUsd)) continue;
      if (f.protocols.length > 0 && !f.protocols.includes(pool.protocolId)) continue;
      if (f.blockedProtocols.includes(pool.protocolId)) continue;
      if (f.poolTypes.length > 0 && !f.poolTypes.includes(pool.type)) continue;
      if (f.blockedPoolTypes.includes(pool.type)) continue;
      const native = mode === "ALWAYS" || (mode === "AUTO" && nativeNamed(c));
      found.push({ key: orderKey(pool, field, timeframe), pool: { chainId: c, address: pool.address, native } });
    }
  }
  found.sort((x, y) => {
    if (x.key !== y.key) return descending ? y.key - x.key : x.key - y.key;
    if (x.pool.chainId !== y.pool.chainId) return x.pool.chainId - y.pool.chainId;
    return x.pool.address < y.pool.address ? -1 : x.pool.address > y.pool.address ? 1 : 0;
  });
  return found.map((x) => x.pool);
}

/** A pool token's JSON object as pool details write it. */
function tokenJson(chainId: number, t: SnapshotToken): string {
  return JSON.stringify({
    chainId,
    address: t.address,
    decimals: t.decimals,
    name: t.name,
    symbol: t.symbol,
    logoUrl: t.logoUrl ?? templateLogo(chainId, t.address),
  });
}

/** The native asset as §10 shows it: §6 name and symbol, 18 decimals, the native record's logo, else the template's. */
export function nativeTokenJson(file: SnapshotFile): string {
  const chain = CHAINS[file.chainId as ChainId];
  const record = file.tokens.find((t) => t.address === NATIVE_ADDRESS);
  return JSON.stringify({
    chainId: file.chainId,
    address: NATIVE_ADDRESS,
    decimals: 18,
    name: chain.nativeName,
    symbol: chain.nativeSymbol,
    logoUrl: record?.logoUrl ?? templateLogo(file.chainId, NATIVE_ADDRESS),
  });
}

/** The text a search answers for one pool, from its pool-details `data.pool` text. */
export function expectedPoolText(file: SnapshotFile, detailsText: string, native: boolean): string {
  if (!native) return detailsText;
  const wrapped = file.tokens.find((t) => t.address === CHAINS[file.chainId as ChainId].wrappedNative);
  if (wrapped === undefined) return detailsText;
  return detailsText.split(tokenJson(file.chainId, wrapped)).join(nativeTokenJson(file));
}

/** The `data.pool` text of a pool-details response body. */
export function detailsPoolText(responseText: string): string {
  const start = responseText.indexOf('"data":{"pool":') + '"data":{"pool":'.length;
  return responseText.slice(start, responseText.length - 2);
}

/** The `data` text of a success response body. */
export function dataText(responseText: string): string {
  return responseText.slice(responseText.indexOf('"data":') + '"data":'.length, responseText.length - 1);
}
