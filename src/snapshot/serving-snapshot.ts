/**
 * The immutable snapshot every request is served from: all loaded chains'
 * pool tables, the cross-chain token index and the pre-encoded protocol list.
 * Built once per change, swapped in by one reference assignment.
 */
import type { ChainId } from "../chains/chains.js";
import type { Protocol } from "../api/wire.js";
import { evaluateTokenList } from "../query/evaluate-token-list.js";
import type { TokenIndexData } from "../query/token-index.js";
import { chainMask, DEFAULT_TOKEN_QUERY, tokenQueryKey, type TokenQuery } from "../query/token-query.js";
import { TokenListView } from "../query/token-list-view.js";
import { LruCache } from "../util/lru-cache.js";
import type { CompiledChain } from "./compiled-chain.js";
import { versionHex } from "./snapshot-version.js";

const CACHED_QUERIES_PER_SNAPSHOT = 256;

export class ServingSnapshot {
  readonly chains: ReadonlyMap<ChainId, CompiledChain>;
  /** Bit mask of the loaded chains (positions in SUPPORTED_CHAIN_IDS). */
  readonly loadedMask: number;
  /** `data` of GET /v1/protocols, encoded. */
  readonly protocolsJson: Buffer;
  readonly versionHex: string;
  private readonly views = new LruCache<string, TokenListView>(CACHED_QUERIES_PER_SNAPSHOT);

  constructor(
    /** Content-derived 48-bit version (snapshot-version.ts): the same chain files give the same version. */
    readonly version: number,
    chains: readonly CompiledChain[],
    readonly tokenIndex: TokenIndexData,
  ) {
    this.chains = new Map(chains.map((c) => [c.info.chainId, c]));
    this.loadedMask = chainMask(chains.map((c) => c.info.chainId));
    this.protocolsJson = Buffer.from(JSON.stringify({ protocols: mergeProtocols(chains) }));
    this.versionHex = versionHex(version);
    // Warm the default view so the most common request never computes.
    this.tokenList(DEFAULT_TOKEN_QUERY);
  }

  isLoaded(chainId: ChainId): boolean {
    return this.chains.has(chainId);
  }

  /** The full list of a query on this snapshot (computed once, then cached). */
  tokenList(query: TokenQuery, key = tokenQueryKey(query)): TokenListView {
    let view = this.views.get(key);
    if (view === undefined) {
      const mask = query.chainIds.length === 0 ? this.loadedMask : chainMask(query.chainIds) & this.loadedMask;
      view = new TokenListView(this.tokenIndex, evaluateTokenList(this.tokenIndex, query, mask));
      this.views.set(key, view);
    }
    return view;
  }
}

/** Protocols with a pool on any loaded chain, by id; the lowest chainId's record wins. */
function mergeProtocols(chains: readonly CompiledChain[]): Protocol[] {
  const byId = new Map<string, Protocol>();
  const ordered = [...chains].sort((a, b) => a.info.chainId - b.info.chainId);
  for (const chain of ordered) for (const p of chain.protocols) if (!byId.has(p.id)) byId.set(p.id, p);
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
