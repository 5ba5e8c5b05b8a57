/**
 * One query's full list over one snapshot, with each entry's JSON encoded
 * the first time a page needs it and kept for the pages after.
 */
import { columnBytes, columnString, utf8 } from "../util/shared-columns.js";
import type { TokenListResult } from "./evaluate-token-list.js";
import type { TokenIndexData } from "./token-index.js";

const OPEN_ADDRESSES = utf8('{"addresses":[');
const COMMA = utf8(",");
const CLOSE_ADDRESSES = utf8("],");
const OPEN_CHAIN_IDS = utf8(',"chainIds":[');
const CLOSE_ENTRY = utf8("]}");

export class TokenListView {
  private readonly encoded: Array<Buffer | undefined>;

  constructor(
    private readonly index: TokenIndexData,
    readonly result: TokenListResult,
  ) {
    this.encoded = new Array(result.count);
  }

  get count(): number {
    return this.result.count;
  }

  /** JSON of entry e (a MultiChainTokenMetadata object). */
  entry(e: number): Buffer {
    return (this.encoded[e] ??= this.encodeEntry(e));
  }

  symbolOf(e: number): string {
    return columnString(this.index.groupSymbol, this.result.group[e]);
  }

  /**
   * First entry that comes after the key (tvl, symbol) in this list's order:
   * where an expired cursor continues.
   */
  indexAfter(tvl: number, symbol: string, direction: "desc" | "asc"): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.result.tvl[mid];
      const before = direction === "desc" ? t > tvl : t < tvl;
      if (before || (t === tvl && this.symbolOf(mid) <= symbol)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private encodeEntry(e: number): Buffer {
    const ix = this.index;
    const { memberStart, members } = this.result;
    const from = memberStart[e];
    const to = memberStart[e + 1];
    const parts: Uint8Array[] = [OPEN_ADDRESSES];
    for (let m = from; m < to; m++) {
      if (m > from) parts.push(COMMA);
      parts.push(columnBytes(ix.addressJson, members[m]));
    }
    parts.push(CLOSE_ADDRESSES, columnBytes(ix.headerJson, members[from]), OPEN_CHAIN_IDS);
    let seen = 0;
    let chainIds = "";
    for (let m = from; m < to; m++) {
      const bit = ix.chainBit[members[m]];
      if (seen & bit) continue;
      seen |= bit;
      chainIds += (chainIds ? "," : "") + ix.chainId[members[m]];
    }
    parts.push(utf8(chainIds), CLOSE_ENTRY);
    return Buffer.concat(parts);
  }
}
