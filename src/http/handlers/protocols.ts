/**
 * GET /v1/protocols (api-decisions.md §5): protocols with a pool in the loaded
 * snapshots. Before any chain has loaded it is 503 CHAIN_DATA_UNAVAILABLE
 * (metadata `chainId: null`), as every other data route answers then: an empty
 * list would read as "no protocols" to a client.
 */
import { requireSnapshot } from "../chain-availability.js";
import { dataReply, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";

export function listProtocols(request: KeyedRequest): Reply {
  const snapshot = requireSnapshot(request.ctx.store.current);
  return dataReply([snapshot.protocolsJson], snapshot.versionHex, "protocols.list");
}
