/**
 * POST /v1/pools/search (api-extended.md §10): validates the body (sides,
 * protocol ids, basket ids, the chains the key may read and that are loaded),
 * then answers the page the serving layer finds (serving/pool-search-page.ts).
 */
import typia from "typia";
import type { KeyEntry } from "../../access/key-store.js";
import { assertChainAllowed } from "../../access/restrictions.js";
import { ApiError } from "../../api/errors.js";
import { DEFAULT_POOL_SEARCH_LIMIT } from "../../api/limits.js";
import type { BasketSelection, PoolSearchRequest, TokenAddressInput } from "../../api/wire.js";
import type { BasketCatalogue } from "../../baskets/basket-catalogue.js";
import type { ChainId } from "../../chains/chains.js";
import { poolSearchKey, toPoolSearchSpec } from "../../query/pool-search-query.js";
import { writePoolSearchPage } from "../../serving/pool-search-page.js";
import { requireLoadedChain, requireSnapshot } from "../chain-availability.js";
import { dataReply, type Chunk, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { tokenListsFailure } from "../token-address-lists.js";
import { constraintError } from "../validation-error.js";

const validateRequest = typia.createValidateEquals<PoolSearchRequest>();

/** The cursor scope of this list (the route's name). */
const SCOPE = "pools.search";

const PROTOCOL_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const TOKEN_LISTS = ["tokensA", "tokensB"] as const;
const BASKET_LISTS = ["basketsA", "basketsB"] as const;

export function searchPoolsRoute(request: KeyedRequest): Reply {
  const body = validatedBody(request.body);
  assertSideA(body);
  assertProtocolIds(body.filters?.protocols);
  assertProtocolIds(body.filters?.blockedProtocols);
  assertBasketIds(body, request.ctx.baskets);
  const key = request.key;
  const named = namedChains(body, key);
  const { ctx } = request;
  const current = requireSnapshot(ctx.store.current);
  for (const chainId of named) requireLoadedChain(current, chainId);

  const spec = toPoolSearchSpec(body);
  const scope = ctx.cursors.scope(SCOPE, poolSearchKey(spec));
  const data: Chunk[] = [];
  const snapshot = writePoolSearchPage(
    data,
    ctx,
    current,
    spec,
    scope,
    body.config?.cursor,
    body.config?.limit ?? DEFAULT_POOL_SEARCH_LIMIT,
    ctx.baskets,
    key.allowedChainIds,
  );
  return dataReply(data, snapshot.versionHex);
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
    `Not a protocol id: ${invalidItems
      .slice(0, 5)
      .map((id) => JSON.stringify(id.slice(0, 80)))
      .join(", ")}; protocol ids are lowercase words joined by dashes, e.g. uniswap-v3.`,
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
