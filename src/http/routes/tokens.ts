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
import { CursorCodec } from "../../query/cursor.js";
import { DEFAULT_LIMIT, toTokenQuery, tokenQueryKey, type TokenQuery } from "../../query/token-query.js";
import type { ServingSnapshot } from "../../snapshot/serving-snapshot.js";
import type { TokenListView } from "../../query/token-list-view.js";
import { LruCache } from "../../util/lru-cache.js";
import { requireLoadedChain } from "../chain-availability.js";
import { successPrefix } from "../envelope.js";
import { ApiError } from "../errors.js";
import type { GatewayContext } from "../gateway-context.js";
import { checkContentType, readJsonBody } from "../read-body.js";
import type { RequestInfo } from "../request-info.js";
import { assemble, sendJson, trackAbort, sendError, toApiError } from "../respond.js";
import type { HttpResponse } from "../uws.js";
import { validationFailure } from "../validation-error.js";

const validateRequest = typia.createValidateEquals<TokenListRequest>();

export function parseTokenListRequest(body: unknown): TokenListRequest {
  const result = validateRequest(body);
  if (!result.success) throw validationFailure(body, result.errors);
  return result.data;
}

export function serveTokens(res: HttpResponse, info: RequestInfo, ctx: GatewayContext, key: KeyEntry): void {
  checkContentType(info);
  const state = trackAbort(res, info);
  readJsonBody(res, info, state)
    .then((body) => {
      if (state.aborted) return;
      const request = parseTokenListRequest(body);
      const { body: page, version } = tokenPage(ctx, info, key, request);
      sendJson(res, info, 200, page, {}, version);
    })
    .catch((error: unknown) => {
      if (state.aborted) return;
      const apiError = toApiError(error);
      if (apiError.code === "UNKNOWN_ERROR") ctx.log.error({ event: "request-failed", traceId: info.traceId, err: error }, "token list request failed");
      sendError(res, info, apiError);
    });
}

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

function invalidCursor(cursor: string, why: string): ApiError {
  return new ApiError(
    "INVALID_PAGINATION_CURSOR",
    "The cursor is not valid for this query; start again without a cursor.",
    why,
    { receivedCursor: cursor },
  );
}

/** Encoded next-page cursors: the same (snapshot, query, offset) always gives the same cursor. */
const nextCursors = new LruCache<string, string>(4096);

function nextCursorJson(ctx: GatewayContext, snapshot: ServingSnapshot, view: TokenListView, queryKey: string, queryHash: Buffer, end: number): string {
  const memo = `${snapshot.version}:${end}:${queryKey}`;
  let cursor = nextCursors.get(memo);
  if (cursor === undefined) {
    cursor = JSON.stringify(ctx.cursors.encode(queryHash, { version: snapshot.version, offset: end, lastTvl: view.result.tvl[end - 1], lastSymbol: view.symbolOf(end - 1) }));
    nextCursors.set(memo, cursor);
  }
  return cursor;
}

function tokenPage(ctx: GatewayContext, info: RequestInfo, key: KeyEntry, request: TokenListRequest): { body: Buffer; version: string } {
  const current = ctx.store.current;
  const query = resolveChains(toTokenQuery(request), key, current);
  if (current === null) {
    throw new ApiError("CHAIN_DATA_UNAVAILABLE", "No chain data has loaded yet; retry shortly.", "The gateway has not loaded any snapshot yet.", { chainId: null }, { "retry-after": "30" });
  }
  const queryKey = tokenQueryKey(query);
  const limit = request.config?.limit ?? DEFAULT_LIMIT;
  const cursor = request.config?.cursor ?? "";

  let snapshot: ServingSnapshot = current;
  let start = 0;
  const queryHash = CursorCodec.queryHash(queryKey);
  if (cursor !== "") {
    const position = ctx.cursors.decode(cursor, queryHash);
    if (position === "garbage") throw invalidCursor(cursor, "The cursor was not issued by this gateway or was altered.");
    if (position === "query") throw invalidCursor(cursor, "The cursor belongs to a request with other filters, matchAllSymbols or orderBy; keep them unchanged while paging.");
    const kept = ctx.store.version(position.version);
    if (kept !== null) {
      snapshot = kept;
      start = position.offset;
    } else {
      start = current.tokenList(query, queryKey).indexAfter(position.lastTvl, position.lastSymbol, query.direction);
    }
  }

  const view = snapshot.tokenList(query, queryKey);
  const end = Math.min(view.count, start + limit);
  const entries: Buffer[] = [];
  for (let e = start; e < end; e++) entries.push(view.entry(e));
  const next = end < view.count ? nextCursorJson(ctx, snapshot, view, queryKey, queryHash, end) : "null";
  return {
    body: assemble(`${successPrefix(info)}{"tokens":[`, entries, ",", `],"nextCursor":${next}}}`),
    version: snapshot.versionHex,
  };
}
