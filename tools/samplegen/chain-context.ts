/** What every per-chain builder needs: the chain, its profile, its random stream and address registries. */
import { CHAINS, type ChainId, type ChainInfo } from "../../src/chains/chains.js";
import { AddressRegistry } from "./addresses.js";
import { CHAIN_PROFILES, type ChainProfile } from "./chain-profiles.js";
import { Rng } from "./random.js";
import type { ScaleProfile } from "./scale.js";

export interface ChainContext {
  readonly chainId: ChainId;
  readonly chain: ChainInfo;
  readonly profile: ChainProfile;
  readonly scale: ScaleProfile;
  readonly seed: number;
  /** Root stream of this chain; builders fork named sub-streams from it. */
  readonly rng: Rng;
  readonly generatedAt: number;
  readonly tokenAddresses: AddressRegistry;
  readonly poolAddresses: AddressRegistry;
}

export function createChainContext(chainId: ChainId, seed: number, scale: ScaleProfile, generatedAt: number): ChainContext {
  return {
    chainId,
    chain: CHAINS[chainId],
    profile: CHAIN_PROFILES[chainId],
    scale,
    seed,
    rng: Rng.fromLabel("liquidity-gateway-sample", seed, scale.name, "chain", chainId),
    generatedAt,
    tokenAddresses: new AddressRegistry(),
    poolAddresses: new AddressRegistry(),
  };
}
