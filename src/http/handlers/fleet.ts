/**
 * GET /v1/status/fleet (fleet.md §20; access group `fleet`, an operator's): the instances that share this
 * instance's origin and Redis, as each last wrote itself, with the generation skew, so an operator sees
 * which instance did not take a generation and why. The supervisor reads Redis; this thread asks it.
 */
import { ApiError } from "../../api/errors.js";
import type { FleetData } from "../../api/wire.js";
import { parseQuery } from "../query-params.js";
import { dataReply, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { validateNoQuery } from "./token-lookup.js";

const WHY = {
  "no-origin": "This instance pulls from no origin (SNAPSHOT_ORIGIN is not set), so it is in no fleet view.",
  "no-redis": "The fleet view lives in Redis, and this instance has none (QUOTA_STORE=redis with REDIS_URL).",
  "redis-unreachable": "Redis cannot be reached now; the fleet view is there again once it can.",
} as const;

export async function getFleetStatus(request: KeyedRequest): Promise<Reply> {
  parseQuery(request.query, {}, validateNoQuery);
  const answer = await request.ctx.fetchFleet();
  if (answer.kind === "unavailable")
    throw new ApiError("FLEET_VIEW_UNAVAILABLE", "The fleet view is not available.", WHY[answer.reason], { reason: answer.reason });
  const data: FleetData = answer.data;
  return dataReply([JSON.stringify(data)]);
}
