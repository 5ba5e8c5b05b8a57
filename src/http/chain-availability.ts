/** 503 CHAIN_DATA_UNAVAILABLE: a supported chain whose snapshot never loaded, or no snapshot at all. */
import type { ChainId } from "../chains/chains.js";
import type { ServingSnapshot } from "../serving/serving-snapshot.js";
import { ApiError } from "../api/errors.js";

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

/** The served snapshot, or 503 when none has loaded yet. */
export function requireSnapshot(snapshot: ServingSnapshot | null): ServingSnapshot {
  if (snapshot !== null) return snapshot;
  throw new ApiError(
    "CHAIN_DATA_UNAVAILABLE",
    "No chain data has loaded yet; retry shortly.",
    "The gateway has not loaded any snapshot yet.",
    { chainId: null },
    { "retry-after": "30" },
  );
}
