/**
 * The pool-search index of one chain (api-extended.md §10), built with the
 * chain's snapshot by a build worker (src/snapshot/compile-pool-search.ts):
 * per-pool sort keys, type, protocol and tokens; for every token its pools in
 * the order of every sort key; for every pair of tokens the pools holding
 * both; and where each pool's JSON holds the wrapped native token. Token rows
 * are the chain's snapshot token indices (the token index's `chainRow`). Plain shared columns.
 */
import type { PoolType } from "../api/snapshot-format.js";

export const POOL_ORDER_FIELDS = ["tvl", "yield", "volume", "fees"] as const;
export type PoolOrderField = (typeof POOL_ORDER_FIELDS)[number];
export const POOL_TIMEFRAMES = ["24h", "7d", "30d", "90d"] as const;
export type PoolTimeframe = (typeof POOL_TIMEFRAMES)[number];
export const POOL_TYPES: readonly PoolType[] = ["V2", "V3", "V4", "ALGEBRA", "SLIPSTREAM"];

/** TVL, then yield, volume and fees of each timeframe. */
export const POOL_SORT_KEY_COUNT = 1 + 3 * POOL_TIMEFRAMES.length;
/** Key 0: pool TVL (tracked when the record has it, else totalValueLockedUsd). */
export const TVL_KEY = 0;

/** The sort key of an order: TVL has no timeframe. */
export function sortKeyIndex(field: PoolOrderField, timeframe: PoolTimeframe): number {
  if (field === "tvl") return TVL_KEY;
  return 1 + (POOL_ORDER_FIELDS.indexOf(field) - 1) * POOL_TIMEFRAMES.length + POOL_TIMEFRAMES.indexOf(timeframe);
}

export interface PoolSearchIndexData {
  readonly poolCount: number;
  readonly tokenCount: number;
  /** Sort key k of pool p: keys[k * poolCount + p] (-0 stored as 0). */
  readonly keys: Float64Array;
  /** Rank of each pool's address in address order (code units of the lowercase address): every key's tie-break. */
  readonly addressRank: Uint32Array;
  /** Index in POOL_TYPES of each pool's type. */
  readonly poolType: Uint8Array;
  /** Index in protocolIds of each pool's protocol. */
  readonly poolProtocol: Uint32Array;
  /** Protocol ids of the chain's snapshot, ascending. */
  readonly protocolIds: readonly string[];
  /** Token rows of pool p, in its token order: poolTokens[poolTokenStart[p]..poolTokenStart[p + 1]]. */
  readonly poolTokenStart: Uint32Array;
  readonly poolTokens: Uint32Array;
  /**
   * Pools of token t (each once), for every sort key: ordered by key
   * descending, ties by address ascending. Key k's list of t is
   * tokenPools[k * membershipCount + tokenPoolStart[t] .. k * membershipCount + tokenPoolStart[t + 1]].
   */
  readonly membershipCount: number;
  readonly tokenPoolStart: Uint32Array;
  readonly tokenPools: Uint32Array;
  /**
   * Pools holding two tokens at two positions, by unordered pair of rows
   * (lo <= hi), keyed lo * tokenCount + hi, keys ascending:
   * pools of pairKeys[i] are pairPools[pairStart[i]..pairStart[i + 1]].
   */
  readonly pairKeys: Float64Array;
  readonly pairStart: Uint32Array;
  readonly pairPools: Uint32Array;
  /** Row of the chain's wrapped native token; -1 when its tokens do not list it. */
  readonly wrappedRow: number;
  /**
   * Offsets within pool p's JSON where a copy of the wrapped native token's
   * JSON object starts (in `tokens`, then in `balance.tokens`):
   * wrappedAt[wrappedStart[p]..wrappedStart[p + 1]], ascending.
   */
  readonly wrappedStart: Uint32Array;
  readonly wrappedAt: Uint32Array;
  /** Length of the wrapped native token's JSON object. */
  readonly wrappedJsonBytes: number;
  /** The chain's native asset as a pool token (api-extended.md §10 `parseWrappedToNative`). */
  readonly nativeTokenJson: Uint8Array;
}
