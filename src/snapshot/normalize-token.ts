/**
 * Token defaults the gateway derives when a snapshot leaves them out
 * (shared/spec/snapshot-format.md, Token): ASCII `normalizedSymbol` /
 * `normalizedName` for grouping, and `logoUrl` from a URL template.
 */
import anyAscii from "any-ascii";
import type { SnapshotToken } from "../api/snapshot-format.js";

export const DEFAULT_TOKEN_LOGO_TEMPLATE = "https://assets.smold.app/api/token/{chainId}/{address}/logo.svg";

// eslint-disable-next-line no-control-regex -- every ASCII code, controls included
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * ASCII transliteration of `s` with any-ascii (`USD₮0` → `USDT0`: any-ascii
 * maps `₮` to `T`; `Ünï` → `Uni`; `ＵＳＤＣ` → `USDC`). ASCII input is returned as is.
 */
export function normalizeText(s: string): string {
  return ASCII_ONLY.test(s) ? s : anyAscii(s);
}

/** The logo URL template with `{chainId}` and `{address}` replaced (every occurrence). */
export function tokenLogoUrl(template: string, chainId: number, address: string): string {
  return template.replaceAll("{chainId}", String(chainId)).replaceAll("{address}", address);
}

export interface TokenDefaults {
  normalizedSymbol: string;
  normalizedName: string;
  logoUrl: string;
}

/** A snapshot token with the optional derived fields filled. */
export type NormalizedSnapshotToken = SnapshotToken & TokenDefaults;

/**
 * A copy of `token` with `normalizedSymbol`, `normalizedName` and `logoUrl`
 * filled: values given in the snapshot are kept as they are (even an empty
 * string); absent ones are derived from `symbol` / `name` and the template.
 */
export function fillTokenDefaults<T extends SnapshotToken>(
  token: T,
  chainId: number,
  logoTemplate: string = DEFAULT_TOKEN_LOGO_TEMPLATE,
): T & TokenDefaults {
  return {
    ...token,
    normalizedSymbol: token.normalizedSymbol ?? normalizeText(token.symbol),
    normalizedName: token.normalizedName ?? normalizeText(token.name),
    logoUrl: token.logoUrl ?? tokenLogoUrl(logoTemplate, chainId, token.address),
  };
}

/**
 * Same as {@link fillTokenDefaults} but sets the fields on `token` itself and
 * returns it (for a freshly decoded snapshot that nobody else holds: copying
 * 80,000 tokens costs far more than adding three properties).
 */
export function fillTokenDefaultsInPlace<T extends SnapshotToken>(
  token: T,
  chainId: number,
  logoTemplate: string = DEFAULT_TOKEN_LOGO_TEMPLATE,
): T & TokenDefaults {
  const filled = token as T & TokenDefaults;
  if (filled.normalizedSymbol === undefined) filled.normalizedSymbol = normalizeText(token.symbol);
  if (filled.normalizedName === undefined) filled.normalizedName = normalizeText(token.name);
  if (filled.logoUrl === undefined) filled.logoUrl = tokenLogoUrl(logoTemplate, chainId, token.address);
  return filled;
}
