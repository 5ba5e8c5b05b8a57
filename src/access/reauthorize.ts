/**
 * Access for what outlives its request (an open stream, live.md §13): what
 * the access layer answers now, after a keys-file reload or once the key's
 * `expiresAt` passes, for the key a connection was admitted with. The same
 * refusals, in the same order, as a request presenting that key would get:
 * API_KEY_NOT_FOUND (401; no record has its digest any more), API_KEY_DISABLED,
 * API_KEY_EXPIRED, API_KEY_FORBIDDEN for the route group, then for each chain
 * the connection holds (403). The connection keeps the key's digest (its
 * entry) and masked form, never the key.
 */
import type { AccessGroup } from "../api/access-groups.js";
import { assertKeyUsable, keyNotFound } from "./authenticate.js";
import type { KeyEntry, KeyStore } from "./key-store.js";
import { assertChainAllowed, assertRouteAllowed } from "./restrictions.js";

/**
 * The entry `store` has now for the key admitted as `admitted` (matched by its
 * SHA-256, whatever its id), or throws the ApiError a request with that key
 * and route group would get at `now` (epoch ms). `heldChains`: the chains the
 * connection holds explicitly, each of which must still be allowed (asked only
 * when the key is restricted to some chains).
 */
export function reauthorize(
  admitted: KeyEntry,
  maskedKey: string,
  store: KeyStore,
  now: number,
  group: AccessGroup,
  heldChains: (entry: KeyEntry) => Iterable<number>,
): KeyEntry {
  const entry = store.bySha256(admitted.record.sha256);
  if (entry === undefined) throw keyNotFound(maskedKey);
  assertKeyUsable(entry, now);
  assertRouteAllowed(entry, group);
  if (entry.chainIds !== null) for (const chainId of heldChains(entry)) assertChainAllowed(entry, chainId);
  return entry;
}
