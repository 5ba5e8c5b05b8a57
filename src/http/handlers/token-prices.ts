/**
 * GET /v1/tokens/prices/{chainId}/{tokenAddress}/usd and POST /v1/tokens/prices
 * (api-extended.md §8, §11): tracked USD prices from the loaded snapshots. The
 * zero address without a native record is priced as the chain's wrapped
 * native token.
 */
import typia, { type IValidation } from "typia";
import { assertChainAllowed } from "../../access/restrictions.js";
import type { InvalidAddressItem, TokenPriceEntry, TokenPricesRequest } from "../../api/wire.js";
import type { ChainId } from "../../chains/chains.js";
import { parseAddress, priceInstance } from "../../query/token-lookup.js";
import { requireLoadedChain, requireSnapshot } from "../chain-availability.js";
import { ApiError } from "../errors.js";
import { dataReply, type Reply } from "../reply.js";
import type { RouteRequest } from "../route.js";
import { validationFailure } from "../validation-error.js";
import { pathToken, tokenNotFound } from "./token-lookup.js";

const validateRequest = typia.createValidateEquals<TokenPricesRequest>();

export function getTokenPrice(request: RouteRequest): Reply {
  const { chainId, address, snapshot } = pathToken(request);
  const i = priceInstance(snapshot.tokenIndex, chainId, address);
  if (i < 0) throw tokenNotFound(request, chainId);
  return dataReply([`{"price":${JSON.stringify(snapshot.tokenIndex.price[i])}}`], snapshot.versionHex);
}

/** `$input.tokens[3].address` → 3. */
const ADDRESS_PATH = /^\$input\.tokens\[(\d+)\]\.address$/;

/**
 * The request, or its first problem: the body's shape (VALIDATION_ERROR, in
 * document order), then every malformed address (INVALID_BLOCKCHAIN_ADDRESS),
 * then an unsupported chain (UNSUPPORTED_CHAIN_ID, from the shape's rules).
 */
function validatedPrices(body: unknown): TokenPricesRequest {
  const result: IValidation<TokenPricesRequest> = validateRequest(body);
  if (result.success) return result.data;
  const tokens = (body as { tokens: unknown[] }).tokens;
  const addressErrors = result.errors.filter((e) => ADDRESS_PATH.test(e.path) && e.value !== undefined);
  const shapeErrors = result.errors.filter((e) => !addressErrors.includes(e) && !isUnsupportedChain(e));
  if (shapeErrors.length > 0) throw validationFailure(body, shapeErrors);
  if (addressErrors.length > 0) {
    const invalidAddresses: InvalidAddressItem[] = addressErrors.map((e) => ({
      address: e.value,
      reason: typeof e.value === "string" ? "not 0x followed by 40 hex digits" : `not a string (${e.value === null ? "null" : typeof e.value})`,
    }));
    throw new ApiError(
      "INVALID_BLOCKCHAIN_ADDRESS",
      `${invalidAddresses.length} of the ${tokens.length} token addresses ${invalidAddresses.length === 1 ? "is" : "are"} not valid; use 0x followed by 40 hex digits.`,
      `Malformed: ${invalidAddresses.map((a) => JSON.stringify(a.address)?.slice(0, 60)).join(", ").slice(0, 400)}.`,
      { invalidAddresses, receivedCount: tokens.length },
    );
  }
  throw validationFailure(body, result.errors.filter(isUnsupportedChain));
}

/** typia's failure for a chain id that is an integer but not a supported chain. */
function isUnsupportedChain(e: IValidation.IError): boolean {
  return /^\$input\.tokens\[\d+\]\.chainId$/.test(e.path) && Number.isInteger(e.value);
}

export function getTokenPrices(request: RouteRequest): Reply {
  const body = validatedPrices(request.body);
  const current = request.ctx.store.current;
  for (const { chainId } of body.tokens) {
    assertChainAllowed(request.key!, chainId);
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
