/**
 * One multi-chain query's full list (the token list, or a search) over one
 * snapshot, with each entry's JSON encoded the first time a page needs it and
 * kept for the pages after.
 */
import { columnString, utf8 } from "../tables/shared-columns.js";
import { CursorMemo } from "./cursor-memo.js";
import type { TokenListResult } from "./evaluate-token-list.js";
import type { GroupKey, PagedList } from "./paged-list.js";
import { instanceJsonLength, jsonColumn, type TokenIndexData } from "../tables/token-index.js";

const OPEN_ADDRESSES = utf8('{"addresses":[');
const COMMA = 0x2c;
const CLOSE_ADDRESSES = utf8("],");
const OPEN_CHAIN_IDS = utf8(',"chainIds":[');
const CLOSE_ENTRY = utf8("]}");
const FIXED_BYTES = OPEN_ADDRESSES.length + CLOSE_ADDRESSES.length + OPEN_CHAIN_IDS.length + CLOSE_ENTRY.length;

export class TokenListView implements PagedList<GroupKey> {
  private readonly encoded: Array<Buffer | undefined>;
  readonly cursors = new CursorMemo();

  constructor(
    private readonly index: TokenIndexData,
    readonly result: TokenListResult,
    /** The list's order: group TVL desc or asc, or relevance tier then group TVL desc. */
    readonly order: "desc" | "asc" | "relevance",
  ) {
    this.encoded = new Array(result.count);
  }

  /** Roughly the bytes this view holds once every entry is encoded (for cache bounds). */
  get weight(): number {
    return this.result.members.byteLength + this.result.count * 200;
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

  /** Relevance tier of entry e (0 when the list is not ordered by relevance). */
  tierOf(e: number): number {
    return this.result.tier === null ? 0 : this.result.tier[e];
  }

  keyOf(e: number): GroupKey {
    return { tier: this.tierOf(e), tvl: this.result.tvl[e], symbol: this.symbolOf(e) };
  }

  /**
   * First entry that comes after the key (tier, tvl, symbol) in this list's
   * order (`relevance`: tier asc, then TVL desc): where an expired cursor continues.
   */
  indexAfter({ tier, tvl, symbol }: GroupKey): number {
    const order = this.order;
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const r = this.tierOf(mid);
      const t = this.result.tvl[mid];
      const before = r < tier || (r === tier && ((order === "asc" ? t < tvl : t > tvl) || (t === tvl && this.symbolOf(mid) <= symbol)));
      if (before) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Sizes the entry first, then copies its pieces (from their chains' columns) into one buffer. */
  private encodeEntry(e: number): Buffer {
    const ix = this.index;
    const { memberStart, members } = this.result;
    const from = memberStart[e];
    const to = memberStart[e + 1];
    const at = ix.jsonAt;
    const anchor = members[from];
    const header = jsonColumn(ix, "headerJson", anchor);
    const headerAt = at[anchor];
    let seen = 0;
    let chainIds = "";
    let size = FIXED_BYTES + (to - from - 1) + header.offsets[headerAt + 1] - header.offsets[headerAt];
    for (let m = from; m < to; m++) {
      const i = members[m];
      size += instanceJsonLength(ix, "addressJson", i);
      const bit = ix.chainBit[i];
      if (seen & bit) continue;
      seen |= bit;
      chainIds += (seen === bit ? "" : ",") + ix.chainId[i];
    }
    size += chainIds.length;
    const out = Buffer.allocUnsafe(size);
    let w = copy(out, 0, OPEN_ADDRESSES, 0, OPEN_ADDRESSES.length);
    for (let m = from; m < to; m++) {
      if (m > from) out[w++] = COMMA;
      const i = members[m];
      const address = jsonColumn(ix, "addressJson", i);
      w = copy(out, w, address.bytes, address.offsets[at[i]], address.offsets[at[i] + 1]);
    }
    w = copy(out, w, CLOSE_ADDRESSES, 0, CLOSE_ADDRESSES.length);
    w = copy(out, w, header.bytes, header.offsets[headerAt], header.offsets[headerAt + 1]);
    w = copy(out, w, OPEN_CHAIN_IDS, 0, OPEN_CHAIN_IDS.length);
    w += out.write(chainIds, w, "latin1");
    copy(out, w, CLOSE_ENTRY, 0, CLOSE_ENTRY.length);
    return out;
  }
}

function copy(out: Buffer, at: number, from: Uint8Array, start: number, end: number): number {
  for (let k = start; k < end; k++) out[at++] = from[k];
  return at;
}
