/**
 * What every cursor-paged list offers the request path (api-decisions.md
 * §3.6-3.7): its full ordered result on one snapshot, the JSON of each entry,
 * and the sort key of each entry, which a cursor carries so that a walk whose
 * snapshot was retired continues after its last entry on the current one.
 */
import type { CursorMemo } from "./cursor-memo.js";
import type { PositionReader, PositionWriter } from "./cursor.js";

export interface PagedList<K> {
  readonly count: number;
  /** JSON of entry e. */
  entry(e: number): Uint8Array;
  /** The sort key of entry e. */
  keyOf(e: number): K;
  /** The first entry that comes after `key` in this list's order. */
  indexAfter(key: K): number;
  /** Next-page cursors already issued. */
  readonly cursors: CursorMemo;
}

/** How a list's sort key travels in a cursor. */
export interface CursorKeyCodec<K> {
  write(key: K, to: PositionWriter): PositionWriter;
  read(from: PositionReader): K;
}

/** Sort key of a multi-chain entry: relevance tier (0 when not ordered by it), group TVL, normalizedSymbol. */
export interface GroupKey {
  readonly tier: number;
  readonly tvl: number;
  readonly symbol: string;
}

/** The token list's cursors carry (tvl, symbol). */
export const TVL_SYMBOL_KEY: CursorKeyCodec<GroupKey> = {
  write: (key, to) => to.f64(key.tvl).string(key.symbol),
  read: (from) => ({ tier: 0, tvl: from.f64(), symbol: from.string() }),
};

/** Search cursors carry (tier, tvl, symbol). */
export const TIER_TVL_SYMBOL_KEY: CursorKeyCodec<GroupKey> = {
  write: (key, to) => to.u32(key.tier).f64(key.tvl).string(key.symbol),
  read: (from) => ({ tier: from.u32(), tvl: from.f64(), symbol: from.string() }),
};

/** Sort key of a single-chain entry: relevance tier (0 when not ordered by it), tracked TVL, address. */
export interface InstanceKey {
  readonly tier: number;
  readonly tvl: number;
  readonly address: string;
}

export const TIER_TVL_ADDRESS_KEY: CursorKeyCodec<InstanceKey> = {
  write: (key, to) => to.u32(key.tier).f64(key.tvl).string(key.address),
  read: (from) => ({ tier: from.u32(), tvl: from.f64(), address: from.string() }),
};
