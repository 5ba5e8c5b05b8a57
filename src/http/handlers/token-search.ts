/**
 * POST /v1/tokens/search (api-extended.md §8): the token list's groups over
 * the eligible instances (search defaults), listed when a listed member
 * matches the term; ordered by TVL or relevance; paged like the token list.
 */
import typia from "typia";
import { DEFAULT_LIMIT } from "../../api/limits.js";
import type { EffectiveMultiChainSearchFilter, TokenSearchRequest } from "../../api/wire.js";
import { TIER_TVL_SYMBOL_KEY } from "../../query/paged-list.js";
import { filtersEcho, toTokenSearchQuery, tokenSearchKey } from "../../query/token-query.js";
import { requireSnapshot } from "../chain-availability.js";
import { findPage, pushEntries } from "../../serving/list-page.js";
import { dataReply, type Chunk, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { searchRuleFailures } from "../search-rules.js";
import { resolveChains, searchedChains } from "../token-chains.js";
import { validated } from "../validation-error.js";

const validateRequest = typia.createValidateEquals<TokenSearchRequest>();

export function searchTokens(request: KeyedRequest): Reply {
  const body = validated(validateRequest, request.body, searchRuleFailures(request.body));
  const { ctx } = request;
  const current = ctx.store.current;
  const query = resolveChains(toTokenSearchQuery(body, body.search.trim()), request.key, current);
  const served = requireSnapshot(current);
  const queryKey = tokenSearchKey(query);
  const scope = ctx.cursors.scope(request.routeName, queryKey);
  const page = findPage(ctx, served, scope, body.config?.cursor, body.config?.limit ?? DEFAULT_LIMIT, TIER_TVL_SYMBOL_KEY, (s) =>
    s.tokenSearch(query, queryKey),
  );
  const filters: EffectiveMultiChainSearchFilter = { chainIds: searchedChains(query, page.snapshot), ...filtersEcho(query) };
  const data: Chunk[] = ['{"tokens":'];
  pushEntries(data, page);
  data.push(`,"filters":${JSON.stringify(filters)},"nextCursor":${page.nextCursor}}`);
  return dataReply(data, page.snapshot.versionHex, `${request.routeName}:${queryKey}:${page.start}:${page.end}`);
}
