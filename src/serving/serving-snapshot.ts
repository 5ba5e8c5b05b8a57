/**
 * The immutable snapshot every request is served from: all loaded chains'
 * pool tables, the cross-chain token index and the pre-encoded protocol list.
 * Built once per change, swapped in by one reference assignment.
 */
import type { ChainId } from "../chains/chains.js";
import type { Protocol } from "../api/wire.js";
import type { BasketCatalogue } from "../baskets/basket-catalogue.js";
import { BasketView } from "./basket-view.js";
import { evaluateTokenList, restrictTokenList } from "../query/evaluate-token-list.js";
import { matchedGroups, matchSearchTerm, searchTerm } from "../query/search-match.js";
import { evaluateSingleChain } from "../query/single-chain-list.js";
import { SingleChainView } from "../query/single-chain-view.js";
import type { TokenIndexData } from "../tables/token-index.js";
import {
  chainBitOf,
  chainMask,
  DEFAULT_TOKEN_QUERY,
  singleChainKey,
  tokenQueryKey,
  tokenSearchKey,
  type SingleChainQuery,
  type TokenQuery,
  type TokenSearchQuery,
} from "../query/token-query.js";
import { TokenListView } from "../query/token-list-view.js";
import { LruCache } from "../util/lru-cache.js";
import type { CompiledChain } from "../tables/compiled-chain.js";
import { versionHex } from "../api/snapshot-version.js";
import type { ChangeHistoryMessage } from "../tables/change-sets.js";
import { findPool, poolJson } from "../tables/pool-table.js";
import { instanceOnChain, parseAddress, tokenInfoChunks } from "../tables/token-lookup.js";
import { ServedChanges } from "./served-changes.js";
import { SlicedUtf8 } from "../util/sliced-utf8.js";

const CACHED_QUERIES_PER_SNAPSHOT = 256;
const DEFAULT_TOKEN_QUERY_KEY = tokenQueryKey(DEFAULT_TOKEN_QUERY);
/** Most bytes the cached searches (and, separately, single-chain lists) of one snapshot hold in one thread. */
const CACHED_RESULT_BYTES = 32 * 1024 * 1024;
/** A search whose matches lie in more than 1/4 of the symbol groups restricts the cached list of its filters. */
const BROAD_MATCH_SHARE = 4;

export class ServingSnapshot {
  /** The chains this version holds, ascending. */
  readonly chainIds: readonly ChainId[];
  /** Every chain's pool tables; null once released (an earlier version kept for token-list cursors only). */
  private poolTables: ReadonlyMap<ChainId, CompiledChain> | null;
  /** Bit mask of the loaded chains (positions in SUPPORTED_CHAIN_IDS). */
  readonly loadedMask: number;
  /** `data` of GET /v1/protocols, encoded. */
  readonly protocolsJson: Buffer;
  readonly versionHex: string;
  private readonly views = new LruCache<string, TokenListView>(CACHED_QUERIES_PER_SNAPSHOT);
  private readonly searches = new LruCache<string, TokenListView>(CACHED_QUERIES_PER_SNAPSHOT, CACHED_RESULT_BYTES, (v) => v.weight);
  private readonly chainLists = new LruCache<string, SingleChainView>(CACHED_QUERIES_PER_SNAPSHOT, CACHED_RESULT_BYTES, (v) => v.weight);
  private basketView: BasketView | null = null;
  /** The index's search strings, decoded once per thread (see TokenIndexData.searchText and `warm`). */
  private readonly searchStrings: SlicedUtf8;
  /** The change sets this version carries (live.md §12): history, position, the sets it introduced. */
  readonly changes: ServedChanges;
  /** `x-data-generated-at` of each loaded chain: its served file's generatedAt, written once per snapshot. */
  private readonly generatedAtHeaders = new Map<ChainId, string>();

