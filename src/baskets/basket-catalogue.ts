/**
 * The baskets in force: an immutable catalogue built from a validated baskets
 * file (basket-file.ts). Each serving thread builds its own from the file the
 * supervisor posts, and replaces it as a whole when the file changes.
 */
import { SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../chains/chains.js";
import type { BasketsFile } from "./basket-file.js";

export interface Basket {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly logoUrl: string;
  /** Chain → lowercase addresses in file order; chains in ascending order; only chains the file lists. */
  readonly addresses: ReadonlyMap<ChainId, readonly string[]>;
}

export class BasketCatalogue {
  static readonly EMPTY = new BasketCatalogue({ baskets: [] });

  private readonly byId: ReadonlyMap<string, Basket>;
  private readonly sortedIds: readonly string[];

  /** @param file a file that parseBasketsFile accepted */
  constructor(file: BasketsFile) {
    const byId = new Map<string, Basket>();
    for (const record of file.baskets) {
      const addresses = new Map<ChainId, readonly string[]>();
      for (const chainId of SUPPORTED_CHAIN_IDS_ASCENDING) {
        const listed = record.addresses[String(chainId)];
        if (listed !== undefined) addresses.set(chainId, Object.freeze(listed.map((a) => a.toLowerCase())));
      }
      byId.set(record.id, Object.freeze({ id: record.id, name: record.name, description: record.description, logoUrl: record.logoUrl, addresses }));
    }
    this.byId = byId;
    this.sortedIds = Object.freeze([...byId.keys()].sort());
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
