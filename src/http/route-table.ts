/**
 * The route table: every route of the gateway, declared once, next to its
 * handler. Dispatch, 405/`Allow`, the metrics route labels, the access group a
 * key's `routes` names, the not-found hint and the OpenAPI operations are all
 * derived from it. Adding a route is one entry here plus its handler. The
 * table is a literal (`as const`): route names are a type (RouteName), and a
 * keyed route's handler takes a KeyedRequest, a public one's a RouteRequest.
 */
import {
  CHAIN_TOKEN_BASKET_RESPONSE_EXAMPLE,
  CHANGES_RESPONSE_EXAMPLE,
  HEALTH_RESPONSE_EXAMPLE,
  POOL_RESPONSE_EXAMPLE,
  POOL_SEARCH_REQUEST_EXAMPLE,
  POOL_SEARCH_RESPONSE_EXAMPLE,
  PROTOCOLS_RESPONSE_EXAMPLE,
  READINESS_RESPONSE_EXAMPLE,
  SINGLE_CHAIN_LIST_REQUEST_EXAMPLE,
  SINGLE_CHAIN_LIST_RESPONSE_EXAMPLE,
  SINGLE_CHAIN_SEARCH_REQUEST_EXAMPLE,
  SINGLE_CHAIN_SEARCH_RESPONSE_EXAMPLE,
  SINGLE_CHAIN_TOKEN_RESPONSE_EXAMPLE,
  STATUS_RESPONSE_EXAMPLE,
  TOKEN_BASKET_RESPONSE_EXAMPLE,
  TOKEN_BASKETS_RESPONSE_EXAMPLE,
  TOKEN_LIST_REQUEST_EXAMPLE,
  TOKEN_LIST_RESPONSE_EXAMPLE,
  TOKEN_PRICE_RESPONSE_EXAMPLE,
  TOKEN_PRICES_REQUEST_EXAMPLE,
  TOKEN_PRICES_RESPONSE_EXAMPLE,
  TOKEN_SEARCH_REQUEST_EXAMPLE,
  TOKEN_SEARCH_RESPONSE_EXAMPLE,
  TOKENS_BY_ADDRESS_RESPONSE_EXAMPLE,
  HISTORY_TOKEN_OHLCV_RESPONSE_EXAMPLE,
  HISTORY_POOL_RESPONSE_EXAMPLE,
  HISTORY_PRICES_REQUEST_EXAMPLE,
  HISTORY_PRICES_RESPONSE_EXAMPLE,
} from "../openapi/examples.js";
import { ASYNCAPI_DOCUMENT, OpenApiDocument } from "./handlers/openapi.js";
import { getDocsAsset, getDocsPage } from "./handlers/docs.js";
import { getHealth, getMetrics, getReadiness } from "./handlers/operations.js";
import { listChainTokens, searchChainTokens } from "./handlers/chain-tokens.js";
import { getChanges, getStatus } from "./handlers/changes.js";
import { getHistoricalPrices, getPoolHistory, getTokenOhlcv } from "./handlers/history.js";
import { getFleetStatus } from "./handlers/fleet.js";
import { getPool } from "./handlers/pool-details.js";
import { searchPoolsRoute } from "./handlers/pool-search.js";
import { listProtocols } from "./handlers/protocols.js";
import { getBasket, getChainBasket, listBaskets } from "./handlers/token-baskets.js";
import { listTokens } from "./handlers/token-list.js";
import { getChainToken, getTokensByAddress } from "./handlers/token-lookup.js";
import { getTokenPrice, getTokenPrices } from "./handlers/token-prices.js";
import { searchTokens } from "./handlers/token-search.js";
import { openEventStream, STREAM_HEADERS } from "./handlers/stream.js";
import type { DocumentedRoute } from "../openapi/operation-doc.js";
import type { Reply } from "./reply.js";
import type { RouteSpec } from "./route.js";

const TOKEN_LIST_DESCRIPTION = `One entry per asset across chains, ordered by total value locked (TVL), in pages linked by an opaque cursor.

1. Eligible instances: tokens on the requested chains whose tracked TVL, swap count and tracked swap volume are each strictly greater than the filter minimums (per single-chain instance). With \`ignoreWrappedNative\` each chain's wrapped native token is left out; the native asset (all-zero address) is an ordinary instance.
2. Instances are grouped by normalized symbol; the highest-TVL instance is the anchor. Others join when their tracked price is within 20 % of the anchor's and their name or symbol matches it (metadata parity). The canonical view (\`matchAllSymbols\` false) keeps the highest-TVL passing instance per chain; \`matchAllSymbols\` true keeps every passing instance.
3. Entries are ordered by the group's summed TVL, ties by normalized symbol ascending. The order is exact.
4. \`nextCursor\` is null exactly at the end. Send it as \`config.cursor\` with the same filters, \`matchAllSymbols\` and \`orderBy\` (\`limit\` may change): walking every page yields each entry once, even while snapshots change.

A chain that is named in \`chainIds\` but has no loaded snapshot is 503 \`CHAIN_DATA_UNAVAILABLE\`; without \`chainIds\` the list covers the loaded chains (a chain-restricted key: its allowed ones).`;

