/**
 * One single-chain query's full list (a chain's list, or a search on it) over
 * one snapshot: entries are the instances' pre-encoded SingleChainTokenMetadata.
 */
import { CursorMemo } from "./cursor-memo.js";
import type { InstanceKey, PagedList } from "./paged-list.js";
import type { SingleChainResult } from "./single-chain-list.js";
import { instanceJson, type TokenIndexData } from "../tables/token-index.js";
import { instanceAddress } from "../tables/token-lookup.js";

export class SingleChainView implements PagedList<InstanceKey> {
  readonly cursors = new CursorMemo();

  constructor(
    private readonly index: TokenIndexData,
    readonly result: SingleChainResult,
    /** TVL desc or asc (ties by address asc), or relevance tier then TVL desc (ties by address asc). */
    readonly order: "desc" | "asc" | "relevance",
  ) {}

  get count(): number {
    return this.result.count;
  }

  /** The bytes this view holds (for cache bounds). */
  get weight(): number {
    return this.result.instances.byteLength + (this.result.tier?.byteLength ?? 0) + 64;
  }

  entry(e: number): Uint8Array {
    return instanceJson(this.index, "metadataJson", this.result.instances[e]);
  }

  keyOf(e: number): InstanceKey {
    const i = this.result.instances[e];
    return { tier: this.result.tier === null ? 0 : this.result.tier[e], tvl: this.index.tvl[i], address: instanceAddress(this.index, i) };
  }

  indexAfter(key: InstanceKey): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareToKey(mid, key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** < 0: entry e comes before the key in this list's order; 0: it is the key's entry. */
  private compareToKey(e: number, key: InstanceKey): number {
    const i = this.result.instances[e];
    const tier = this.result.tier === null ? 0 : this.result.tier[e];
    if (tier !== key.tier) return tier - key.tier;
    const tvl = this.index.tvl[i];
    if (tvl !== key.tvl) return (this.order === "asc" ? tvl < key.tvl : tvl > key.tvl) ? -1 : 1;
    const address = instanceAddress(this.index, i);
    return address < key.address ? -1 : address > key.address ? 1 : 0;
  }
}
