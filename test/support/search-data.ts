/**
 * A seeded random multi-chain data set for the search and single-chain property tests: shared
 * symbols and names that overlap as substrings (`USD` in `USDC`, `Tether USD`, `usd+`), words
 * that start names or sit inside them, literal `%` and `_`, letter case and non-ASCII variants
 * (raw symbols and names differ from their normalized forms), addresses shared across chains,
 * prices near the parity limits and many exact TVL ties (the address and symbol tie-breaks).
 */
import { CHAINS, NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS, type ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile, SnapshotToken } from "../../src/api/snapshot-format.js";
import { chainFile, token } from "./fixtures.js";
import { prng, type Prng } from "./prng.js";

interface Spec {
  symbol: string;
  name: string;
  price: number;
  /** On-chain forms whose normalized forms are symbol / name. */
  raw?: { symbol: string; name: string };
}

const SPECS: Spec[] = [
  { symbol: "USDC", name: "USD Coin", price: 1 },
  { symbol: "USDC", name: "Bridged USDC (Stargate)", price: 1 },
  { symbol: "USDT", name: "Tether USD", price: 1 },
  { symbol: "USDT0", name: "USDT0", price: 1, raw: { symbol: "USD₮0", name: "USD₮0" } },
  { symbol: "usd+", name: "usd+ yield", price: 1 },
  { symbol: "DAI", name: "Dai Stablecoin", price: 1 },
  { symbol: "SUSD", name: "Synth sUSD", price: 1 },
  { symbol: "ETH", name: "Ether", price: 3000 },
  { symbol: "WETH", name: "Wrapped Ether", price: 3000 },
  { symbol: "stETH", name: "Liquid staked Ether 2.0", price: 3000 },
  { symbol: "WBTC", name: "Wrapped BTC", price: 60_000 },
  { symbol: "UNI", name: "Uniswap", price: 8 },
  { symbol: "UNIBOT", name: "Unibot", price: 8 },
  { symbol: "SUSHI", name: "SushiSwap", price: 1.2 },
  { symbol: "PCT", name: "100% Real", price: 2 },
  { symbol: "UND", name: "under_score token", price: 3 },
  { symbol: "UNICO", name: "Unicode Coin", price: 4, raw: { symbol: "ÜNICO", name: "Ünïcode Coin" } },
  { symbol: "X", name: "x", price: 0 },
  { symbol: "TIE", name: "Tie Breaker", price: 10 },
];

const TVLS = [0, 5_000, 10_000, 10_001, 50_000, 50_000, 100_000, 100_000, 250_000, 1_000_000];
const SWAPS = [0, 999, 1000, 1001, 5000, 5000];
const VOLUMES = [0, 99_999, 100_000, 100_001, 1_000_000, 1_000_000];
const PRICE_MULTIPLIERS = [1, 1, 1, 1.05, 0.95, 1.2, 0.8, 1.5, 0];

function randomAddress(r: Prng): string {
  let s = "0x";
  for (let i = 0; i < 40; i++) s += "0123456789abcdef"[r.int(0, 15)];
  return s;
}

export function generateSearchData(seed: number, perChain: [number, number] = [25, 40]): SnapshotFile[] {
  const r = prng(seed);
  const shared = Array.from({ length: 6 }, () => randomAddress(r));
  const files: SnapshotFile[] = [];
  for (const chainId of SUPPORTED_CHAIN_IDS) {
    const chain = CHAINS[chainId as ChainId];
    const tokens: SnapshotToken[] = [];
    const used = new Set<string>();
    const add = (t: SnapshotToken) => {
      if (used.has(t.address)) return;
      used.add(t.address);
      tokens.push(t);
    };
    const numbers = () => ({
      trackedTotalValuePooledUsd: r.chance(0.15) ? r.int(0, 40) * 2_500 : r.pick(TVLS),
      swapsCount: r.pick(SWAPS),
      trackedSwapVolumeUsd: r.pick(VOLUMES),
    });
    if (r.chance(0.85))
      add(
        token(chainId, { address: NATIVE_ADDRESS, symbol: chain.nativeSymbol, name: chain.nativeName, trackedUsdPrice: 100, ...numbers() }),
      );
    add(
      token(chainId, {
        address: chain.wrappedNative,
        symbol: "W" + chain.nativeSymbol,
        name: "Wrapped " + chain.nativeName,
        trackedUsdPrice: 100,
        ...numbers(),
      }),
    );
    const count = r.int(perChain[0], perChain[1]);
    for (let i = 0; i < count; i++) {
      const spec = r.pick(SPECS);
      const address = r.chance(0.1) ? r.pick(shared) : randomAddress(r);
      const lowerName = r.chance(0.2);
      const normalizedName = lowerName ? spec.name.toLowerCase() : spec.name;
      add(
        token(chainId, {
          address,
          symbol: spec.raw?.symbol ?? (r.chance(0.1) ? spec.symbol.toLowerCase() : spec.symbol),
          name: spec.raw?.name ?? normalizedName,
          normalizedSymbol: spec.symbol,
          normalizedName,
          decimals: r.pick([6, 8, 18]),
          logoUrl: r.chance(0.2) ? undefined : `https://logos.test/s/${chainId}/${address}.png`,
          trackedUsdPrice: spec.price * r.pick(PRICE_MULTIPLIERS),
          ...numbers(),
        }),
      );
    }
    files.push(chainFile(chainId as ChainId, { tokens }));
  }
  return files;
}

/** A search term drawn from the data (a piece of a field, any case, padded), an address, or a fixed tricky one. */
export function randomTerm(r: Prng, data: SnapshotFile[]): string {
  const file = r.pick(data);
  const t = r.pick(file.tokens);
  switch (r.int(0, 9)) {
    case 0:
    case 1:
    case 2: {
      const field = r.pick([t.symbol, t.name, t.normalizedSymbol ?? t.symbol, t.normalizedName ?? t.name]);
      if (field.length === 0) return "usd";
      const start = r.int(0, field.length - 1);
      const piece = field.slice(start, r.int(start + 1, field.length));
      return piece.trim().length === 0 ? "e" : piece;
    }
    case 3:
      return (r.chance(0.5) ? t.symbol.toUpperCase() : t.symbol.toLowerCase()) || "x";
    case 4:
      return `  ${t.name.split(" ")[0] || "coin"} `;
    case 5:
      return r.chance(0.5) ? t.address : t.address.toUpperCase().replace("0X", "0x");
    case 6:
      return r.pick(["%", "_", "us", "USD", "u", "e", "coin", "ether", "wrapped", "ü", "₮", "+", "0.", "Eth"]);
    case 7:
      return r.pick(["zzzz", "no such token", "0x" + "f".repeat(40)]);
    default:
      return r.pick(["usdc", "uni", "weth", "tie", "x", "stable"]);
  }
}
