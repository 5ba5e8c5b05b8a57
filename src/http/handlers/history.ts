/**
 * The history routes (shared/spec/history.md §24, docs/history.md): a token's OHLCV candles, a pool's
 * rows, tokens' prices at a time. Each reads the history store (lock-free LMDB reads on this thread)
 * through src/history/history-reader.ts and answers with the pure src/query/history-answer.ts; nothing
 * a request does writes to history. A bucket answer's bytes are made once per observation of its chain
 * and kept by the thread (src/history/answer-cache.ts) for every request that asks the same. Answers
 * whose buckets are all closed never change: clients cache them for a year (`immutable`); the others for
 * a few seconds.
 */
import typia, { type IValidation } from "typia";
import { assertChainAllowed } from "../../access/restrictions.js";
import { ApiError } from "../../api/errors.js";
import type { HistoricalPrice, HistoricalPricesRequest, HistoryQuery, HistoryTimeframe } from "../../api/wire.js";
import type { ChainId } from "../../chains/chains.js";
import type { CachedAnswer } from "../../history/answer-cache.js";
import type { HistoryAccess } from "../../history/history-access.js";
import type { ChainHistoryReader, HistoryReads } from "../../history/history-reader.js";
import { hexBytes } from "../../history/observe.js";
import { answerBuckets, bucketFloor, priceAt, TIER_SPAN, type HistoryTier } from "../../query/history-answer.js";
import { POOL, TOKEN, type EntityKind } from "../../query/history-units.js";
import { crc32Continue } from "../../util/crc32.js";
import { bucketsJson } from "../history-json.js";
import { invalidPoolAddress, isPoolAddress, parsePathChainId, parsePathTokenAddress } from "../path-parameters.js";
import { parseQuery } from "../query-params.js";
import { dataReply, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { tokenListsFailure } from "../token-address-lists.js";
import { constraintError } from "../validation-error.js";

/** Buckets answered when the request names no `limit`. */
export const DEFAULT_HISTORY_LIMIT = 100;

const TIMEFRAMES: Readonly<Record<HistoryTimeframe, { tier: HistoryTier; aggregates: readonly number[] }>> = {
  minute: { tier: "raw", aggregates: [1, 5, 15] },
  hour: { tier: "hour", aggregates: [1, 4, 12] },
  day: { tier: "day", aggregates: [1] },
};

const validateQuery = typia.createValidateEquals<HistoryQuery>();
const validatePrices = typia.createValidateEquals<HistoricalPricesRequest>();

function historyOf(request: KeyedRequest): HistoryAccess {
  const history = request.ctx.history;
  if (history === null) {
    throw new ApiError("HISTORY_DISABLED", "History is off on this gateway.", "The operator runs this gateway with HISTORY=off.", {});
  }
  return history;
}

/** The store's reads, or 503 HISTORY_UNAVAILABLE with why it cannot be read now. */
function readsOf(history: HistoryAccess): HistoryReads {
  const reads = history.reads();
  if (typeof reads !== "string") return reads;
  throw new ApiError(
    "HISTORY_UNAVAILABLE",
    "History cannot be read on this gateway now; retry later.",
    `The history store cannot be read: ${reads}.`,
    { reason: reads },
    { "retry-after": "30" },
  );
}

function parseTimeframe(text: string): HistoryTimeframe {
  if (Object.hasOwn(TIMEFRAMES, text)) return text as HistoryTimeframe;
  throw constraintError(
    "timeframe",
    text.slice(0, 80),
    "isIn",
    "timeframe must be one of the following values: minute, hour, day",
    "The path timeframe is minute, hour or day.",
  );
}

/**
 * The bucket answer of one entity (the path's timeframe and the query): the bytes this thread keeps for the
 * same request when they are still good (src/history/answer-cache.ts), else made from the store and kept.
 */
function bucketsReply(
  request: KeyedRequest,
  history: HistoryAccess,
  chainId: ChainId,
  kind: EntityKind,
  address: Uint8Array,
  addressText: string,
  notFound: () => ApiError,
): Reply {
  const timeframe = parseTimeframe(request.params[2]);
  const query = parseQuery(request.query, { aggregate: "number", before: "number", limit: "number" }, validateQuery);
  const { tier, aggregates } = TIMEFRAMES[timeframe];
  const aggregate = query.aggregate ?? 1;
  if (!aggregates.includes(aggregate)) {
    throw constraintError(
      "aggregate",
      aggregate,
      "isIn",
      `aggregate must be one of the following values: ${aggregates.join(", ")}`,
      `A ${timeframe} timeframe takes aggregate ${aggregates.join(", ")}.`,
    );
  }
  const width = aggregate * TIER_SPAN[tier];
  const before = query.before ?? Infinity;
  const limit = query.limit ?? DEFAULT_HISTORY_LIMIT;
  const fill = query.fill === "previous";
  const lower = addressText.toLowerCase();
  const reads = readsOf(history);
  const chain = reads.chain(chainId);
  if (chain === null) throw notFound();
  // Everything the answer's bytes are made of (the address as the path's text: the answer names it so).
  const key = `${kind}/${chainId}/${lower}/${timeframe}/${aggregate}/${before}/${limit}/${fill ? 1 : 0}`;
  const floor = bucketFloor(chain.info, tier, width);
  const kept = history.answers.get(key, chain.info.epoch, floor);
  if (kept !== undefined) return historyReply(kept);
  const id = reads.entityId(chainId, kind, address);
  if (id === null) throw notFound();
  const answer = answerBuckets(chain, { kind, id, tier, width, before, limit, fill });
  const list = kind === TOKEN ? "candles" : "rows";
  const data = bucketsJson({ chainId, address: lower, timeframe, aggregate, list }, answer);
  const closed = answer.closed;
  const made: CachedAnswer = {
    data,
    crc: crc32Continue(data, 0),
    closed,
    epoch: chain.info.epoch,
    floor,
    name: `history:${key}:${closed ? "closed" : chain.info.epoch}:${floor}`,
  };
  history.answers.set(key, made);
  return historyReply(made);
}

export function getTokenOhlcv(request: KeyedRequest): Reply {
  const history = historyOf(request);
  const [chainText, addressText] = request.params;
  const chainId = parsePathChainId(chainText);
  assertChainAllowed(request.key, chainId);
  const address = parsePathTokenAddress(addressText);
  return bucketsReply(
    request,
    history,
    chainId,
    TOKEN,
    address,
    addressText,
    () =>
      new ApiError(
        "TOKEN_NOT_FOUND",
        `History has no token ${addressText.slice(0, 80)} on chain ${chainId}; check the address and chain id.`,
        "No served file of this chain held the token while history kept it.",
        { tokenAddress: addressText, chainId },
      ),
  );
}

export function getPoolHistory(request: KeyedRequest): Reply {
  const history = historyOf(request);
  const [chainText, addressText] = request.params;
  const chainId = parsePathChainId(chainText);
  assertChainAllowed(request.key, chainId);
  if (!isPoolAddress(addressText)) throw invalidPoolAddress(addressText);
  return bucketsReply(
    request,
    history,
    chainId,
    POOL,
    hexBytes(addressText),
    addressText,
    () =>
      new ApiError(
        "LIQUIDITY_POOL_NOT_FOUND",
        `History has no pool ${addressText} on chain ${chainId}; check the address and chain id.`,
        "No served file of this chain held the pool while history kept it.",
        { liquidityPoolAddress: addressText, chainId },
      ),
  );
}

export function getHistoricalPrices(request: KeyedRequest): Reply {
  const history = historyOf(request);
  const result: IValidation<HistoricalPricesRequest> = validatePrices(request.body);
  if (!result.success) throw tokenListsFailure(request.body, result.errors, ["tokens"]);
  const body = result.data;
  for (const { chainId } of body.tokens) assertChainAllowed(request.key, chainId);
  const reads = readsOf(history);
  const chains = new Map<number, ChainHistoryReader | null>();
  const prices: (HistoricalPrice | null)[] = body.tokens.map(({ chainId, address }) => {
    const id = reads.entityId(chainId, TOKEN, hexBytes(address));
    if (id === null) return null;
    let chain = chains.get(chainId);
    if (chain === undefined) chains.set(chainId, (chain = reads.chain(chainId)));
    const p = chain === null ? null : priceAt(chain, id, body.at);
    return p === null ? null : { chainId, address: address.toLowerCase(), price: p.price, observedAt: p.observedAt };
  });
  return dataReply([JSON.stringify({ at: body.at, prices })], undefined, undefined, undefined, undefined, "short");
}

/**
 * A bucket answer's reply: its CRC known (the ETag reads no data), its name for the compressed forms the
 * writer keeps, closed answers cached by clients for a year.
 */
function historyReply(a: CachedAnswer): Reply {
  return dataReply([a.data], undefined, a.name, a.crc, undefined, a.closed ? "immutable" : "short");
}
