/**
 * The baskets in force: an immutable catalogue built from a validated baskets
 * file (basket-file.ts). Each serving thread builds its own from the file the
 * supervisor posts, and replaces it as a whole when the file changes.
 *
 * Everything about a basket that does not depend on a snapshot is done here,
 * once per load: lowercase addresses per chain, their JSON as a baskets answer
 * writes it, whether a chain lists the native asset. Resolving addresses to
 * token rows needs a snapshot too: serving/basket-view.ts, once per (catalogue,
 * snapshot) pair.
 */
import { createHash } from "node:crypto";
import { NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../chains/chains.js";
import type { BasketsFile } from "./basket-file.js";

/** A basket's addresses on one chain (at least one). */
export interface BasketChain {
  readonly chainId: ChainId;
  /** Lowercase, in file order. */
  readonly addresses: readonly string[];
  /** The same addresses as bytes, 20 each, in file order (what token lookups take). */
  readonly addressBytes: Uint8Array;
  /** `{"chainId":…,"address":"0x…"}` of each address, comma-separated: a piece of the `addresses` answer. */
  readonly addressesJson: Buffer;
  /** The chain's all-zero address (its native asset) is listed. */
  readonly listsNative: boolean;
}

export interface Basket {
  readonly id: string;
  /** Position in the catalogue's ids (ascending): an index for per-basket tables. */
  readonly ordinal: number;
  readonly name: string;
  readonly description: string;
  readonly logoUrl: string;
  /** Chain → lowercase addresses in file order; chains in ascending order; only chains the file lists. */
  readonly addresses: ReadonlyMap<ChainId, readonly string[]>;
  /** The chains with at least one address, ascending. */
  readonly chains: readonly BasketChain[];
  /** `{"id":…,"name":…,"description":…,"logoUrl":…,` : the start of every answer of this basket. */
  readonly headJson: Buffer;
}

export class BasketCatalogue {
  static readonly EMPTY = new BasketCatalogue({ baskets: [] });

  private readonly byId: ReadonlyMap<string, Basket>;
  private readonly sortedIds: readonly string[];
  /** The baskets by ordinal (id ascending). */
  readonly baskets: readonly Basket[];
  /**
   * Names this catalogue's content (a digest of the file as validated): with the snapshot version it
   * names the bytes of a baskets answer, for the response writer's compression cache.
   */
  readonly revision: string;

  /** @param file a file that parseBasketsFile accepted */
  constructor(file: BasketsFile) {
    const records = [...file.baskets].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const baskets: Basket[] = [];
    const byId = new Map<string, Basket>();
    records.forEach((record, ordinal) => {
      const addresses = new Map<ChainId, readonly string[]>();
      const chains: BasketChain[] = [];
      for (const chainId of SUPPORTED_CHAIN_IDS_ASCENDING) {
        const listed = record.addresses[String(chainId)];
        if (listed === undefined) continue;
        const lower = Object.freeze(listed.map((a) => a.toLowerCase()));
        addresses.set(chainId, lower);
        if (lower.length === 0) continue;
        chains.push(
          Object.freeze({
            chainId,
            addresses: lower,
            addressBytes: new Uint8Array(Buffer.from(lower.map((a) => a.slice(2)).join(""), "hex")),
            addressesJson: Buffer.from(lower.map((address) => `{"chainId":${chainId},"address":"${address}"}`).join(",")),
            listsNative: lower.includes(NATIVE_ADDRESS),
          }),
        );
      }
      const headJson = Buffer.from(
        `{"id":${JSON.stringify(record.id)},"name":${JSON.stringify(record.name)},"description":${JSON.stringify(record.description)},"logoUrl":${JSON.stringify(record.logoUrl)},`,
      );
      const basket: Basket = Object.freeze({
        id: record.id,
        ordinal,
        name: record.name,
        description: record.description,
        logoUrl: record.logoUrl,
        addresses,
        chains: Object.freeze(chains),
        headJson,
      });
      baskets.push(basket);
      byId.set(record.id, basket);
    });
    this.baskets = Object.freeze(baskets);
    this.byId = byId;
    this.sortedIds = Object.freeze(baskets.map((b) => b.id));
    this.revision = createHash("sha256").update(JSON.stringify(records)).digest("base64url").slice(0, 16);
  }

  get(id: string): Basket | undefined {
    return this.byId.get(id);
  }

  /** Every basket id, ascending (code-unit order). */
  ids(): readonly string[] {
    return this.sortedIds;
  }

  get size(): number {
    return this.byId.size;
  }
}
