/**
 * The seven supported chains (api-decisions.md §6). This table is the single
 * source of chain facts: ids, names, native assets and wrapped-native tokens.
 */
export const SUPPORTED_CHAIN_IDS = [1, 143, 130, 999, 8453, 9745, 534352] as const;

/** A supported chain id. Wire types use it so that typia checks membership. */
export type ChainId = (typeof SUPPORTED_CHAIN_IDS)[number];

export interface ChainInfo {
  readonly chainId: ChainId;
  readonly name: string;
  readonly nativeSymbol: string;
  readonly nativeName: string;
  /** Lowercase address of the chain's wrapped native token. */
  readonly wrappedNative: string;
}

export const NATIVE_ADDRESS = "0x0000000000000000000000000000000000000000";

export const CHAINS: Readonly<Record<ChainId, ChainInfo>> = {
  1: {
    chainId: 1,
    name: "Ethereum",
    nativeSymbol: "ETH",
    nativeName: "Ether",
    wrappedNative: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
  },
  143: {
    chainId: 143,
    name: "Monad",
    nativeSymbol: "MON",
    nativeName: "Monad",
    wrappedNative: "0x3bd359c1119da7da1d913d1c4d2b7c461115433a",
  },
  130: {
    chainId: 130,
    name: "Unichain",
    nativeSymbol: "ETH",
    nativeName: "Ether",
    wrappedNative: "0x4200000000000000000000000000000000000006",
  },
  999: {
    chainId: 999,
    name: "HyperEVM",
    nativeSymbol: "HYPE",
    nativeName: "Hyperliquid",
    wrappedNative: "0x5555555555555555555555555555555555555555",
  },
  8453: {
    chainId: 8453,
    name: "Base",
    nativeSymbol: "ETH",
    nativeName: "Ether",
    wrappedNative: "0x4200000000000000000000000000000000000006",
  },
  9745: {
    chainId: 9745,
    name: "Plasma",
    nativeSymbol: "XPL",
    nativeName: "Plasma",
    wrappedNative: "0x6100e367285b01f48d07953803a2d8dca5d19873",
  },
  534352: {
    chainId: 534352,
    name: "Scroll",
    nativeSymbol: "ETH",
    nativeName: "Ether",
    wrappedNative: "0x5300000000000000000000000000000000000004",
  },
};

const supported = new Set<number>(SUPPORTED_CHAIN_IDS);

export function isSupportedChainId(value: unknown): value is ChainId {
  return typeof value === "number" && supported.has(value);
}

/** Supported ids in ascending order (the order used in error metadata). */
export const SUPPORTED_CHAIN_IDS_ASCENDING: readonly ChainId[] = [...SUPPORTED_CHAIN_IDS].sort((a, b) => a - b);
