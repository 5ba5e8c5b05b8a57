/**
 * POST /v1/tokens/{chainId} and POST /v1/tokens/{chainId}/search
 * (api-extended.md §8): the chain's tokens that pass the thresholds, by
 * tracked TVL (ties by address ascending), every one of them (no cut after
 * paging); the search keeps those matching the term, by TVL or relevance.
 */
import typia from "typia";
import { DEFAULT_LIMIT } from "../../api/limits.js";
import { assertChainAllowed } from "../../access/restrictions.js";
import type { SingleChainTokenListRequest, SingleChainTokenSearchRequest } from "../../api/wire.js";
import type { ChainId } from "../../chains/chains.js";
import { TIER_TVL_ADDRESS_KEY } from "../../query/paged-list.js";
import { filtersEcho, singleChainKey, toSingleChainQuery, type SingleChainQuery } from "../../query/token-query.js";
import { requireLoadedChain } from "../chain-availability.js";
import { findPage, pushEntries, type Page } from "../../serving/list-page.js";
import { parsePathChainId } from "../path-parameters.js";
import { dataReply, type Chunk, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { searchRuleFailures } from "../search-rules.js";
import { validated } from "../validation-error.js";

const validateListRequest = typia.createValidateEquals<SingleChainTokenListRequest>();
const validateSearchRequest = typia.createValidateEquals<SingleChainTokenSearchRequest>();

/** The path chain: supported, allowed for the key. */
function pathChain(request: KeyedRequest): ChainId {
  const chainId = parsePathChainId(request.params[0]);
  assertChainAllowed(request.key, chainId);
  return chainId;
}

/** The page, and the name of its bytes within the answering snapshot (for the compression cache). */
function chainPage(
  request: KeyedRequest,
  query: SingleChainQuery,
  config: { limit?: number; cursor?: string | null } | undefined,
): { page: Page<unknown>; cacheKey: string } {
  const { ctx } = request;
  const served = requireLoadedChain(ctx.store.current, query.chainId);
  const queryKey = singleChainKey(query);
  const scope = ctx.cursors.scope(request.routeName, queryKey);
  const page = findPage(ctx, served, scope, config?.cursor, config?.limit ?? DEFAULT_LIMIT, TIER_TVL_ADDRESS_KEY, (s) =>
    s.singleChain(query, queryKey),
  ) as Page<unknown>;
  return { page, cacheKey: `${request.routeName}:${queryKey}:${page.start}:${page.end}` };
}

export function listChainTokens(request: KeyedRequest): Reply {
  const chainId = pathChain(request);
  const body = validated(validateListRequest, request.body);
  const { page, cacheKey } = chainPage(request, toSingleChainQuery(chainId, body, null), body.config);
  const data: Chunk[] = ['{"tokens":'];
  pushEntries(data, page);
  data.push(`,"nextCursor":${page.nextCursor}}`);
  return dataReply(data, page.snapshot.versionHex, cacheKey, undefined, page.snapshot.dataGeneratedAt(chainId));
}

export function searchChainTokens(request: KeyedRequest): Reply {
  const chainId = pathChain(request);
  const body = validated(validateSearchRequest, request.body, searchRuleFailures(request.body));
  const query = toSingleChainQuery(chainId, body, body.search.trim());
  const { page, cacheKey } = chainPage(request, query, body.config);
  const data: Chunk[] = ['{"tokens":'];
  pushEntries(data, page);
  data.push(`,"filters":${JSON.stringify(filtersEcho(query))},"nextCursor":${page.nextCursor}}`);
  return dataReply(data, page.snapshot.versionHex, cacheKey, undefined, page.snapshot.dataGeneratedAt(chainId));
}