const POOL_SEARCH_DESCRIPTION = `The pools of a token, of a pair, or of baskets of tokens, across chains, in pages linked by an opaque cursor.

1. Side A is \`tokensA\` plus the addresses of \`basketsA\` on their chains (a basket without \`chainIds\`: every chain the key may read); side B likewise. Side A must name at least one token or basket. With \`config.useWrappedForNative\` (default true), an all-zero address in a side also adds that chain's wrapped native token.
2. Without side B, a pool matches when one of its tokens is in A. With side B, when one of its token positions holds an A token and another position a B token (for two tokens: t0 in A and t1 in B, or t0 in B and t1 in A). Pools of every type and with any number of tokens take part.
3. Filters: \`minimumTotalValueLockedUsd\` is inclusive, on the pool's tracked TVL when its record has one, else its TVL; allow-lists and block-lists of protocols and pool types all apply.
4. Order: \`orderBy.field\` (TVL, or the yield, swap volume or fees of \`orderBy.timeframe\`) in \`orderBy.direction\`, ties by chain id ascending, then pool address ascending (code-unit order of the lowercase address). The order is exact.
5. Each pool is exactly the pool-details \`data.pool\`, except that \`config.parseWrappedToNative\` may show the wrapped native token as the native asset: \`ALWAYS\`, \`NEVER\`, or \`AUTO\` (default: on the chains whose all-zero address is in side A or B, directly or through a basket).
6. \`nextCursor\` is null exactly at the end. Send it as \`config.cursor\` with everything else unchanged (\`limit\` may change): the next page starts after the previous page's last pool, on the snapshot of the first page while the gateway keeps it, then on the current one (after the last pool's key, chain id and address).

A chain named in the body (a token's \`chainId\`, a basket's \`chainIds\`) must be one the key may read (else 403) and loaded (else 503 \`CHAIN_DATA_UNAVAILABLE\`).`;

const SEARCH_DESCRIPTION = `The token list's entries (same grouping, same parity checks) that match a term, in pages linked by an opaque cursor.

1. Eligible instances as in the token list, with the search defaults: every threshold 0 (strictly greater, so instances without tracked TVL, swaps or volume stay out) and the wrapped native token included.
2. An instance matches when the trimmed term, lowercased, is a substring of its lowercased symbol, name, normalized symbol or normalized name (literally: \`%\` and \`_\` are ordinary characters), or when the term is a \`0x\` + 40 hex address equal to its address.
3. Groups are built exactly as in the token list over the eligible instances; a group is listed when one of its listed members matches, with all its members.
4. \`orderBy.field\` \`tvl\` orders as the token list; \`relevance\` by the group's best tier (1 a member's symbol equals the term, 2 starts with it, 3 a name starts with it or has a word starting with it, 4 any other match), then group TVL desc, then normalized symbol.
5. \`filters\` echoes the filters applied, \`chainIds\` being the chains searched. Cursors are bound to the whole request but \`limit\`.`;

const CHAIN_LIST_DESCRIPTION = `The chain's tokens whose tracked TVL, swap count and tracked swap volume are each strictly greater than the filter minimums (the wrapped native token left out by default), ordered by tracked TVL, ties by address ascending in both directions. Every eligible token is listed: pages end only when the list does.`;

const CHAIN_SEARCH_DESCRIPTION = `The chain's eligible tokens (search defaults: thresholds 0, wrapped native included) whose symbol, name, normalized symbol or normalized name contains the term (case-insensitive, literal), or whose address equals it. Ordered by tracked TVL (ties by address), or by relevance tier (1 symbol equals the term, 2 starts with it, 3 a name starts with it or has a word starting with it, 4 any other match), then TVL desc, then address.`;

const BASKETS_DESCRIPTION = `Baskets of the operator's baskets file, by id. A basket's \`addresses\` are its addresses on the chains in scope (the chains named, else every supported chain the key may read), chain ascending then the file's order; \`tokens\` the metadata of those the loaded snapshots hold, by tracked TVL desc, then chain id, then address. Baskets with no address in scope are left out. Lists in the query: \`a=1,2\`, \`a=1&a=2\` or \`a[]=1&a[]=2\`.`;

