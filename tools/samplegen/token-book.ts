/** The growing token list of one chain. */
import type { SnapshotToken } from "../../src/api/snapshot-format.js";
import type { ChainProfile } from "./chain-profiles.js";
import { isAscii } from "./names.js";
import type { TokenEntry, TokenRole } from "./token-record.js";

export class TokenBook {
  readonly entries: TokenEntry[] = [];

  add(record: SnapshotToken, role: TokenRole, quoteWeight = 0, stable = false): TokenEntry {
    const entry: TokenEntry = { index: this.entries.length, record, role, quoteWeight, stable };
    this.entries.push(entry);
    return entry;
  }
}

/**
 * The normalization fields an indexer of this chain would ship for an ASCII
 * token: copies of symbol and name, or nothing (the gateway derives them).
 */
export function indexerNormalization(
  profile: ChainProfile,
  symbol: string,
  name: string,
): { normalizedSymbol?: string; normalizedName?: string } {
  if (!profile.normalizesNames || !isAscii(symbol) || !isAscii(name)) return {};
  return { normalizedSymbol: symbol, normalizedName: name };
}
