/**
 * The history routes (shared/spec/history.md §24, docs/history.md): a token's OHLCV candles, a pool's
 * rows, tokens' prices at a time. Each reads the history store (lock-free LMDB reads on this thread)
 * through src/history/history-reader.ts and answers with the pure src/query/history-answer.ts; nothing
 * a request does writes to history. Answers whose buckets are all closed never change: they are cached
 * for a year (`immutable`); the others for a few seconds.
 */
import typia, { type IValidation } from "typia";
import { assertChainAllowed } from "../../access/restrictions.js";
import { ApiError } from "../../api/errors.js";
import type { HistoricalPrice, HistoricalPricesRequest, HistoryQuery, HistoryTimeframe } from "../../api/wire.js";
import type { ChainId } from "../../chains/chains.js";
import type { HistoryAccess } from "../../history/history-access.js";
import type { ChainHistoryReader } from "../../history/history-reader.js";
import { hexBytes } from "../../history/observe.js";
import { answerBuckets, priceAt, TIER_SPAN, type BucketAnswer, type HistoryTier } from "../../query/history-answer.js";
import { POOL, TOKEN, type EntityKind } from "../../query/history-units.js";
import { parsePathChainId, parsePathTokenAddress } from "../path-parameters.js";
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
const POOL_ADDRESS = /^0[xX](?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;

function historyOf(request: KeyedRequest): HistoryAccess {
  const history = request.ctx.history;
  if (history === null) {
    throw new ApiError("HISTORY_DISABLED", "History is off on this gateway.", "The operator runs this gateway with HISTORY=off.", {});
  }
  return history;
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

interface Buckets {
  readonly timeframe: HistoryTimeframe;
  readonly aggregate: number;
  readonly answer: BucketAnswer;
}

/** The buckets of one entity, from the path's timeframe and the query. */
function buckets(
  request: KeyedRequest,
  history: HistoryAccess,
  chainId: ChainId,
  kind: EntityKind,
  address: Uint8Array,
  notFound: () => ApiError,
): Buckets {
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
  const reads = history.reads();
  const id = reads.entityId(chainId, kind, address);
  const chain = id === null ? null : reads.chain(chainId);
  if (id === null || chain === null) throw notFound();
  const answer = answerBuckets(chain, {
    kind,
    id,
    tier,
    width: aggregate * TIER_SPAN[tier],
    before: query.before ?? Infinity,
    limit: query.limit ?? DEFAULT_HISTORY_LIMIT,
    fill: query.fill === "previous",
  });
  return { timeframe, aggregate, answer };
}

/** `,"filled":[…],"coverage":{…}}` of a bucket answer. */
function tail(answer: BucketAnswer): string {
  const filled: number[] = [];
  for (const b of answer.buckets) if (b.filled) filled.push(b.t);
  const { from, to, observations, gaps } = answer.coverage;
  return `],"filled":[${filled.join(",")}],"coverage":{"from":${from},"to":${to},"observations":${observations},"gaps":${JSON.stringify(gaps)}}}`;
}

/** The buckets as JSON arrays `[t, v…]`, in one plain loop (a number's JSON is its String, null when not finite). */
function rows(answer: BucketAnswer): string {
  let out = "";
  const buckets = answer.buckets;
  for (let i = 0; i < buckets.length; i++) {
    const b = buckets[i]!;
    out += i === 0 ? `[${b.t}` : `,[${b.t}`;
    const v = b.v;
    for (let j = 0; j < v.length; j++) out += Number.isFinite(v[j]) ? `,${v[j]}` : ",null";
    out += "]";
  }
  return out;
}

function head(chainId: ChainId, address: string, b: Buckets, list: string): string {
  return `{"chainId":${chainId},"address":"${address.toLowerCase()}","timeframe":"${b.timeframe}","aggregate":${b.aggregate},"source":"snapshots","${list}":[`;
}

export function getTokenOhlcv(request: KeyedRequest): Reply {
  const history = historyOf(request);
  const [chainText, addressText] = request.params;
  const chainId = parsePathChainId(chainText);
  assertChainAllowed(request.key, chainId);
  const address = parsePathTokenAddress(addressText);
  const b = buckets(
    request,
    history,
    chainId,
    TOKEN,
    address,
    () =>
      new ApiError(
        "TOKEN_NOT_FOUND",
        `History has no token ${addressText.slice(0, 80)} on chain ${chainId}; check the address and chain id.`,
        "No served file of this chain held the token while history kept it.",
        { tokenAddress: addressText, chainId },
      ),
  );
  return historyReply(head(chainId, addressText, b, "candles") + rows(b.answer) + tail(b.answer), b.answer.closed);
}

export function getPoolHistory(request: KeyedRequest): Reply {
  const history = historyOf(request);
  const [chainText, addressText] = request.params;
  const chainId = parsePathChainId(chainText);
  assertChainAllowed(request.key, chainId);
  if (!POOL_ADDRESS.test(addressText)) {
    throw new ApiError(
      "INVALID_POOL_ADDRESS",
      `"${addressText.slice(0, 80)}" is not a pool address; use 0x and 40 hex digits, or 0x and 64 hex digits for a V4 pool id.`,
      "Pool addresses are 0x + 40 hex digits (contract) or 0x + 64 hex digits (V4 pool id), any letter case.",
      { liquidityPoolAddress: addressText },
    );
  }
  const b = buckets(
    request,
    history,
    chainId,
    POOL,
    hexBytes(addressText),
    () =>
      new ApiError(
        "LIQUIDITY_POOL_NOT_FOUND",
        `History has no pool ${addressText} on chain ${chainId}; check the address and chain id.`,
        "No served file of this chain held the pool while history kept it.",
        { liquidityPoolAddress: addressText, chainId },
      ),
  );
  return historyReply(head(chainId, addressText, b, "rows") + rows(b.answer) + tail(b.answer), b.answer.closed);
}

export function getHistoricalPrices(request: KeyedRequest): Reply {
  const history = historyOf(request);
  const result: IValidation<HistoricalPricesRequest> = validatePrices(request.body);
  if (!result.success) throw tokenListsFailure(request.body, result.errors, ["tokens"]);
  const body = result.data;
  for (const { chainId } of body.tokens) assertChainAllowed(request.key, chainId);
  const reads = history.reads();
  const chains = new Map<number, ChainHistoryReader | null>();
  const prices: (HistoricalPrice | null)[] = body.tokens.map(({ chainId, address }) => {
    const id = reads.entityId(chainId, TOKEN, hexBytes(address));
    if (id === null) return null;
    let chain = chains.get(chainId);
    if (chain === undefined) chains.set(chainId, (chain = reads.chain(chainId)));
    const p = chain === null ? null : priceAt(chain, id, body.at);
    return p === null ? null : { chainId, address: address.toLowerCase(), price: p.price, observedAt: p.observedAt };
  });
  return historyReply(JSON.stringify({ at: body.at, prices }), false);
}

function historyReply(data: string, closed: boolean): Reply {
  return dataReply([data], undefined, undefined, undefined, undefined, closed ? "immutable" : "short");
}