const STREAM_DESCRIPTION = `Change sets, pools and tokens pushed as they start being served (docs/stream.md). One path, two transports: with \`Upgrade: websocket\` a WebSocket (its messages: the AsyncAPI document, /v1/asyncapi.json); with \`Accept: text/event-stream\` server-sent events (this response); any other request is 406 \`NOT_ACCEPTABLE\`. A request whose \`Upgrade\` does not list \`websocket\` (absent, \`h2c\`) is never switched: it is an ordinary GET. A WebSocket handshake is checked before the key (RFC 6455 §4.2): a malformed one (no \`Connection: Upgrade\`, a \`Sec-WebSocket-Key\` that is not base64 of 16 bytes, no \`Sec-WebSocket-Version\`) is 400 \`INVALID_WEBSOCKET_HANDSHAKE\`, another version than 13 is 426 \`UNSUPPORTED_WEBSOCKET_VERSION\` with \`Sec-WebSocket-Version: 13\`. Opening counts as one request against the key's quota (events do not); refusals are plain HTTP answers, never an upgrade.

1. Topics (\`topics=a,b\` or \`topics=a&topics=b\`, any letter case, answered lowercase): \`changes\` (every chain the key may read), \`changes:<chainId>\`, \`pool:<chainId>:<poolAddress>\`, \`token:<chainId>:<tokenAddress>\`; at most \`STREAM_MAX_TOPICS\` per connection. A chain the key may not read is 403.
2. Events: \`event: <type>\`, \`id: <position after it>\`, \`data: <JSON>\`. The first is \`subscribed\` (the topics and the current position); then \`changes\` for every change set of a subscribed chain, \`pool\` / \`token\` with the record as its REST route answers it (\`removed: true\` when it left the file), \`resync\` when a chain must be re-read. Every event of a swap is sent after the swap serves on every thread; per connection, events keep swap order.
3. \`since=<position>\` (or \`Last-Event-ID\`, which wins): the missed \`changes\` events (or \`resync\`) first, then one event with the current state of each subscribed pool or token that changed.
4. A comment line every 15 s keeps the connection alive; a client whose unsent bytes pass \`STREAM_MAX_BUFFER_BYTES\` is disconnected; at most \`STREAM_MAX_CONNECTIONS_PER_KEY\` open streams per key (the next is 429).`;

const CHANGES_DESCRIPTION = `What changed since a position, one address per entry, in pages linked by an opaque cursor (the change sets the stream's \`changes\` events carry).

1. Each time a chain file starts being served, its change set lists the pools whose pool-details JSON is new or differs, the tokens whose single-chain JSON or tracked price is new or differs (\`upserted\`: re-read them), and those no longer in the file (\`removed\`: drop them). A chain's first load upserts everything. Applying a change set is idempotent.
2. Per chain of the scope (\`chainIds\`, else every loaded chain the key may read): when the position's change set is in the history this gateway keeps (\`CHANGES_RETENTION\`), the sets served after it; otherwise, when the position's \`generatedAt\` is not older than the oldest state the history knows, every kept set with a larger \`generatedAt\` (a superset: a position moves between instances that skipped different files); otherwise, and after a deliberate rollback, the chain is in \`resync\`: re-read it through the REST routes.
3. Entries: chain id ascending, then change-set order, then pools before tokens, upserted before removed, address ascending.
4. \`position\` is where to continue once every page is read; it is the same on every page of a walk. \`nextCursor\` is null exactly at the end; send it with the same \`since\` and \`chainIds\` (\`limit\` may change). A change set dropped from the history before the walk reaches it puts its chain in that page's \`resync\`.

A position naming chains outside the scope is fine: their entries are kept as they are in \`position\`. Positions are derived from the files' contents only: any instance that served the same files accepts them.`;

const STATUS_DESCRIPTION = `The freshness of every loaded chain the key may read: the served file's \`generatedAt\`, \`blockNumber\` and change-set \`id\`, when this gateway started serving it, its age in whole seconds, and its pool and token counts. \`position\` names those chains' served files: pass it as \`since\` to GET /v1/changes or GET /v1/stream to learn what changes from now on. \`origin\` says where this instance pulls its files from (\`SNAPSHOT_ORIGIN\`) and how that goes: the generation served, the last poll and error, whether it is stale; null without an origin.`;

const FLEET_DESCRIPTION = `For operators (access group \`fleet\`: only a key whose \`routes\` lists it has it). Every instance that pulls from an origin (\`SNAPSHOT_ORIGIN\`) and shares a Redis writes after each poll its generation, position, when it applied it and its last error, expiring after 3 poll intervals; this lists the live ones with how far each is behind the newest generation, the generation skew, and whether every instance gives the same position (docs/fleet.md).`;

const pool = POOL_RESPONSE_EXAMPLE.data.pool;
const SAMPLE_TOKEN = { chainId: 8453, address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913" };
const HISTORY_BUCKETS_DESCRIPTION = `Sampled history (shared/spec/history.md §22-§24): each served chain file is one observation at its \`generatedAt\`; buckets are not built from trades.

- Buckets of \`aggregate\` minutes (1, 5, 15), hours (1, 4, 12) or days (1), aligned to UTC; \`t\` is the bucket's start. Minute buckets come from the observations kept \`HISTORY_RAW_HOURS\`, hour buckets from the hourly tier kept \`HISTORY_HOUR_DAYS\`, day buckets without limit.
- Newest first; \`before\` (Unix seconds, exclusive) pages back; \`limit\` 1 to 1000 (default 100).
- A bucket without observation is absent; with \`fill=previous\` (and no file of the chain in it) it carries the previous close and its start is listed in \`filled\`.
- \`coverage\`: from where to where the answer looks, the observations in it and the gaps (spans this instance observed nothing).
- An answer whose buckets are all closed (a later observation was served) never changes: \`Cache-Control: public, max-age=31536000, immutable\`; others \`max-age=10\`.`;

const chainParameter = (carrier: string) => ({ in: "path" as const, carrier, name: "chainId", example: SAMPLE_TOKEN.chainId });
const tokenAddressParameter = (carrier: string) => ({ in: "path" as const, carrier, name: "tokenAddress", example: SAMPLE_TOKEN.address });
/** The query of both history series routes (HistoryQuery), `fill` with an example where one is given. */
const historyQueryParameters = (fillExample?: string) =>
  [
    { in: "query" as const, carrier: "HistoryQuery", name: "aggregate", example: 1 },
    { in: "query" as const, carrier: "HistoryQuery", name: "before" },
    { in: "query" as const, carrier: "HistoryQuery", name: "limit", example: 24 },
    fillExample === undefined
      ? { in: "query" as const, carrier: "HistoryQuery", name: "fill" }
      : { in: "query" as const, carrier: "HistoryQuery", name: "fill", example: fillExample },
  ] as const;
const PAGED_ERRORS = ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "INVALID_PAGINATION_CURSOR", "CHAIN_DATA_UNAVAILABLE"] as const;

