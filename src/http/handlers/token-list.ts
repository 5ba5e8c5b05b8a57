/**
 * POST /v1/tokens (api-decisions.md §2-§3): validates the request, resolves
 * the query (defaults, the key's chain allow-list), finds the page and
 * answers pre-encoded entries.
 */
import typia from "typia";
import { DEFAULT_LIMIT } from "../../api/limits.js";
import type { TokenListRequest } from "../../api/wire.js";
import { TVL_SYMBOL_KEY } from "../../query/paged-list.js";
import { toTokenQuery, tokenQueryKey } from "../../query/token-query.js";
import { requireSnapshot } from "../chain-availability.js";
import { findPage, pushEntries } from "../../serving/list-page.js";
import { dataReply, type Chunk, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { resolveChains } from "../token-chains.js";
import { validated } from "../validation-error.js";

const validateRequest = typia.createValidateEquals<TokenListRequest>();

export function listTokens(request: KeyedRequest): Reply {
  const body = validated(validateRequest, request.body);
  const { ctx } = request;
  const current = ctx.store.current;
  const query = resolveChains(toTokenQuery(body), request.key, current);
  const served = requireSnapshot(current);
  const queryKey = tokenQueryKey(query);
  const scope = ctx.cursors.scope(request.routeName, queryKey);
  const page = findPage(ctx, served, scope, body.config?.cursor, body.config?.limit ?? DEFAULT_LIMIT, TVL_SYMBOL_KEY, (s) =>
    s.tokenList(query, queryKey),
  );
  const data: Chunk[] = ['{"tokens":'];
  pushEntries(data, page);
  data.push(`,"nextCursor":${page.nextCursor}}`);
  return dataReply(data, page.snapshot.versionHex, `${request.routeName}:${queryKey}:${page.start}:${page.end}`);
}
