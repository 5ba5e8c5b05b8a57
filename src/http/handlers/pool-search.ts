/**
 * POST /v1/pools/search (api-extended.md §10): validates the body, resolves
 * sides A and B from tokens and baskets, runs the search on the snapshot a
 * cursor's walk started on while it is kept (else the current one), from the
 * position after the previous page's last pool, and answers each pool's
 * pre-encoded pool-details JSON (with the wrapped native token's JSON swapped
 * for the native asset's where `parseWrappedToNative` asks).
 */
import { CursorKind } from "../../snapshot/version-retention.js";
import typia from "typia";
import { DEFAULT_POOL_SEARCH_LIMIT } from "../../api/limits.js";
import { assertChainAllowed } from "../../access/restrictions.js";
import type { KeyEntry } from "../../access/key-store.js";
import type { BasketSelection, TokenAddressInput, PoolSearchRequest } from "../../api/wire.js";
import type { BasketCatalogue } from "../../baskets/basket-catalogue.js";
import type { ChainId } from "../../chains/chains.js";
import { PositionWriter } from "../../query/cursor.js";
import { searchPools, type SearchPosition } from "../../query/pool-search.js";
import { poolSearchKey, poolTypeMask, specSortKey, toPoolSearchSpec } from "../../query/pool-search-query.js";
import { resolveSearch } from "../../query/pool-search-sides.js";
import { addressAt } from "../../tables/address-hash-table.js";
import type { CompiledChain } from "../../tables/compiled-chain.js";
import { requireLoadedChain, requireSnapshot } from "../chain-availability.js";
import { ApiError } from "../../api/errors.js";
import { assertPositionComplete, openCursor } from "../list-cursor.js";
import { dataReply, type Chunk, type Reply } from "../reply.js";
import type { RouteRequest } from "../route.js";
import { tokenListsFailure } from "../token-address-lists.js";
import { constraintError } from "../validation-error.js";

const validateRequest = typia.createValidateEquals<PoolSearchRequest>();

/** The cursor scope of this list (the route's name). */
const SCOPE = "pools.search";

const PROTOCOL_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const TOKEN_LISTS = ["tokensA", "tokensB"] as const;
const BASKET_LISTS = ["basketsA", "basketsB"] as const;

export function searchPoolsRoute(request: RouteRequest): Reply {
  const body = validatedBody(request.body);
  assertSideA(body);
  assertProtocolIds(body.filters?.protocols);
  assertProtocolIds(body.filters?.blockedProtocols);
  assertBasketIds(body, request.ctx.baskets);
  const key = request.key!;
  const named = namedChains(body, key);
  const { ctx } = request;
  const current = requireSnapshot(ctx.store.current);
  for (const chainId of named) requireLoadedChain(current, chainId);

  const spec = toPoolSearchSpec(body);
  const scope = ctx.cursors.scope(SCOPE, poolSearchKey(spec));
  const limit = body.config?.limit ?? DEFAULT_POOL_SEARCH_LIMIT;
  let snapshot = current;
  let after: SearchPosition | null = null;
  const cursor = openCursor(ctx, scope, body.config?.cursor);
  if (cursor !== null) {
    const position = { key: cursor.position.f64(), chainId: cursor.position.u32(), address: cursor.position.string() };
    assertPositionComplete(cursor, body.config!.cursor!);
    after = position;
    // While the walk's snapshot keeps its pool tables, the next page comes from it; after that, from the current one.
    snapshot = ctx.store.versionWithPools(cursor.version) ?? current;
  }

  const { chains, toNative } = resolveSearch(spec, snapshot, snapshot.baskets(ctx.baskets), key.allowedChainIds);
  const sortKey = specSortKey(spec);
  const page = searchPools(chains, { key: sortKey, descending: spec.descending, minTvl: spec.filters.minimumTotalValueLockedUsd, typeMask: poolTypeMask(spec.filters) }, after, limit);

  const data: Chunk[] = ['{"pools":['];
  for (let i = 0; i < page.pool.length; i++) {
    if (i > 0) data.push(",");
    const slot = page.chain[i];
    writePool(data, snapshot.chains.get(chains[slot].chainId as ChainId)!, page.pool[i], toNative[slot]);
  }
  let next = "null";
  if (page.more) {
    const last = page.pool.length - 1;
    const c = chains[page.chain[last]];
    const pool = page.pool[last];
    const position = new PositionWriter().f64(c.index.keys[sortKey * c.index.poolCount + pool]).u32(c.chainId).string(addressAt(c.pools, pool));
    next = JSON.stringify(ctx.cursors.encode(scope, snapshot.version, position.bytes()));
    ctx.store.cursorIssued(snapshot, CursorKind.Pools);
  }
  data.push(`],"filters":${JSON.stringify(spec.filters)},"nextCursor":${next}}`);
  return dataReply(data, snapshot.versionHex);
}

