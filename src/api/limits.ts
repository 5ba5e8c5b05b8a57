/**
 * What one request may ask of the gateway, in one place (api-decisions.md §2;
 * issue 9). The limits of request fields (a page's `limit` at most 500, 100
 * tokens a list, 10 baskets a side) are typia tags of the wire types
 * (wire.ts), where the validators and the OpenAPI schemas read them.
 */

/** Largest accepted JSON body, bytes (64 KiB). */
export const MAX_BODY_BYTES = 65_536;

/** Deepest accepted nesting of arrays and objects in a JSON body (checked before parsing). */
export const MAX_JSON_DEPTH = 64;

/** Longest search term (trimmed), in UTF-16 code units. */
export const MAX_SEARCH_TERM_LENGTH = 100;

/** Entries of a token list page when the request names no `limit`. */
export const DEFAULT_LIMIT = 10;

/** Pools of a pool-search page when the request names no `limit`. */
export const DEFAULT_POOL_SEARCH_LIMIT = 10;
