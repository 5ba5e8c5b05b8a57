/**
 * The baskets of one catalogue on one snapshot (api-extended.md §9, §10): built
 * once per (baskets file, snapshot) pair and shared by every request on that
 * pair (ServingSnapshot.baskets). Building it resolves every basket address to
 * the token it names, once:
 * - per basket and chain, the token rows the snapshot holds (what a pool
 *   search's sides are made of);
 * - per basket, the tokens held, in answer order (TVL desc, chain, address).
 * A request then only picks and joins these: no address is parsed or looked
 * up per request. Each answer is encoded once per scope and kept (bounded by
 * bytes).
 */
import type { Basket, BasketCatalogue } from "../baskets/basket-catalogue.js";
import { SUPPORTED_CHAIN_IDS, SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../chains/chains.js";
import { LruCache } from "../util/lru-cache.js";
import { ADDRESS_BYTES, instanceJson, instanceJsonLength, type TokenIndexData } from "../tables/token-index.js";
import { instanceOnChainAt } from "../tables/token-lookup.js";
import { chainMask } from "../query/token-query.js";

/** Most encoded answers one view keeps, and their bytes. */
const CACHED_ANSWERS = 2048;
const CACHED_ANSWER_BYTES = 16 * 1024 * 1024;

const NO_ROWS = new Uint32Array(0);

export class BasketView {
  private readonly answers = new LruCache<string, Buffer | null>(CACHED_ANSWERS, CACHED_ANSWER_BYTES, (answer) => answer?.length ?? 0);
  /** By basket ordinal, then by position in basket.chains: the token rows held there, in file order. */
  private readonly rows: (readonly Uint32Array[])[];
  /** By basket ordinal: the token instances held, by tracked TVL desc, chain id, address. */
  private readonly held: Uint32Array[];

  constructor(
    readonly catalogue: BasketCatalogue,
    /** The served snapshot's token index; null before any snapshot has loaded (no tokens). */
    private readonly index: TokenIndexData | null,
  ) {
    const ix = index;
    this.rows = [];
    this.held = [];
    for (const basket of catalogue.baskets) {
      const rowsPerChain: Uint32Array[] = [];
      const heldPerChain: Uint32Array[] = [];
      for (const chain of basket.chains) {
        if (ix === null) {
          rowsPerChain.push(NO_ROWS);
          continue;
        }
        const rows: number[] = [];
        const ranks: number[] = [];
        for (let k = 0; k < chain.addresses.length; k++) {
          const instance = instanceOnChainAt(ix, chain.chainId, chain.addressBytes, k * ADDRESS_BYTES);
          if (instance < 0) continue;
          rows.push(ix.chainRow[instance]);
          ranks.push(ix.chainRankDesc[instance]);
        }
        rowsPerChain.push(rows.length === 0 ? NO_ROWS : Uint32Array.from(rows));
        // The chain's TVL order (ties by address) is a precomputed rank: a numeric sort, no comparator.
        const byRank = Uint32Array.from(ranks).sort();
        const base = ix.chainStart[SUPPORTED_CHAIN_IDS.indexOf(chain.chainId)];
        for (let k = 0; k < byRank.length; k++) byRank[k] = ix.chainByTvlDesc[base + byRank[k]];
        heldPerChain.push(byRank);
      }
      this.rows.push(rowsPerChain);
      this.held.push(ix === null ? NO_ROWS : mergeByTvl(ix, heldPerChain));
    }
  }

  /** Encodes every basket's answer on every supported chain (the scope of a key without chain restrictions), so no request has to. */
  warm(): this {
    if (this.index !== null) for (const basket of this.catalogue.baskets) this.basketJson(basket, SUPPORTED_CHAIN_IDS_ASCENDING);
    return this;
  }

  /** The token rows (the chain's snapshot token indices) of the basket's addresses the snapshot holds on a chain, unique; empty when none. */
  rowsOn(basket: Basket, chainId: ChainId): Uint32Array {
    const chains = basket.chains;
    for (let k = 0; k < chains.length; k++) if (chains[k].chainId === chainId) return this.rows[basket.ordinal][k];
    return NO_ROWS;
  }

  /** The TokenBasket JSON of `basket` on the chains of `scope` (ascending), or null when it has no address there. */
  basketJson(basket: Basket, scope: readonly ChainId[]): Buffer | null {
    if (this.index === null) return this.encode(basket, scope); // addresses only: a few pieces joined
    const key = `${basket.ordinal}|${chainMask(scope)}`;
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = this.encode(basket, scope);
      this.answers.set(key, answer);
    }
    return answer;
  }

  private encode(basket: Basket, scope: readonly ChainId[]): Buffer | null {
    const chains = basket.chains.filter((chain) => scope.includes(chain.chainId));
    if (chains.length === 0) return null;
    const chainIds = Buffer.from(`"chainIds":[${chains.map((c) => c.chainId).join(",")}],"addresses":[`);
    const ix = this.index;
    const held = this.held[basket.ordinal];
    const mask = chainMask(chains.map((c) => c.chainId));
    // Sizes first, then one buffer written in order.
    let size = basket.headJson.length + chainIds.length + (chains.length - 1) + TOKENS.length + CLOSE.length;
    for (const chain of chains) size += chain.addressesJson.length;
    let listed = 0;
    if (ix !== null) {
      for (let k = 0; k < held.length; k++) {
        const i = held[k];
        if ((ix.chainBit[i] & mask) === 0) continue;
        size += instanceJsonLength(ix, "metadataJson", i);
        listed++;
      }
      if (listed > 1) size += listed - 1;
    }
    const out = Buffer.allocUnsafe(size);
    let at = basket.headJson.copy(out, 0);
    at += chainIds.copy(out, at);
    chains.forEach((chain, k) => {
      if (k > 0) out[at++] = COMMA;
      at += chain.addressesJson.copy(out, at);
    });
    at += TOKENS.copy(out, at);
    if (ix !== null && listed > 0) {
      let first = true;
      for (let k = 0; k < held.length; k++) {
        const i = held[k];
        if ((ix.chainBit[i] & mask) === 0) continue;
        if (!first) out[at++] = COMMA;
        first = false;
        const metadata = instanceJson(ix, "metadataJson", i);
        out.set(metadata, at);
        at += metadata.length;
      }
    }
    at += CLOSE.copy(out, at);
    if (at !== size) throw new Error(`basket ${basket.id}: encoded ${at} bytes, expected ${size}`);
    return out;
  }
}

/**
 * One list of instances by tracked TVL desc, then chain id, then address, from per-chain lists
 * already in that order (chains ascending): a merge, ties in TVL to the lower chain id.
 */
function mergeByTvl(ix: TokenIndexData, lists: readonly Uint32Array[]): Uint32Array {
  let total = 0;
  for (const list of lists) total += list.length;
  const out = new Uint32Array(total);
  const at = new Array<number>(lists.length).fill(0);
  for (let n = 0; n < total; n++) {
    let best = -1;
    for (let c = 0; c < lists.length; c++) {
      if (at[c] === lists[c].length) continue;
      if (best < 0 || ix.tvl[lists[c][at[c]]] > ix.tvl[lists[best][at[best]]]) best = c;
    }
    out[n] = lists[best][at[best]++];
  }
  return out;
}

const COMMA = 0x2c;
const TOKENS = Buffer.from('],"tokens":[');
const CLOSE = Buffer.from("]}");