/**
 * The pool's pre-encoded JSON; when its wrapped native token is to be shown as
 * the native asset, the copies of the wrapped token's JSON object (offsets
 * recorded at encode time) are swapped for the chain's native token JSON.
 */
function writePool(out: Chunk[], chain: CompiledChain, pool: number, toNative: boolean): void {
  const { bytes, offsets } = chain.pools.json;
  const start = offsets[pool];
  const end = offsets[pool + 1];
  const ix = chain.poolSearch;
  const from = ix.wrappedStart[pool];
  const to = ix.wrappedStart[pool + 1];
  if (!toNative || from === to) {
    out.push(bytes.subarray(start, end));
    return;
  }
  let at = start;
  for (let s = from; s < to; s++) {
    const splice = start + ix.wrappedAt[s];
    out.push(bytes.subarray(at, splice), ix.nativeTokenJson);
    at = splice + ix.wrappedJsonBytes;
  }
  out.push(bytes.subarray(at, end));
}

/** The request, or its first problem (token-address-lists.ts). */
function validatedBody(input: unknown): PoolSearchRequest {
  const result = validateRequest(input);
  if (result.success) return result.data;
  throw tokenListsFailure(input, result.errors, TOKEN_LISTS);
}

function assertSideA(body: PoolSearchRequest): void {
  if ((body.tokensA?.length ?? 0) > 0 || (body.basketsA?.length ?? 0) > 0) return;
  throw constraintError(
    "tokensA",
    body.tokensA,
    "isNotEmpty",
    "tokensA should not be empty",
    "Side A (tokensA and/or basketsA) must name at least one token or basket; side B alone is not a search.",
  );
}

function assertProtocolIds(ids: readonly string[] | undefined): void {
  if (ids === undefined) return;
  const invalidItems = ids.filter((id) => !PROTOCOL_ID.test(id));
  if (invalidItems.length === 0) return;
  throw new ApiError(
    "INVALID_PROTOCOL_ID",
    `Not a protocol id: ${invalidItems.slice(0, 5).map((id) => JSON.stringify(id.slice(0, 80))).join(", ")}; protocol ids are lowercase words joined by dashes, e.g. uniswap-v3.`,
    "Protocol ids match ^[a-z0-9]+(-[a-z0-9]+)*$; GET /v1/protocols lists them.",
    { received: ids, invalidItems },
  );
}

function assertBasketIds(body: PoolSearchRequest, baskets: BasketCatalogue): void {
  for (const list of BASKET_LISTS) {
    for (const selection of body[list] ?? []) {
      if (baskets.get(selection.basketId) !== undefined) continue;
      throw new ApiError(
        "INVALID_BASKET_ID",
        `There is no basket "${selection.basketId.slice(0, 80)}"; GET /v1/tokens/baskets lists the baskets.`,
        `Known basket ids: ${baskets.ids().join(", ") || "none (the gateway has no baskets file)"}.`,
        { basketId: selection.basketId, supportedIds: baskets.ids() },
      );
    }
  }
}

/** The chains the body names (tokens' chains, baskets' chainIds), each allowed for the key (else 403). */
function namedChains(body: PoolSearchRequest, key: KeyEntry): Set<ChainId> {
  const named = new Set<ChainId>();
  const tokens: (TokenAddressInput[] | undefined)[] = [body.tokensA, body.tokensB];
  for (const list of tokens) for (const t of list ?? []) named.add(t.chainId);
  const baskets: (BasketSelection[] | undefined)[] = [body.basketsA, body.basketsB];
  for (const list of baskets) for (const b of list ?? []) for (const chainId of b.chainIds ?? []) named.add(chainId);
  for (const chainId of named) assertChainAllowed(key, chainId);
  return named;
}
