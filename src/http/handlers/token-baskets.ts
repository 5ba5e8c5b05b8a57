/**
 * GET /v1/tokens/baskets, GET /v1/tokens/baskets/{basketId} and
 * GET /v1/tokens/baskets/{chainId}/{basketId} (api-extended.md §9, §11): the
 * operator's baskets on the chains in scope — the chains named, else every
 * supported chain the key may read — with the metadata of the addresses the
 * loaded snapshots hold.
 */
import typia from "typia";
import { assertChainAllowed } from "../../access/restrictions.js";
import type { TokenBasketQuery, TokenBasketsQuery } from "../../api/wire.js";
import type { Basket } from "../../baskets/basket-catalogue.js";
import { SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../../chains/chains.js";
import { BasketView } from "../../serving/basket-view.js";
import { requireLoadedChain } from "../chain-availability.js";
import { ApiError } from "../../api/errors.js";
import type { GatewayContext } from "../gateway-context.js";
import { parsePathChainId } from "../path-parameters.js";
import { parseQuery } from "../query-params.js";
import { dataReply, type Chunk, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { validateNoQuery } from "./token-lookup.js";

const validateBasketsQuery = typia.createValidateEquals<TokenBasketsQuery>();
const validateBasketQuery = typia.createValidateEquals<TokenBasketQuery>();

/**
 * The view of the baskets in force on the served snapshot, resolved once per (baskets file, snapshot);
 * without a snapshot: addresses, no tokens (a view that resolves nothing and joins pre-encoded pieces).
 */
function basketView(ctx: GatewayContext): BasketView {
  return ctx.store.current?.baskets(ctx.baskets) ?? new BasketView(ctx.baskets, null);
}

/**
 * Names an answer's bytes within the snapshot for the compression cache (the baskets file's revision,
 * the scope, the basket or `*` for every one): a few kinds per file and scope, so each is compressed once.
 */
function answerKey(request: KeyedRequest, scope: readonly ChainId[], basketId: string): string {
  return `${request.routeName}:${request.ctx.baskets.revision}:${scope.join(",")}:${basketId}`;
}

/** Named chains (allowed for the key, loaded), ascending; none named: every supported chain the key may read. */
function scopeOf(request: KeyedRequest, named: readonly ChainId[] | undefined): ChainId[] {
  const key = request.key;
  if (named === undefined || named.length === 0)
    return [...((key.allowedChainIds as readonly ChainId[] | null) ?? SUPPORTED_CHAIN_IDS_ASCENDING)].sort((a, b) => a - b);
  const chains = [...named].sort((a, b) => a - b);
  for (const chainId of chains) {
    assertChainAllowed(key, chainId);
    requireLoadedChain(request.ctx.store.current, chainId);
  }
  return chains;
}

function invalidBasketId(ctx: GatewayContext, sent: string | string[]): ApiError {
  const supportedIds = [...ctx.baskets.ids()];
  const shown = Array.isArray(sent) ? sent.join(", ") : sent;
  return new ApiError(
    "INVALID_BASKET_ID",
    `Unknown basket id ${JSON.stringify(shown.slice(0, 200))}; use one of: ${supportedIds.join(", ") || "(the gateway has no baskets)"}.`,
    "Basket ids come from the operator's baskets file.",
    { basketId: sent, supportedIds },
  );
}

function pathBasket(request: KeyedRequest, sent: string): Basket {
  const basket = request.ctx.baskets.get(sent);
  if (basket === undefined) throw invalidBasketId(request.ctx, sent);
  return basket;
}

export function listBaskets(request: KeyedRequest): Reply {
  const { ctx } = request;
  const params = parseQuery(request.query, { chainIds: "numbers", basketIds: "strings" }, validateBasketsQuery);
  const unknown = (params.basketIds ?? []).filter((id) => ctx.baskets.get(id) === undefined);
  if (unknown.length > 0) throw invalidBasketId(ctx, unknown);
  const scope = scopeOf(request, params.chainIds);
  const wanted = params.basketIds === undefined ? null : new Set(params.basketIds);
  const view = basketView(ctx);
  const data: Chunk[] = ['{"baskets":['];
  let listed = 0;
  for (const id of ctx.baskets.ids()) {
    if (wanted !== null && !wanted.has(id)) continue;
    const json = view.basketJson(ctx.baskets.get(id)!, scope);
    if (json === null) continue;
    if (listed++ > 0) data.push(",");
    data.push(json);
  }
  data.push("]}");
  // A choice of baskets is not named: the choices are too many to keep each compressed.
  return dataReply(data, ctx.store.current?.versionHex, wanted === null ? answerKey(request, scope, "*") : undefined);
}

export function getBasket(request: KeyedRequest): Reply {
  const { ctx } = request;
  const basket = pathBasket(request, request.params[0]);
  const params = parseQuery(request.query, { chainIds: "numbers" }, validateBasketQuery);
  const scope = scopeOf(request, params.chainIds);
  const json = basketView(ctx).basketJson(basket, scope);
  if (json === null) {
    throw new ApiError(
      "TOKEN_BASKET_NOT_FOUND",
      `Basket ${basket.id} has no token on chains ${scope.join(", ")}; ask for other chains.`,
      "The operator's baskets file lists no address of this basket on the chains in scope.",
      { basketId: request.params[0], chainIds: scope },
    );
  }
  return dataReply(['{"basket":', json, "}"], ctx.store.current?.versionHex, answerKey(request, scope, basket.id));
}

export function getChainBasket(request: KeyedRequest): Reply {
  const { ctx } = request;
  const chainId = parsePathChainId(request.params[0]);
  assertChainAllowed(request.key, chainId);
  const basket = pathBasket(request, request.params[1]);
  parseQuery(request.query, {}, validateNoQuery);
  const snapshot = requireLoadedChain(ctx.store.current, chainId);
  const json = snapshot.baskets(ctx.baskets).basketJson(basket, [chainId]);
  if (json === null) {
    throw new ApiError(
      "TOKEN_BASKET_NOT_FOUND",
      `Basket ${basket.id} has no token on chain ${chainId}; ask for another chain.`,
      "The operator's baskets file lists no address of this basket on this chain.",
      { basketId: request.params[1], chainId },
    );
  }
  return dataReply(
    ['{"basket":', json, "}"],
    snapshot.versionHex,
    answerKey(request, [chainId], basket.id),
    undefined,
    snapshot.dataGeneratedAt(chainId),
  );
}
