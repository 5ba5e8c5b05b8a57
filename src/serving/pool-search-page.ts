/**
 * One page of a pool search (api-extended.md §10) on the served snapshots: the
 * search runs on the snapshot a cursor's walk started on while it keeps its
 * pool tables (else on the current one), from the position after the previous
 * page's last pool, and the page is written from each pool's pre-encoded
 * pool-details JSON, with the wrapped native token's JSON swapped for the
 * native asset's where `parseWrappedToNative` asks.
 */
import type { BasketCatalogue } from "../baskets/basket-catalogue.js";
import type { ChainId } from "../chains/chains.js";
import { PositionWriter } from "../query/cursor.js";
import { searchPools, type SearchPosition } from "../query/pool-search.js";
import { poolTypeMask, specSortKey, type PoolSearchSpec } from "../query/pool-search-query.js";
import { addressAt } from "../tables/address-hash-table.js";
import { poolJson } from "../tables/pool-table.js";
import type { CompiledChain } from "../tables/compiled-chain.js";
import type { Paging } from "./list-page.js";
import { assertPositionComplete, openCursor } from "./list-cursor.js";
import { resolveSearch } from "./pool-search-sides.js";
import type { ServingSnapshot } from "./serving-snapshot.js";
import { CursorKind } from "./version-retention.js";

/**
 * Appends the page's `data` JSON (`{"pools":[…],"filters":…,"nextCursor":…}`) to `out`; returns the snapshot that answered.
 * @param current the served snapshot (every chain the request names is loaded on it)
 * @param scope the cursor scope of the route and the spec
 * @param keyChains the chains the key may read (ascending), null for every chain
 */
export function writePoolSearchPage(
  out: (Uint8Array | string)[],
  ctx: Paging,
  current: ServingSnapshot,
  spec: PoolSearchSpec,
  scope: Buffer,
  cursorText: string | null | undefined,
  limit: number,
  baskets: BasketCatalogue,
  keyChains: readonly ChainId[] | null,
): ServingSnapshot {
  let snapshot = current;
  let after: SearchPosition | null = null;
  const cursor = openCursor(ctx.cursors, scope, cursorText);
  if (cursor !== null) {
    const position = { key: cursor.position.f64(), chainId: cursor.position.u32(), address: cursor.position.string() };
    assertPositionComplete(cursor, cursorText ?? "");
    after = position;
    // While the walk's snapshot keeps its pool tables, the next page comes from it; after that, from the current one.
    snapshot = ctx.store.versionWithPools(cursor.version) ?? current;
  }

  const { chains, toNative } = resolveSearch(spec, snapshot, snapshot.baskets(baskets), keyChains);
  const sortKey = specSortKey(spec);
  const page = searchPools(
    chains,
    { key: sortKey, descending: spec.descending, minTvl: spec.filters.minimumTotalValueLockedUsd, typeMask: poolTypeMask(spec.filters) },
    after,
    limit,
  );

  out.push('{"pools":[');
  for (let i = 0; i < page.pool.length; i++) {
    if (i > 0) out.push(",");
    const slot = page.chain[i];
    writePool(out, snapshot.chains.get(chains[slot].chainId as ChainId)!, page.pool[i], toNative[slot]);
  }
  let next = "null";
  if (page.more) {
    const last = page.pool.length - 1;
    const c = chains[page.chain[last]];
    const pool = page.pool[last];
    const position = new PositionWriter()
      .f64(c.index.keys[sortKey * c.index.poolCount + pool])
      .u32(c.chainId)
      .string(addressAt(c.pools, pool));
    next = JSON.stringify(ctx.cursors.encode(scope, snapshot.version, position.bytes()));
    ctx.store.cursorIssued(snapshot, CursorKind.Pools);
  }
  out.push(`],"filters":${JSON.stringify(spec.filters)},"nextCursor":${next}}`);
  return snapshot;
}

/**
 * The pool's pre-encoded JSON; when its wrapped native token is to be shown as
 * the native asset, the copies of the wrapped token's JSON object (offsets
 * recorded at encode time) are swapped for the chain's native token JSON.
 */
function writePool(out: (Uint8Array | string)[], chain: CompiledChain, pool: number, toNative: boolean): void {
  const json = poolJson(chain.pools, pool);
  const ix = chain.poolSearch;
  const from = ix.wrappedStart[pool];
  const to = ix.wrappedStart[pool + 1];
  if (!toNative || from === to) {
    out.push(json);
    return;
  }
  let at = 0;
  for (let s = from; s < to; s++) {
    const splice = ix.wrappedAt[s];
    out.push(json.subarray(at, splice), ix.nativeTokenJson);
    at = splice + ix.wrappedJsonBytes;
  }
  out.push(json.subarray(at));
}
