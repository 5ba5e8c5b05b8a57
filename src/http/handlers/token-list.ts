/**
 * POST /v1/tokens (api-decisions.md §2-§3): validates the request, resolves
 * the query (defaults, the key's chain allow-list), finds the page (from the
 * cursor's snapshot while it is kept, else after the cursor's last key on the
 * current one) and answers pre-encoded entries.
 */
import typia from "typia";
import { assertChainAllowed } from "../../access/restrictions.js";
import type { KeyEntry } from "../../access/key-store.js";
import type { TokenListRequest } from "../../api/wire.js";
import type { ChainId } from "../../chains/chains.js";
import { PositionWriter } from "../../query/cursor.js";
import { DEFAULT_LIMIT, toTokenQuery, tokenQueryKey, type TokenQuery } from "../../query/token-query.js";
import type { ServingSnapshot } from "../../snapshot/serving-snapshot.js";
import { requireLoadedChain, requireSnapshot } from "../chain-availability.js";
import { assertPositionComplete, openCursor } from "../list-cursor.js";
import { dataReply, type Chunk, type Reply } from "../reply.js";
import type { RouteRequest } from "../route.js";
import { validated } from "../validation-error.js";

const validateRequest = typia.createValidateEquals<TokenListRequest>();

/** The cursor scope of this list. */
const SCOPE = "tokens.list";

/**
 * Named chains must be allowed for the key and loaded; a request that names
 * none covers the key's allowed chains (those loaded), or every loaded chain.
 */
function resolveChains(query: TokenQuery, key: KeyEntry, current: ServingSnapshot | null): TokenQuery {
  for (const chainId of query.chainIds) {
    assertChainAllowed(key, chainId);
    requireLoadedChain(current, chainId as ChainId);
  }
  if (query.chainIds.length > 0 || key.allowedChainIds === null) return query;
  return { ...query, chainIds: key.allowedChainIds };
}

export function listTokens(request: RouteRequest): Reply {
  const body = validated(validateRequest, request.body);
  const { ctx } = request;
  const current = ctx.store.current;
  const query = resolveChains(toTokenQuery(body), request.key!, current);
  const served = requireSnapshot(current);
  const queryKey = tokenQueryKey(query);
  const limit = body.config?.limit ?? DEFAULT_LIMIT;
  const scope = ctx.cursors.scope(SCOPE, queryKey);

  let snapshot = served;
  let start = 0;
  const cursor = openCursor(ctx, scope, body.config?.cursor);
  if (cursor !== null) {
    const offset = cursor.position.u32();
    const lastTvl = cursor.position.f64();
    const lastSymbol = cursor.position.string();
    assertPositionComplete(cursor, body.config!.cursor!);
    const kept = ctx.store.version(cursor.version);
    if (kept !== null) {
      snapshot = kept;
      start = Math.min(offset, kept.tokenList(query, queryKey).count);
    } else {
      start = served.tokenList(query, queryKey).indexAfter(lastTvl, lastSymbol, query.direction);
    }
  }

  const view = snapshot.tokenList(query, queryKey);
  const end = Math.min(view.count, start + limit);
  const data: Chunk[] = ['{"tokens":['];
  for (let e = start; e < end; e++) {
    if (e > start) data.push(",");
    data.push(view.entry(e));
  }
  const next =
    end < view.count
      ? view.nextCursorJson(end, scope, () =>
          ctx.cursors.encode(scope, snapshot.version, new PositionWriter().u32(end).f64(view.result.tvl[end - 1]).string(view.symbolOf(end - 1)).bytes()),
        )
      : "null";
  data.push(`],"nextCursor":${next}}`);
  return dataReply(data, snapshot.versionHex);
}