  constructor(
    /** Content-derived 48-bit version (snapshot-version.ts): the same chain files give the same version. */
    readonly version: number,
    chainIds: readonly ChainId[],
    /** Pool tables of every chain in chainIds; null for a version kept for token-list cursors only. */
    chains: readonly CompiledChain[] | null,
    readonly tokenIndex: TokenIndexData,
    /** The retained change sets (src/server/messages.ts); null: none (a snapshot built outside the loader). */
    changes: ChangeHistoryMessage | null = null,
  ) {
    this.chainIds = [...chainIds].sort((a, b) => a - b);
    this.changes = new ServedChanges(changes);
    for (const chain of chains ?? []) this.generatedAtHeaders.set(chain.info.chainId, String(chain.info.generatedAt));
    for (const chainId of this.chainIds) {
      const latest = this.changes.latest(chainId);
      if (!this.generatedAtHeaders.has(chainId) && latest !== undefined) this.generatedAtHeaders.set(chainId, String(latest.generatedAt));
    }
    this.poolTables = chains === null ? null : new Map(chains.map((c) => [c.info.chainId, c]));
    this.loadedMask = chainMask(this.chainIds);
    this.protocolsJson = Buffer.from(JSON.stringify({ protocols: mergeProtocols(chains ?? []) }));
    this.versionHex = versionHex(version);
    this.searchStrings = new SlicedUtf8(tokenIndex.searchText);
    // The default view, from the list evaluated with the index: the most common request never computes, nor does the swap.
    this.tokenList(DEFAULT_TOKEN_QUERY, DEFAULT_TOKEN_QUERY_KEY);
  }

  /** A version with every chain's pool tables (what the loader builds). */
  static of(
    version: number,
    chains: readonly CompiledChain[],
    tokenIndex: TokenIndexData,
    changes: ChangeHistoryMessage | null = null,
  ): ServingSnapshot {
    return new ServingSnapshot(
      version,
      chains.map((c) => c.info.chainId),
      chains,
      tokenIndex,
      changes,
    );
  }

  /**
   * One step of the work this snapshot defers from its swap (decoding the index's search strings, about
   * 1 ms a step): the serving thread calls it between requests until it says false. A search that comes
   * first finishes it.
   */
  warm(): boolean {
    return this.searchStrings.step();
  }

  /** The index's search strings as one string (see TokenIndexData.searchText). */
  get searchText(): string {
    return this.searchStrings.text();
  }

  isLoaded(chainId: ChainId): boolean {
    return (this.loadedMask & chainBitOf(chainId)) !== 0;
  }

  /** `x-data-generated-at` of a loaded chain (the generatedAt of its served file, as text); undefined when not loaded. */
  dataGeneratedAt(chainId: ChainId): string | undefined {
    return this.generatedAtHeaders.get(chainId);
  }

  /**
   * A pool's JSON as GET /v1/pools/{chainId}/{poolAddress} answers it (`data.pool`, the pre-encoded bytes), or
   * null when the chain is not loaded or has no such pool. `address` in any letter case. Needs the pool tables.
   */
  poolJson(chainId: ChainId, address: string): Uint8Array | null {
    const chain = this.chains.get(chainId);
    if (chain === undefined) return null;
    const index = findPool(chain.pools, address);
    return index < 0 ? null : poolJson(chain.pools, index);
  }

  /**
   * A token's JSON as GET /v1/tokens/{chainId}/{tokenAddress} answers it (`data.token`: SingleChainTokenInfo),
   * or null when the chain is not loaded or has no such token. `address`: `0x` + 40 hex, any letter case.
   */
  tokenJson(chainId: ChainId, address: string): Uint8Array | null {
    const bytes = parseAddress(address);
    if (bytes === null || !this.isLoaded(chainId)) return null;
    const i = instanceOnChain(this.tokenIndex, chainId, bytes);
    if (i < 0) return null;
    const [head, tail] = tokenInfoChunks(this.tokenIndex, i);
    return Buffer.concat([head, Buffer.from(tail)]);
  }

  /** Every chain's pool tables (pool details, pool search). Only a version with hasPools has them. */
  get chains(): ReadonlyMap<ChainId, CompiledChain> {
    if (this.poolTables === null) throw new Error(`snapshot ${this.versionHex}: its pool tables were released`);
    return this.poolTables;
  }

