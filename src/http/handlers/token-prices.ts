/**
 * GET /v1/tokens/prices/{chainId}/{tokenAddress}/usd and POST /v1/tokens/prices
 * (api-extended.md §8, §11): tracked USD prices from the loaded snapshots. The
 * zero address without a native record is priced as the chain's wrapped
 * native token.
 */
import typia, { type IValidation } from "typia";
import { assertChainAllowed } from "../../access/restrictions.js";
import type { TokenPriceEntry, TokenPricesRequest } from "../../api/wire.js";
import type { ChainId } from "../../chains/chains.js";
import { parseAddress, priceInstance } from "../../tables/token-lookup.js";
import { requireLoadedChain, requireSnapshot } from "../chain-availability.js";
import { dataReply, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { tokenListsFailure } from "../token-address-lists.js";
import { pathToken, tokenNotFound } from "./token-lookup.js";

const validateRequest = typia.createValidateEquals<TokenPricesRequest>();

export function getTokenPrice(request: KeyedRequest): Reply {
  const { chainId, address, snapshot } = pathToken(request);
  const i = priceInstance(snapshot.tokenIndex, chainId, address);
  if (i < 0) throw tokenNotFound(request, chainId);
  return dataReply(
    [`{"price":${JSON.stringify(snapshot.tokenIndex.price[i])}}`],
    snapshot.versionHex,
    undefined,
    undefined,
    snapshot.dataGeneratedAt(chainId),
  );
}

/** The request, or its first problem (token-address-lists.ts). */
function validatedPrices(body: unknown): TokenPricesRequest {
  const result: IValidation<TokenPricesRequest> = validateRequest(body);
  if (result.success) return result.data;
  throw tokenListsFailure(body, result.errors, ["tokens"]);
}

export function getTokenPrices(request: KeyedRequest): Reply {
  const body = validatedPrices(request.body);
  const current = request.ctx.store.current;
  for (const { chainId } of body.tokens) {
    assertChainAllowed(request.key, chainId);
    requireLoadedChain(current, chainId);
  }
  const snapshot = requireSnapshot(current);
  const ix = snapshot.tokenIndex;
  const prices: TokenPriceEntry[] = body.tokens.map(({ chainId, address }) => {
    const i = priceInstance(ix, chainId as ChainId, parseAddress(address)!);
    return { chainId, address: address.toLowerCase(), price: i < 0 ? null : ix.price[i] };
  });
  return dataReply([JSON.stringify({ prices })], snapshot.versionHex);
}
