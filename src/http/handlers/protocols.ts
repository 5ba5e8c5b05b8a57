/** GET /v1/protocols (api-decisions.md §5): protocols with a pool in the loaded snapshots. */
import { dataReply, type Reply } from "../reply.js";
import type { RouteRequest } from "../route.js";

const NONE = '{"protocols":[]}';

export function listProtocols(request: RouteRequest): Reply {
  const snapshot = request.ctx.store.current;
  return snapshot === null ? dataReply([NONE]) : dataReply([snapshot.protocolsJson], snapshot.versionHex);
}