  get hasPools(): boolean {
    return this.poolTables !== null;
  }

  /** Lets the pool tables go (an earlier version that only token-list cursors still use). */
  releasePools(): void {
    this.poolTables = null;
  }

  /** The full list of a query on this snapshot (computed once, then cached). */
  tokenList(query: TokenQuery, key = tokenQueryKey(query)): TokenListView {
    let view = this.views.get(key);
    if (view === undefined) {
      const mask = query.chainIds.length === 0 ? this.loadedMask : chainMask(query.chainIds) & this.loadedMask;
      const built = this.tokenIndex.defaultList;
      const result = key === DEFAULT_TOKEN_QUERY_KEY && mask === built.mask ? built.list : evaluateTokenList(this.tokenIndex, query, mask);
      view = new TokenListView(this.tokenIndex, result, query.direction);
      this.views.set(key, view);
    }
    return view;
  }

  /** The full result of a multi-chain search on this snapshot (cached, bounded). */
  tokenSearch(query: TokenSearchQuery, key = tokenSearchKey(query)): TokenListView {
    let view = this.searches.get(key);
    if (view === undefined) {
      view = this.evaluateTokenSearch(query);
      this.searches.set(key, view);
    }
    return view;
  }

  /**
   * A multi-chain search computed now (what a cache miss costs): the groups
   * holding a match are evaluated; when they are most groups, the list of the
   * search's filters (cached like any token list) is restricted instead.
   */
  evaluateTokenSearch(query: TokenSearchQuery): TokenListView {
    const ix = this.tokenIndex;
    const mask = query.chainIds.length === 0 ? this.loadedMask : chainMask(query.chainIds) & this.loadedMask;
    const byRelevance = query.orderBy === "relevance";
    const match = matchSearchTerm(ix, this.searchText, searchTerm(query.term), mask, byRelevance);
    const candidates = matchedGroups(ix, match);
    const result =
      candidates.groupCount * BROAD_MATCH_SHARE < ix.groupCount
        ? evaluateTokenList(ix, query, mask, { tier: match.tier, ...candidates, byRelevance })
        : restrictTokenList(
            this.tokenList({ ...query, direction: byRelevance ? "desc" : query.direction }).result,
            match.tier,
            byRelevance,
          );
    return new TokenListView(ix, result, byRelevance ? "relevance" : query.direction);
  }

  /**
   * The baskets of a baskets file resolved on this snapshot (basket-view.ts): built on the first
   * use of the pair (the serving thread warms it when the snapshot or the file changes), then
   * shared by every request until either changes.
   */
  baskets(catalogue: BasketCatalogue): BasketView {
    if (this.basketView?.catalogue !== catalogue) this.basketView = new BasketView(catalogue, this.tokenIndex);
    return this.basketView;
  }

  /** The full result of a single-chain list or search on this snapshot (cached, bounded). */
  singleChain(query: SingleChainQuery, key = singleChainKey(query)): SingleChainView {
    let view = this.chainLists.get(key);
    if (view === undefined) {
      view = this.evaluateSingleChain(query);
      this.chainLists.set(key, view);
    }
    return view;
  }

  /** A single-chain list or search computed now (what a cache miss costs). */
  evaluateSingleChain(query: SingleChainQuery): SingleChainView {
    const ix = this.tokenIndex;
    const byRelevance = query.orderBy === "relevance";
    const match =
      query.term === null ? null : matchSearchTerm(ix, this.searchText, searchTerm(query.term), chainBitOf(query.chainId), byRelevance);
    return new SingleChainView(ix, evaluateSingleChain(ix, query, match), byRelevance ? "relevance" : query.direction);
  }
}

/** Protocols with a pool on any loaded chain, by id; the lowest chainId's record wins. */
function mergeProtocols(chains: readonly CompiledChain[]): Protocol[] {
  const byId = new Map<string, Protocol>();
  const ordered = [...chains].sort((a, b) => a.info.chainId - b.info.chainId);
  for (const chain of ordered) for (const p of chain.protocols) if (!byId.has(p.id)) byId.set(p.id, p);
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
