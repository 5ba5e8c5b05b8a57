/**
 * The well-known tokens of a chain: its native asset, its wrapped native,
 * the major assets deployed there, and the hand-made edge cases.
 */
import { NATIVE_ADDRESS, type ChainId } from "../../src/chains/chains.js";
import { fixedAddress } from "./addresses.js";
import { MAJOR_ASSETS, type AssetDeployment, type MajorAsset } from "./asset-catalog.js";
import type { ChainContext } from "./chain-context.js";
import { clamp, significant, usd } from "./numbers.js";
import type { Rng } from "./random.js";
import { SPECIAL_TOKENS, specialTokensOf } from "./special-tokens.js";
import { indexerNormalization, type TokenBook } from "./token-book.js";
import { assembleToken, minorLogoUrl } from "./token-record.js";

/** Quote weight of the wrapped native: the most common pair side. */
const WRAPPED_QUOTE_WEIGHT = 10;

interface LiquidStats {
  totalValuePooledUsd: number;
  trackedTotalValuePooledUsd: number;
  swapsCount: number;
  swapVolumeUsd: number;
  trackedSwapVolumeUsd: number;
}

/** Stats of a deep, heavily traded asset with about `tvlUsd` of pooled liquidity. */
function liquidStats(rng: Rng, tvlUsd: number): LiquidStats {
  const tracked = usd(tvlUsd * rng.float(0.9, 1.1));
  const volume = usd(tracked * rng.logNormal(120, 0.4));
  return {
    totalValuePooledUsd: usd(tracked * rng.float(1, 1.03)),
    trackedTotalValuePooledUsd: tracked,
    swapsCount: Math.max(5_000, Math.round(tracked / rng.logNormal(400, 0.5))),
    swapVolumeUsd: usd(volume * rng.float(1, 1.02)),
    trackedSwapVolumeUsd: volume,
  };
}

/** A per-chain price: stables within ~1 %, others within ~3 % (well inside the 20 % parity). */
function chainPrice(rng: Rng, reference: number, stable: boolean): number {
  const spread = stable ? 0.004 : 0.01;
  const limit = stable ? 0.012 : 0.03;
  return significant(reference * (1 + clamp(rng.normal() * spread, -limit, limit)), 7);
}

export function addNativeAndWrapped(ctx: ChainContext, book: TokenBook): void {
  const rng = ctx.rng.fork("native");
  const { chain, profile } = ctx;
  const nativePrice = chainPrice(rng, profile.nativePriceUsd, false);

  ctx.tokenAddresses.claim(NATIVE_ADDRESS);
  book.add(
    assembleToken({
      address: NATIVE_ADDRESS,
      symbol: chain.nativeSymbol,
      name: chain.nativeName,
      ...indexerNormalization(profile, chain.nativeSymbol, chain.nativeName),
      decimals: 18,
      logoUrl: profile.nativeLogoUrl,
      usdPrice: nativePrice,
      trackedUsdPrice: nativePrice,
      ...liquidStats(rng, profile.nativeTvlUsd),
    }),
    "native",
  );

  const wrappedPrice = significant(nativePrice * rng.float(0.999, 1.001), 7);
  ctx.tokenAddresses.claim(chain.wrappedNative);
  book.add(
    assembleToken({
      address: chain.wrappedNative,
      symbol: profile.wrapped.symbol,
      name: profile.wrapped.name,
      ...indexerNormalization(profile, profile.wrapped.symbol, profile.wrapped.name),
      decimals: 18,
      logoUrl: profile.wrapped.symbol === "WETH" ? "https://assets.coingecko.com/coins/images/2518/large/weth.png" : profile.nativeLogoUrl,
      usdPrice: wrappedPrice,
      trackedUsdPrice: wrappedPrice,
      ...liquidStats(rng, profile.wrappedTvlUsd),
    }),
    "wrapped-native",
    WRAPPED_QUOTE_WEIGHT,
  );
}

function majorNormalization(ctx: ChainContext, asset: MajorAsset, deployment: AssetDeployment) {
  if (deployment.explicitNormalization === true) {
    return { normalizedSymbol: asset.normalizedSymbol ?? asset.symbol, normalizedName: asset.normalizedName ?? asset.name };
  }
  if (deployment.explicitNormalization === false) return {};
  return indexerNormalization(ctx.profile, asset.symbol, asset.name);
}

/** The address of a major asset on a chain: the real one from the catalog, else fixed per (chain, symbol). */
export function majorAssetAddress(chainId: ChainId, asset: MajorAsset, deployment: AssetDeployment): string {
  return deployment.address ?? fixedAddress(`${chainId}:${asset.symbol}`);
}

function addMajor(ctx: ChainContext, book: TokenBook, asset: MajorAsset, deployment: AssetDeployment): void {
  const rng = ctx.rng.fork("major", asset.symbol);
  const address = ctx.tokenAddresses.claim(majorAssetAddress(ctx.chainId, asset, deployment));
  const price = chainPrice(rng, asset.priceUsd, asset.stable);
  const tvl = deployment.tvlUsd ?? asset.baseTvlUsd * ctx.profile.tvlMultiplier;
  book.add(
    assembleToken({
      address,
      symbol: asset.symbol,
      name: asset.name,
      ...majorNormalization(ctx, asset, deployment),
      decimals: asset.decimals,
      logoUrl: asset.logoUrl,
      usdPrice: price,
      trackedUsdPrice: price,
      ...liquidStats(rng, tvl),
    }),
    "major",
    asset.quoteWeight,
    asset.stable,
  );
}

export function addMajors(ctx: ChainContext, book: TokenBook): void {
  for (const asset of MAJOR_ASSETS) {
    const deployment = asset.deployments[ctx.chainId];
    if (deployment !== undefined) addMajor(ctx, book, asset, deployment);
  }
}

export function addSpecials(ctx: ChainContext, book: TokenBook): void {
  const rng = ctx.rng.fork("special");
  for (const spec of specialTokensOf(ctx.chainId)) {
    const address = ctx.tokenAddresses.fresh(rng);
    const explicit =
      spec.normalizedSymbol !== undefined
        ? { normalizedSymbol: spec.normalizedSymbol, normalizedName: spec.normalizedName ?? spec.name }
        : indexerNormalization(ctx.profile, spec.symbol, spec.name);
    book.add(
      assembleToken({
        address,
        symbol: spec.symbol,
        name: spec.name,
        ...explicit,
        decimals: spec.decimals,
        logoUrl: rng.chance(0.8) ? minorLogoUrl(ctx.chainId, address) : undefined,
        usdPrice: spec.usdPrice,
        trackedUsdPrice: spec.trackedUsdPrice,
        totalValuePooledUsd: usd(spec.tvlUsd * rng.float(1, 1.05)),
        trackedTotalValuePooledUsd: spec.tvlUsd,
        swapsCount: spec.swapsCount,
        swapVolumeUsd: usd(spec.volumeUsd * rng.float(1, 1.02)),
        trackedSwapVolumeUsd: spec.volumeUsd,
      }),
      "special",
      0,
      spec.symbol.startsWith("USD"),
    );
  }
}

/** Symbols the random generators must not produce, so the hand-made cases stay exact. */
export function reservedSymbols(): Set<string> {
  const reserved = new Set<string>(["ETH", "WETH", "MON", "WMON", "HYPE", "WHYPE", "XPL", "WXPL", "BTC", "USD", "XAUT0", "USDT0"]);
  for (const asset of MAJOR_ASSETS) reserved.add(asset.symbol);
  for (const spec of SPECIAL_TOKENS) reserved.add(spec.symbol);
  return reserved;
}
