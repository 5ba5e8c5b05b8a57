/** Assembles SnapshotToken records with a stable key order, and the entry type the generator passes around. */
import type { SnapshotToken } from "../../src/api/snapshot-format.js";

export type TokenRole = "native" | "wrapped-native" | "major" | "special" | "shared" | "tail";

export interface TokenEntry {
  /** Position in the chain's token list while generating (pool planning indexes by it). */
  readonly index: number;
  readonly record: SnapshotToken;
  readonly role: TokenRole;
  /** > 0 when the token serves as the quote side (WETH, USDC, ...) of long-tail pools. */
  readonly quoteWeight: number;
  readonly stable: boolean;
}

export interface TokenFields {
  address: string;
  symbol: string;
  name: string;
  normalizedSymbol?: string | undefined;
  normalizedName?: string | undefined;
  decimals: number;
  logoUrl?: string | undefined;
  usdPrice: number;
  trackedUsdPrice: number;
  totalValuePooledUsd?: number | undefined;
  trackedTotalValuePooledUsd: number;
  swapsCount: number;
  swapVolumeUsd?: number | undefined;
  trackedSwapVolumeUsd: number;
}

/**
 * Builds the record in the format's field order, leaving out optional fields
 * that are undefined (msgpack then carries no key at all, not a nil).
 */
export function assembleToken(fields: TokenFields): SnapshotToken {
  const token = { address: fields.address, symbol: fields.symbol, name: fields.name } as SnapshotToken;
  if (fields.normalizedSymbol !== undefined) token.normalizedSymbol = fields.normalizedSymbol;
  if (fields.normalizedName !== undefined) token.normalizedName = fields.normalizedName;
  token.decimals = fields.decimals;
  if (fields.logoUrl !== undefined) token.logoUrl = fields.logoUrl;
  token.usdPrice = fields.usdPrice;
  token.trackedUsdPrice = fields.trackedUsdPrice;
  if (fields.totalValuePooledUsd !== undefined) token.totalValuePooledUsd = fields.totalValuePooledUsd;
  token.trackedTotalValuePooledUsd = fields.trackedTotalValuePooledUsd;
  token.swapsCount = fields.swapsCount;
  if (fields.swapVolumeUsd !== undefined) token.swapVolumeUsd = fields.swapVolumeUsd;
  token.trackedSwapVolumeUsd = fields.trackedSwapVolumeUsd;
  return token;
}

/** Logo host of the sample indexer (absent logos are filled by the gateway's template). */
export function minorLogoUrl(chainId: number, address: string): string {
  return `https://static.liquiditydata.dev/tokens/${chainId}/${address}.png`;
}
