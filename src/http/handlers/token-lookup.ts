/**
 * GET /v1/tokens/{tokenAddress} and GET /v1/tokens/{chainId}/{tokenAddress}
 * (api-extended.md §8): a token's metadata from the loaded snapshots, found
 * through the token index's address table; no eligibility filter.
 */
import typia from "typia";
import { assertChainAllowed } from "../../access/restrictions.js";
import type { NoQueryParameters, TokensByAddressQuery } from "../../api/wire.js";
import type { ChainId } from "../../chains/chains.js";
import { instanceJson, type TokenIndexData } from "../../tables/token-index.js";
import { instanceOnChain, instancesWithAddress, tokenInfoChunks } from "../../tables/token-lookup.js";
import type { ServingSnapshot } from "../../serving/serving-snapshot.js";
import { requireLoadedChain, requireSnapshot } from "../chain-availability.js";
import { ApiError } from "../../api/errors.js";
import { parsePathChainId, parsePathTokenAddress } from "../path-parameters.js";
import { parseQuery } from "../query-params.js";
import { dataReply, type Chunk, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { resolveChains, searchedChains } from "../token-chains.js";

const validateByAddressQuery = typia.createValidateEquals<TokensByAddressQuery>();
export const validateNoQuery = typia.createValidateEquals<NoQueryParameters>();

export function getTokensByAddress(request: KeyedRequest): Reply {
  const address = parsePathTokenAddress(request.params[0]);
  const params = parseQuery(request.query, { chainIds: "numbers" }, validateByAddressQuery);
  const current = request.ctx.store.current;
  const scope = resolveChains({ chainIds: [...(params.chainIds ?? [])].sort((a, b) => a - b) }, request.key, current);
  const snapshot = requireSnapshot(current);
  const chains = searchedChains(scope, snapshot);
  const ix = snapshot.tokenIndex;
  const found = instancesWithAddress(ix, address).filter((i) => chains.includes(ix.chainId[i] as ChainId));
  found.sort((a, b) => ix.tvl[b] - ix.tvl[a] || ix.chainId[a] - ix.chainId[b]);
  const data: Chunk[] = ['{"tokens":['];
  found.forEach((i, k) => {
    if (k > 0) data.push(",");
    data.push(instanceJson(ix, "metadataJson", i));
  });
  data.push("]}");
  return dataReply(data, snapshot.versionHex, `${request.routeName}:${found.join(",")}`);
}

/** The path's chain (allowed for the key, loaded) and token address; no query parameters. */
export function pathToken(request: KeyedRequest): { chainId: ChainId; address: Uint8Array; snapshot: ServingSnapshot } {
  const chainId = parsePathChainId(request.params[0]);
  assertChainAllowed(request.key, chainId);
  const address = parsePathTokenAddress(request.params[1]);
  parseQuery(request.query, {}, validateNoQuery);
  return { chainId, address, snapshot: requireLoadedChain(request.ctx.store.current, chainId) };
}

export function tokenNotFound(request: KeyedRequest, chainId: ChainId): ApiError {
  const sent = request.params[1];
  return new ApiError(
    "TOKEN_NOT_FOUND",
    `No token ${sent.slice(0, 80)} on chain ${chainId}; check the address and chain id.`,
    "The token is not in the loaded snapshot of this chain.",
    { tokenAddress: sent, chainId },
  );
}

export function getChainToken(request: KeyedRequest): Reply {
  const { chainId, address, snapshot } = pathToken(request);
  const ix: TokenIndexData = snapshot.tokenIndex;
  const i = instanceOnChain(ix, chainId, address);
  if (i < 0) throw tokenNotFound(request, chainId);
  // SingleChainTokenMetadata without its closing brace, then the pooled value (the token JSON of the stream's events too).
  const [head, tail] = tokenInfoChunks(ix, i);
  return dataReply(
    ['{"token":', head, tail, "}"],
    snapshot.versionHex,
    `${request.routeName}:${i}`,
    undefined,
    snapshot.dataGeneratedAt(chainId),
  );
}