/** The OpenAPI document of this table (GET /v1/openapi.json). */
export const OPENAPI_DOCUMENT: OpenApiDocument = new OpenApiDocument((): readonly DocumentedRoute[] => ROUTES);

export const ROUTES = [
  {
    name: "tokens.list",
    method: "POST",
    path: "/v1/tokens",
    access: "tokens",
    body: true,
    handler: listTokens,
    doc: {
      operationId: "listMultiChainTokens",
      summary: "Get a unified list of multi-chain assets",
      description: TOKEN_LIST_DESCRIPTION,
      requestBody: {
        schema: "TokenListRequest",
        description: "A JSON object (at most 64 KiB); `{}` asks for the first page with every default.",
        example: TOKEN_LIST_REQUEST_EXAMPLE,
      },
      success: {
        description: "One page of the list.",
        schema: "TokenListResponse",
        example: TOKEN_LIST_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "INVALID_PAGINATION_CURSOR", "CHAIN_DATA_UNAVAILABLE"],
    },
  },
  {
    name: "tokens.search",
    method: "POST",
    path: "/v1/tokens/search",
    access: "tokens",
    body: true,
    handler: searchTokens,
    doc: {
      operationId: "searchMultiChainTokens",
      summary: "Search multi-chain assets by symbol, name or address",
      description: SEARCH_DESCRIPTION,
      requestBody: {
        schema: "TokenSearchRequest",
        description: "A JSON object (at most 64 KiB) with the search term.",
        example: TOKEN_SEARCH_REQUEST_EXAMPLE,
      },
      success: {
        description: "One page of the matching entries.",
        schema: "TokenSearchResponse",
        example: TOKEN_SEARCH_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: [...PAGED_ERRORS],
    },
  },
  {
    name: "tokens.prices",
    method: "POST",
    path: "/v1/tokens/prices",
    access: "tokens",
    body: true,
    handler: getTokenPrices,
    doc: {
      operationId: "getTokenPrices",
      summary: "Get the USD prices of up to 100 tokens",
      description:
        "Tracked USD prices in request order; `price` is null for a token the chain's snapshot lacks. The zero address is priced as the chain's wrapped native token when the chain has no native record.",
      requestBody: {
        schema: "TokenPricesRequest",
        description: "A JSON object (at most 64 KiB) with 1 to 100 tokens.",
        example: TOKEN_PRICES_REQUEST_EXAMPLE,
      },
      success: {
        description: "The prices.",
        schema: "TokenPricesResponse",
        example: TOKEN_PRICES_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: ["VALIDATION_ERROR", "INVALID_BLOCKCHAIN_ADDRESS", "UNSUPPORTED_CHAIN_ID", "CHAIN_DATA_UNAVAILABLE"],
    },
  },
  {
    name: "tokens.baskets",
    method: "GET",
    path: "/v1/tokens/baskets",
    access: "tokens",
    body: false,
    handler: listBaskets,
    doc: {
      operationId: "listTokenBaskets",
      summary: "List the token baskets",
      description: BASKETS_DESCRIPTION,
      parameters: [
        { in: "query", carrier: "TokenBasketsQuery", name: "chainIds", example: [1, 8453] },
        { in: "query", carrier: "TokenBasketsQuery", name: "basketIds", example: ["btc-pegged-tokens"] },
      ],
      success: {
        description: "The baskets with an address in scope.",
        schema: "TokenBasketsResponse",
        example: TOKEN_BASKETS_RESPONSE_EXAMPLE,
        snapshotVersion: "sometimes",
      },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "INVALID_BASKET_ID", "CHAIN_DATA_UNAVAILABLE"],
    },
  },
  {
    name: "tokens.basket",
    method: "GET",
    path: "/v1/tokens/baskets/{basketId}",
    access: "tokens",
    body: false,
    handler: getBasket,
    doc: {
      operationId: "getTokenBasket",
      summary: "Get a token basket on several chains",
      description: BASKETS_DESCRIPTION,
      parameters: [
        { in: "path", carrier: "BasketPathParameters", name: "basketId", example: "usd-stablecoins" },
        { in: "query", carrier: "TokenBasketQuery", name: "chainIds", example: [8453] },
      ],
      success: {
        description: "The basket.",
        schema: "TokenBasketResponse",
        example: TOKEN_BASKET_RESPONSE_EXAMPLE,
        snapshotVersion: "sometimes",
      },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "INVALID_BASKET_ID", "CHAIN_DATA_UNAVAILABLE", "TOKEN_BASKET_NOT_FOUND"],
    },
  },
  {
    name: "tokens.chainBasket",
    method: "GET",
    path: "/v1/tokens/baskets/{chainId}/{basketId}",
    access: "tokens",
    body: false,
    handler: getChainBasket,
    doc: {
      operationId: "getChainTokenBasket",
      summary: "Get a token basket on one chain",
      description: BASKETS_DESCRIPTION,
      parameters: [
        { in: "path", carrier: "ChainBasketPathParameters", name: "chainId", example: 9745 },
        { in: "path", carrier: "ChainBasketPathParameters", name: "basketId", example: "xau-stablecoins" },
      ],
      success: {
        description: "The basket on this chain.",
        schema: "TokenBasketResponse",
        example: CHAIN_TOKEN_BASKET_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
        dataGeneratedAt: true,
      },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "INVALID_BASKET_ID", "CHAIN_DATA_UNAVAILABLE", "TOKEN_BASKET_NOT_FOUND"],
    },
  },
  {
    name: "tokens.price",
    method: "GET",
    path: "/v1/tokens/prices/{chainId}/{tokenAddress}/usd",
    access: "tokens",
    body: false,
    handler: getTokenPrice,
    doc: {
      operationId: "getTokenPrice",
      summary: "Get a token's USD price",
      description:
        "The token's tracked USD price (0 is a price). The zero address is priced as the chain's wrapped native token when the chain has no native record.",
      parameters: [chainParameter("ChainTokenPathParameters"), tokenAddressParameter("ChainTokenPathParameters")],
      success: {
        description: "The price.",
        schema: "TokenPriceResponse",
        example: TOKEN_PRICE_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
        dataGeneratedAt: true,
      },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "CHAIN_DATA_UNAVAILABLE", "TOKEN_NOT_FOUND"],
    },
  },
  {
    name: "tokens.chainList",
    method: "POST",
    path: "/v1/tokens/{chainId}",
    access: "tokens",
    body: true,
    handler: listChainTokens,
    doc: {
      operationId: "listSingleChainTokens",
      summary: "Get the tokens of one chain",
      description: CHAIN_LIST_DESCRIPTION,
      parameters: [chainParameter("ChainPathParameters")],
      requestBody: {
        schema: "SingleChainTokenListRequest",
        description: "A JSON object (at most 64 KiB); `{}` asks for the first page with every default.",
        example: SINGLE_CHAIN_LIST_REQUEST_EXAMPLE,
      },
      success: {
        description: "One page of the chain's tokens.",
        schema: "SingleChainTokenListResponse",
        example: SINGLE_CHAIN_LIST_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
        dataGeneratedAt: true,
      },
      errors: [...PAGED_ERRORS],
    },
  },
  {
    name: "tokens.byAddress",
    method: "GET",
    path: "/v1/tokens/{tokenAddress}",
    access: "tokens",
    body: false,
    handler: getTokensByAddress,
    doc: {
      operationId: "getTokensByAddress",
      summary: "Find a token address on every chain",
      description:
        "The token at this address on every loaded chain in scope (the chains named, else those the key may read), by tracked TVL desc, then chain id. No eligibility filter; an empty list when no chain holds it.",
      parameters: [
        tokenAddressParameter("TokenAddressPathParameters"),
        { in: "query", carrier: "TokensByAddressQuery", name: "chainIds", example: [8453] },
      ],
      success: {
        description: "The token on each chain holding it.",
        schema: "TokensByAddressResponse",
        example: TOKENS_BY_ADDRESS_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "CHAIN_DATA_UNAVAILABLE"],
    },
  },
  {
    name: "tokens.chainSearch",
    method: "POST",
    path: "/v1/tokens/{chainId}/search",
    access: "tokens",
    body: true,
    handler: searchChainTokens,
    doc: {
      operationId: "searchSingleChainTokens",
      summary: "Search the tokens of one chain",
      description: CHAIN_SEARCH_DESCRIPTION,
      parameters: [chainParameter("ChainPathParameters")],
      requestBody: {
        schema: "SingleChainTokenSearchRequest",
        description: "A JSON object (at most 64 KiB) with the search term.",
        example: SINGLE_CHAIN_SEARCH_REQUEST_EXAMPLE,
      },
      success: {
        description: "One page of the chain's matching tokens.",
        schema: "SingleChainTokenSearchResponse",
        example: SINGLE_CHAIN_SEARCH_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
        dataGeneratedAt: true,
      },
      errors: [...PAGED_ERRORS],
    },
  },
  {
    name: "tokens.chainToken",
    method: "GET",
    path: "/v1/tokens/{chainId}/{tokenAddress}",
    access: "tokens",
    body: false,
    handler: getChainToken,
    doc: {
      operationId: "getSingleChainToken",
      summary: "Get a token on one chain",
      description:
        "The token's metadata and its tracked total value pooled. The zero address is found only when the chain's snapshot has a native record.",
      parameters: [chainParameter("ChainTokenPathParameters"), tokenAddressParameter("ChainTokenPathParameters")],
      success: {
        description: "The token.",
        schema: "SingleChainTokenResponse",
        example: SINGLE_CHAIN_TOKEN_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
        dataGeneratedAt: true,
      },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "CHAIN_DATA_UNAVAILABLE", "TOKEN_NOT_FOUND"],
    },
  },
  {
    name: "pools.get",
    method: "GET",
    path: "/v1/pools/{chainId}/{poolAddress}",
    access: "pools",
    body: false,
    handler: getPool,
    doc: {
      operationId: "getPool",
      summary: "Get information about a single liquidity pool",
      description: "The pool as of the chain's loaded snapshot. Addresses are answered in lowercase.",
      parameters: [
        { in: "path", carrier: "PoolPathParameters", name: "chainId", example: pool.chainId },
        { in: "path", carrier: "PoolPathParameters", name: "poolAddress", example: pool.address },
      ],
      success: {
        description: "The pool.",
        schema: "PoolResponse",
        example: POOL_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
        dataGeneratedAt: true,
      },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "INVALID_POOL_ADDRESS", "CHAIN_DATA_UNAVAILABLE", "LIQUIDITY_POOL_NOT_FOUND"],
    },
  },
  {
    name: "pools.search",
    method: "POST",
    path: "/v1/pools/search",
    access: "pools",
    body: true,
    handler: searchPoolsRoute,
    doc: {
      operationId: "searchPools",
      summary: "Search liquidity pools by token, pair or basket across chains",
      description: POOL_SEARCH_DESCRIPTION,
      requestBody: {
        schema: "PoolSearchRequest",
        description: "A JSON object (at most 64 KiB) naming side A (`tokensA` and/or `basketsA`).",
        example: POOL_SEARCH_REQUEST_EXAMPLE,
      },
      success: {
        description: "One page of the matching pools.",
        schema: "PoolSearchResponse",
        example: POOL_SEARCH_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: [
        "VALIDATION_ERROR",
        "UNSUPPORTED_CHAIN_ID",
        "INVALID_BLOCKCHAIN_ADDRESS",
        "INVALID_PROTOCOL_ID",
        "INVALID_BASKET_ID",
        "INVALID_PAGINATION_CURSOR",
        "CHAIN_DATA_UNAVAILABLE",
      ],
    },
  },
  {
    name: "stream.open",
    method: "GET",
    path: "/v1/stream",
    access: "stream",
    body: false,
    headers: STREAM_HEADERS,
    handler: openEventStream,
    doc: {
      operationId: "openStream",
      summary: "Live change sets, pools and tokens (WebSocket or server-sent events)",
      description: STREAM_DESCRIPTION,
      parameters: [
        { in: "query", carrier: "StreamQuery", name: "topics", example: ["changes:8453", `pool:${pool.chainId}:${pool.address}`] },
        { in: "query", carrier: "StreamQuery", name: "since", example: "AQ" },
        { in: "header", carrier: "StreamRequestHeaders", name: "Last-Event-ID" },
        { in: "header", carrier: "StreamRequestHeaders", name: "Upgrade", example: "websocket" },
        { in: "header", carrier: "StreamRequestHeaders", name: "Sec-WebSocket-Key", example: "dGhlIHNhbXBsZSBub25jZQ==" },
        { in: "header", carrier: "StreamRequestHeaders", name: "Sec-WebSocket-Version", example: "13" },
      ],
      stream: {
        upgrade:
          "Switching Protocols: the request was a WebSocket handshake (`Upgrade: websocket`) and was admitted; the connection is now a WebSocket carrying the events as text messages and the client's subscribe/unsubscribe messages (the AsyncAPI document, /v1/asyncapi.json). Besides uWS's handshake headers, it carries `x-trace-id` and the key's `RateLimit-*`.",
      },
      success: {
        description: "Server-sent events (`text/event-stream`), open until the client or the gateway closes it.",
        contentType: "text/event-stream",
        schema: { type: "string", description: "A stream of server-sent events; each `data` line is one JSON event." },
        snapshotVersion: "always",
      },
      errors: [
        "INVALID_WEBSOCKET_HANDSHAKE",
        "VALIDATION_ERROR",
        "UNSUPPORTED_CHAIN_ID",
        "INVALID_POSITION",
        "NOT_ACCEPTABLE",
        "UNSUPPORTED_WEBSOCKET_VERSION",
      ],
    },
  },
  {
    name: "protocols.list",
    method: "GET",
    path: "/v1/protocols",
    access: "protocols",
    body: false,
    handler: listProtocols,
    doc: {
      operationId: "listProtocols",
      summary: "List the protocols that have a pool in the loaded snapshots",
      description:
        "Ordered by `id`; a protocol present on several chains is listed once, with the record of the lowest chain id. Before any chain has loaded: 503 `CHAIN_DATA_UNAVAILABLE` with `chainId` null.",
      success: {
        description: "The protocols of the loaded chains.",
        schema: "ProtocolsResponse",
        example: PROTOCOLS_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: ["CHAIN_DATA_UNAVAILABLE"],
    },
  },
  {
    name: "changes.list",
    method: "GET",
    path: "/v1/changes",
    access: "stream",
    body: false,
    handler: getChanges,
    doc: {
      operationId: "listChanges",
      summary: "Page through what changed since a position",
      description: CHANGES_DESCRIPTION,
      parameters: [
        { in: "query", carrier: "ChangesQuery", name: "since", example: "AQ" },
        { in: "query", carrier: "ChangesQuery", name: "chainIds", example: [143] },
        { in: "query", carrier: "ChangesQuery", name: "limit", example: 2 },
        { in: "query", carrier: "ChangesQuery", name: "cursor" },
      ],
      success: {
        description: "One page of the changes.",
        schema: "ChangesResponse",
        example: CHANGES_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "INVALID_POSITION", "INVALID_PAGINATION_CURSOR", "CHAIN_DATA_UNAVAILABLE"],
    },
  },
  {
    name: "status",
    method: "GET",
    path: "/v1/status",
    access: "stream",
    body: false,
    handler: getStatus,
    doc: {
      operationId: "getStatus",
      summary: "Freshness of every chain and the current position",
      description: STATUS_DESCRIPTION,
      success: {
        description: "The loaded chains the key may read.",
        schema: "StatusResponse",
        example: STATUS_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: ["VALIDATION_ERROR", "CHAIN_DATA_UNAVAILABLE"],
    },
  },
  {
    name: "history.tokenOhlcv",
    method: "GET",
    path: "/v1/history/tokens/{chainId}/{tokenAddress}/ohlcv/{timeframe}",
    access: "history",
    body: false,
    handler: getTokenOhlcv,
    doc: {
      operationId: "getTokenOhlcv",
      summary: "A token's price candles over time (sampled from the served files)",
      description: HISTORY_BUCKETS_DESCRIPTION,
      parameters: [
        { in: "path", carrier: "TokenHistoryPathParameters", name: "chainId", example: SAMPLE_TOKEN.chainId },
        { in: "path", carrier: "TokenHistoryPathParameters", name: "tokenAddress", example: SAMPLE_TOKEN.address },
        { in: "path", carrier: "TokenHistoryPathParameters", name: "timeframe", example: "hour" },
        ...historyQueryParameters("previous"),
      ],
      success: {
        description: "The candles, newest first.",
        schema: "TokenOhlcvResponse",
        example: HISTORY_TOKEN_OHLCV_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "TOKEN_NOT_FOUND", "HISTORY_DISABLED", "HISTORY_UNAVAILABLE"],
    },
  },
  {
    name: "history.pool",
    method: "GET",
    path: "/v1/history/pools/{chainId}/{poolAddress}/{timeframe}",
    access: "history",
    body: false,
    handler: getPoolHistory,
    doc: {
      operationId: "getPoolHistory",
      summary: "A pool's TVL, volume, fees and yield over time (sampled from the served files)",
      description: HISTORY_BUCKETS_DESCRIPTION,
      parameters: [
        { in: "path", carrier: "PoolHistoryPathParameters", name: "chainId", example: pool.chainId },
        { in: "path", carrier: "PoolHistoryPathParameters", name: "poolAddress", example: pool.address },
        { in: "path", carrier: "PoolHistoryPathParameters", name: "timeframe", example: "hour" },
        ...historyQueryParameters(),
      ],
      success: {
        description: "The rows, newest first.",
        schema: "PoolHistoryResponse",
        example: HISTORY_POOL_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: [
        "VALIDATION_ERROR",
        "UNSUPPORTED_CHAIN_ID",
        "INVALID_POOL_ADDRESS",
        "LIQUIDITY_POOL_NOT_FOUND",
        "HISTORY_DISABLED",
        "HISTORY_UNAVAILABLE",
      ],
    },
  },
  {
    name: "history.prices",
    method: "POST",
    path: "/v1/history/tokens/prices",
    access: "history",
    body: true,
    handler: getHistoricalPrices,
    doc: {
      operationId: "getHistoricalPrices",
      summary: "The USD prices of up to 100 tokens at a time",
      description:
        "Each token's last observation at or before `at`, in request order: from every observation while the raw tier keeps them (`HISTORY_RAW_HOURS`), then at the end of the hour (`HISTORY_HOUR_DAYS`), then of the day. `null` for a token history never observed there. Sampled from the served files (docs/history.md).",
      requestBody: {
        schema: "HistoricalPricesRequest",
        description: "A JSON object (at most 64 KiB) with `at` and 1 to 100 tokens.",
        example: HISTORY_PRICES_REQUEST_EXAMPLE,
      },
      success: {
        description: "The prices.",
        schema: "HistoricalPricesResponse",
        example: HISTORY_PRICES_RESPONSE_EXAMPLE,
        snapshotVersion: "always",
      },
      errors: ["VALIDATION_ERROR", "INVALID_BLOCKCHAIN_ADDRESS", "UNSUPPORTED_CHAIN_ID", "HISTORY_DISABLED", "HISTORY_UNAVAILABLE"],
    },
  },
  {
    name: "fleet.status",
    method: "GET",
    path: "/v1/status/fleet",
    access: "fleet",
    body: false,
    handler: getFleetStatus,
    doc: {
      operationId: "getFleetStatus",
      summary: "The instances sharing this origin and the generation each serves (operators)",
      description: FLEET_DESCRIPTION,
      success: {
        description: "The live instances, by id.",
        schema: "FleetStatusResponse",
        snapshotVersion: "sometimes",
      },
      errors: ["VALIDATION_ERROR", "FLEET_VIEW_UNAVAILABLE"],
    },
  },
  {
    name: "health",
    method: "GET",
    path: "/health",
    access: "public",
    probe: true,
    body: false,
    handler: getHealth,
    doc: {
      operationId: "getHealth",
      summary: "Liveness",
      description:
        "A probe: never counted against the per-address budget of requests without a key (`PUBLIC_RATE_LIMIT`), so never refused for rate; answered from bytes encoded once.",
      success: {
        description: "The process is up (not enveloped).",
        schema: "HealthResponse",
        example: HEALTH_RESPONSE_EXAMPLE,
        snapshotVersion: "sometimes",
      },
      errors: [],
    },
  },
  {
    name: "ready",
    method: "GET",
    path: "/ready",
    access: "public",
    probe: true,
    body: false,
    handler: getReadiness,
    doc: {
      operationId: "getReadiness",
      summary: "Readiness",
      description:
        "A probe: never counted against the per-address budget of requests without a key (`PUBLIC_RATE_LIMIT`), so never refused for rate; answered from bytes encoded once per state (served snapshot, initial load, quota store).",
      success: {
        description: "The snapshot files present at start have loaded or been rejected (not enveloped).",
        schema: "ReadinessResponse",
        example: READINESS_RESPONSE_EXAMPLE,
        snapshotVersion: "sometimes",
      },
      otherResponses: {
        "503": { description: "Still loading the snapshot files present at start (not enveloped).", schema: "ReadinessResponse" },
      },
      errors: [],
    },
  },
  {
    name: "metrics",
    method: "GET",
    path: "/metrics",
    access: "public",
    body: false,
    handler: getMetrics,
    doc: {
      operationId: "getMetrics",
      summary: "Prometheus metrics of the whole gateway (every serving thread)",
      success: {
        description: "The Prometheus text exposition format.",
        contentType: "text/plain; version=0.0.4; charset=utf-8",
        schema: { type: "string" },
        snapshotVersion: "sometimes",
      },
      errors: [],
    },
  },
  {
    name: "openapi",
    method: "GET",
    path: "/v1/openapi.json",
    access: "public",
    body: false,
    handler: (): Reply => OPENAPI_DOCUMENT.reply(),
    doc: {
      operationId: "getOpenApiDocument",
      summary: "This OpenAPI 3.1 document",
      success: {
        description: "The document.",
        schema: { type: "object", description: "An OpenAPI 3.1 document." },
        snapshotVersion: "sometimes",
      },
      errors: [],
    },
  },
  {
    name: "asyncapi",
    method: "GET",
    path: "/v1/asyncapi.json",
    access: "public",
    body: false,
    handler: (): Reply => ASYNCAPI_DOCUMENT.reply(),
    doc: {
      operationId: "getAsyncApiDocument",
      summary: "The AsyncAPI 3.0 document of GET /v1/stream",
      description:
        "The WebSocket and server-sent-events channels of GET /v1/stream: the query (`topics`, `since`), every event the gateway sends, the messages a WebSocket client sends, and the close codes (docs/stream.md).",
      success: {
        description: "The document.",
        schema: { type: "object", description: "An AsyncAPI 3.0 document." },
        snapshotVersion: "sometimes",
      },
      errors: [],
    },
  },
  {
    name: "docs",
    method: "GET",
    path: "/docs",
    access: "public",
    body: false,
    handler: getDocsPage,
    doc: {
      operationId: "getApiReferencePage",
      summary: "The interactive API reference (HTML)",
      description:
        'This document and the stream\'s AsyncAPI document as one page, for a browser: every route with its schemas, examples and errors, and "Try it out" requests sent with the key typed into "Authorize". Its files come from this gateway only (`Content-Security-Policy`: the gateway\'s own origin); docs/api-reference.md.',
      success: {
        description: "The page.",
        contentType: "text/html; charset=utf-8",
        schema: { type: "string" },
        snapshotVersion: "sometimes",
      },
      errors: [],
    },
  },
  {
    name: "docs.asset",
    method: "GET",
    path: "/docs/assets/{file}",
    access: "public",
    body: false,
    handler: getDocsAsset,
    doc: {
      operationId: "getApiReferenceAsset",
      summary: "A script, stylesheet or image of the API reference page",
      parameters: [{ in: "path", carrier: "DocsAssetPathParameters", name: "file", example: "docs.js" }],
      success: {
        description: "The file (JavaScript, CSS or PNG), bundled with the gateway at build time.",
        contentType: "*/*",
        schema: { type: "string", description: "text/javascript, text/css or image/png, as the file name says." },
        snapshotVersion: "sometimes",
      },
      errors: ["ROUTE_NOT_FOUND"],
    },
  },
] as const satisfies readonly RouteSpec[];

/** The name of a route of the table. */
export type RouteName = (typeof ROUTES)[number]["name"];

/** Route names in table order: the metrics labels (plus `unmatched` for requests no route takes). */
export const ROUTE_NAMES: readonly RouteName[] = ROUTES.map((r) => r.name);
