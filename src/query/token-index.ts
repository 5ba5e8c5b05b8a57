/**
 * The cross-chain token index: every token instance of every loaded chain,
 * grouped by normalizedSymbol (groups in code-unit order) and ranked inside a
 * group by tracked TVL desc, chainId asc, address asc (api-decisions.md §3.2).
 * Plain shared columns, built once per snapshot by a worker.
 */
import type { StringColumn } from "../util/shared-columns.js";

export const FLAG_WRAPPED_NATIVE = 1;
export const FLAG_NAME_CONTAINS_SYMBOL = 2;
export const FLAG_INITIALS_MATCH_SYMBOL = 4;

export interface TokenIndexData {
  readonly instanceCount: number;
  readonly groupCount: number;
  /** groupStart[g]..groupStart[g+1] are the instances of group g, in rank order. */
  readonly groupStart: Uint32Array;
  /** normalizedSymbol of each group. */
  readonly groupSymbol: StringColumn;
  readonly chainId: Uint32Array;
  /** 1 << position of the chain in SUPPORTED_CHAIN_IDS. */
  readonly chainBit: Uint8Array;
  readonly tvl: Float64Array;
  readonly price: Float64Array;
  readonly swaps: Float64Array;
  readonly volume: Float64Array;
  readonly flags: Uint8Array;
  /** Interned cleaned name: equal ids, equal names. */
  readonly nameId: Uint32Array;
  /** Interned first word of the cleaned name; 0 when the name has no word. */
  readonly firstWordId: Uint32Array;
  /** Sorted, unique interned word ids of each name: words[wordStart[i]..wordStart[i+1]]. */
  readonly wordStart: Uint32Array;
  readonly words: Uint32Array;
  /** `{"chainId":1,"address":"0x…"}` of each instance. */
  readonly addressJson: StringColumn;
  /** `"symbol":…,"name":…,"logoUrl":…` of each instance (used when it anchors its group). */
  readonly headerJson: StringColumn;
}
