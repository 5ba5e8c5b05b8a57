/**
 * Token baskets as answered (api-extended.md §9): a basket of the operator's
 * file on the chains in scope, with the metadata of the addresses the
 * snapshot holds. One view per (snapshot, baskets file); each answer is
 * encoded once per scope and kept (bounded).
 */
import type { Basket, BasketCatalogue } from "../baskets/basket-catalogue.js";
import type { ChainId } from "../chains/chains.js";
import { LruCache } from "../util/lru-cache.js";
import { columnBytes } from "../util/shared-columns.js";
import type { TokenIndexData } from "./token-index.js";
import { compareInstanceAddresses, instanceOnChain, parseAddress } from "./token-lookup.js";

const CACHED_ANSWERS = 512;

export class BasketView {
  private readonly answers = new LruCache<string, Buffer | null>(CACHED_ANSWERS);

  constructor(
    readonly catalogue: BasketCatalogue,
    /** The served snapshot's token index; null before any snapshot has loaded (no tokens). */
    private readonly index: TokenIndexData | null,
  ) {}

  /** The TokenBasket JSON of `basket` on the chains of `scope` (ascending), or null when it has no address there. */
  basketJson(basket: Basket, scope: readonly ChainId[]): Buffer | null {
    const key = `${basket.id}|${scope.join(",")}`;
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = this.encode(basket, scope);
      this.answers.set(key, answer);
    }
    return answer;
  }

  private encode(basket: Basket, scope: readonly ChainId[]): Buffer | null {
    const chainIds: ChainId[] = [];
    const addresses: string[] = [];
    const held: number[] = [];
    const ix = this.index;
    for (const chainId of scope) {
      const listed = basket.addresses.get(chainId);
      if (listed === undefined || listed.length === 0) continue;
      chainIds.push(chainId);
      for (const address of listed) {
        addresses.push(`{"chainId":${chainId},"address":"${address}"}`);
        const i = ix === null ? -1 : instanceOnChain(ix, chainId, parseAddress(address)!);
        if (i >= 0) held.push(i);
      }
    }
    if (chainIds.length === 0) return null;
    const tokens: Uint8Array[] = [];
    if (ix !== null) {
      held.sort((a, b) => ix.tvl[b] - ix.tvl[a] || ix.chainId[a] - ix.chainId[b] || compareInstanceAddresses(ix, a, b));
      for (const i of held) tokens.push(columnBytes(ix.metadataJson, i));
    }
    const head =
      `{"id":${JSON.stringify(basket.id)},"name":${JSON.stringify(basket.name)},"description":${JSON.stringify(basket.description)},` +
      `"logoUrl":${JSON.stringify(basket.logoUrl)},"chainIds":[${chainIds.join(",")}],"addresses":[${addresses.join(",")}],"tokens":[`;
    const parts: Uint8Array[] = [Buffer.from(head)];
    tokens.forEach((t, k) => {
      if (k > 0) parts.push(COMMA);
      parts.push(t);
    });
    parts.push(CLOSE);
    return Buffer.concat(parts);
  }
}

const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]}");
