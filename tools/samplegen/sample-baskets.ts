/**
 * The sample baskets file (docs/baskets.md): the reference service's seven
 * basket ids, their members taken from the generated chains — the catalog's
 * major assets, each chain's native and wrapped native token, and the
 * hand-made XAU₮0 tokens. The sample data holds no euro stablecoin, so
 * `eur-stablecoins` lists Circle's EURC addresses on Ethereum and Base, which
 * the sample snapshots do not hold (the basket answers with no `tokens`).
 * Deterministic: the same chains give the same file.
 */
import { CHAINS, NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../../src/chains/chains.js";
import type { BasketRecord, BasketsFile } from "../../src/baskets/basket-file.js";
import type { SnapshotToken } from "../../src/api/snapshot-format.js";
import { BRIDGED_WETH, MAJOR_ASSETS, type MajorAsset } from "./asset-catalog.js";
import { majorAssetAddress } from "./token-factory.js";

type Member =
  /** The chain's native asset (zero address) and its wrapped native token, on chains whose native symbol is this. */
  | { readonly kind: "native"; readonly symbol: string }
  /** A major asset of the catalog, where it is deployed. */
  | { readonly kind: "asset"; readonly symbol: string }
  /** Every token with this on-chain symbol (the hand-made edge cases). */
  | { readonly kind: "symbol"; readonly symbol: string }
  /** A real token that the sample data does not hold. */
  | { readonly kind: "external"; readonly chainId: ChainId; readonly address: string };

interface BasketDefinition {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly members: readonly Member[];
}

const asset = (symbol: string): Member => ({ kind: "asset", symbol });

const DEFINITIONS: readonly BasketDefinition[] = [
  {
    id: "usd-stablecoins",
    name: "USD Stablecoins",
    description: "The most liquid USD stablecoins.",
    members: [asset("USDC"), asset("USDT"), asset("USD₮0"), asset("DAI"), asset("USDe"), asset("USD1")],
  },
  {
    id: "eth-pegged-tokens",
    name: "ETH Pegged Tokens",
    description: "Ether, wrapped Ether and liquid staked Ether.",
    members: [{ kind: "native", symbol: "ETH" }, asset("WETH"), asset("wstETH"), asset("weETH")],
  },
  {
    id: "btc-pegged-tokens",
    name: "BTC Pegged Tokens",
    description: "Tokens backed 1:1 by Bitcoin.",
    members: [asset("WBTC"), asset("cbBTC")],
  },
  {
    id: "hype-pegged-tokens",
    name: "HYPE Pegged Tokens",
    description: "HYPE, wrapped HYPE and liquid staked HYPE.",
    members: [{ kind: "native", symbol: "HYPE" }, asset("kHYPE")],
  },
  {
    id: "monad-pegged-tokens",
    name: "MON Pegged Tokens",
    description: "MON, wrapped MON and liquid staked MON.",
    members: [{ kind: "native", symbol: "MON" }, asset("shMON")],
  },
  {
    id: "xau-stablecoins",
    name: "Gold Stablecoins",
    description: "Tokens backed by physical gold (XAU).",
    members: [{ kind: "symbol", symbol: "XAU₮0" }],
  },
  {
    id: "eur-stablecoins",
    name: "EUR Stablecoins",
    description: "Euro stablecoins (the sample data holds none: these are Circle's EURC contracts).",
    members: [
      { kind: "external", chainId: 1, address: "0x1abaea1f7c830bd89acc67ec4af516284b1bc33c" },
      { kind: "external", chainId: 8453, address: "0x60a3e35cc302bfa44cb288bc5a4f316fdb1adb42" },
    ],
  },
];

const LOGO_BASE = "https://cdn.jsdelivr.net/gh/hydric-org/token-baskets/assets/logos";

const ASSETS: readonly MajorAsset[] = [...MAJOR_ASSETS];

/** Basket id → the chain's member addresses, in definition order, for one generated chain. */
export type ChainBasketMembers = ReadonlyMap<string, readonly string[]>;

/** The members of every sample basket on one generated chain (only tokens the chain holds, external ones aside). */
export function sampleBasketMembers(chainId: ChainId, tokens: readonly SnapshotToken[]): ChainBasketMembers {
  const held = new Set(tokens.map((t) => t.address));
  const out = new Map<string, string[]>();
  for (const definition of DEFINITIONS) {
    const addresses: string[] = [];
    const add = (address: string | undefined) => {
      if (address !== undefined && !addresses.includes(address)) addresses.push(address);
    };
    for (const member of definition.members) {
      switch (member.kind) {
        case "native":
          if (CHAINS[chainId].nativeSymbol !== member.symbol) break;
          add(held.has(NATIVE_ADDRESS) ? NATIVE_ADDRESS : undefined);
          add(held.has(CHAINS[chainId].wrappedNative) ? CHAINS[chainId].wrappedNative : undefined);
          break;
        case "asset": {
          // WETH is the wrapped native where ETH is native (covered above), a bridged asset elsewhere.
          const found = member.symbol === "WETH" ? BRIDGED_WETH : ASSETS.find((a) => a.symbol === member.symbol);
          if (found === undefined) throw new Error(`sample baskets: no catalog asset ${member.symbol}`);
          const deployment = found.deployments[chainId];
          if (deployment === undefined) break;
          const address = majorAssetAddress(chainId, found, deployment);
          if (!held.has(address)) throw new Error(`sample baskets: ${member.symbol} is not on chain ${chainId}`);
          add(address);
          break;
        }
        case "symbol":
          for (const t of tokens) if (t.symbol === member.symbol) add(t.address);
          break;
        case "external":
          if (member.chainId === chainId) add(member.address);
          break;
      }
    }
    out.set(definition.id, addresses);
  }
  return out;
}

/** The baskets file of the generated chains: every definition, chains ascending, chains without a member left out. */
export function sampleBasketsFile(members: ReadonlyMap<ChainId, ChainBasketMembers>): BasketsFile {
  const baskets: BasketRecord[] = DEFINITIONS.map((definition) => {
    const addresses: Record<string, string[]> = {};
    for (const chainId of SUPPORTED_CHAIN_IDS_ASCENDING) {
      const list = members.get(chainId)?.get(definition.id) ?? [];
      if (list.length > 0) addresses[String(chainId)] = [...list];
    }
    return {
      id: definition.id,
      name: definition.name,
      description: definition.description,
      logoUrl: `${LOGO_BASE}/${definition.id}.png`,
      addresses,
    };
  });
  return { baskets };
}
