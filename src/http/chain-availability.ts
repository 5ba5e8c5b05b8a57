/** 503 CHAIN_DATA_UNAVAILABLE for a supported chain whose snapshot never loaded. */
import type { ChainId } from "../chains/chains.js";
import type { ServingSnapshot } from "../snapshot/serving-snapshot.js";
import { ApiError } from "./errors.js";

export function requireLoadedChain(snapshot: ServingSnapshot | null, chainId: ChainId): ServingSnapshot {
  if (snapshot !== null && snapshot.isLoaded(chainId)) return snapshot;
  throw new ApiError(
    "CHAIN_DATA_UNAVAILABLE",
    `Data for chain ${chainId} is not available yet; retry later.`,
    "No snapshot of this chain has loaded on this gateway.",
    { chainId },
    { "retry-after": "30" },
  );
}
