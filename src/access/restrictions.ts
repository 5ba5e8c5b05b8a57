/**
 * Route and chain restrictions of a key (keys-file.md `routes`, `chainIds`):
 * a request outside them is 403 API_KEY_FORBIDDEN. These run after
 * authenticate and before input validation (api-decisions.md §5).
 */
import { ApiError } from "../api/errors.js";
import type { KeyEntry } from "./key-store.js";
import { ACCESS_GROUPS, groupAllowed, type AccessGroup } from "../api/access-groups.js";

/** Throws API_KEY_FORBIDDEN unless the key may use `route` (a key without `routes` has every group but the operators'). */
export function assertRouteAllowed(entry: KeyEntry, route: AccessGroup): void {
  const routes = entry.routes;
  if (groupAllowed(routes, route)) return;
  const allowedRoutes = ACCESS_GROUPS.filter((r) => groupAllowed(routes, r));
  throw new ApiError(
    "API_KEY_FORBIDDEN",
    `This API key may not use the ${route} route; ask the gateway operator to add "${route}" to the key's allowed routes.`,
    `Key id "${entry.id}" is restricted to the routes [${allowedRoutes.join(", ")}].`,
    { route, allowedRoutes },
  );
}

/** Throws API_KEY_FORBIDDEN unless the key may read chain `chainId`. */
export function assertChainAllowed(entry: KeyEntry, chainId: number): void {
  if (entry.chainIds === null || entry.chainIds.has(chainId)) return;
  const allowedChainIds = entry.allowedChainIds ?? [];
  throw new ApiError(
    "API_KEY_FORBIDDEN",
    `This API key may not read chain ${chainId}; request one of the chains it allows (${allowedChainIds.join(", ")}) or ask the gateway operator to add chain ${chainId}.`,
    `Key id "${entry.id}" is restricted to the chain ids [${allowedChainIds.join(", ")}].`,
    { chainId, allowedChainIds },
  );
}

/** The chains the key may read, ascending; null when it may read every chain. */
export function allowedChains(entry: KeyEntry): readonly number[] | null {
  return entry.allowedChainIds;
}
