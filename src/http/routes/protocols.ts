/** GET /v1/protocols (api-decisions.md §5): protocols with a pool in the loaded snapshots. */
import { successPrefix } from "../envelope.js";
import type { GatewayContext } from "../gateway-context.js";
import type { RequestInfo } from "../request-info.js";
import { sendJson } from "../respond.js";
import type { HttpResponse } from "../uws.js";

export function serveProtocols(res: HttpResponse, info: RequestInfo, ctx: GatewayContext): void {
  const snapshot = ctx.store.current;
  const data = snapshot?.protocolsJson ?? '{"protocols":[]}';
  sendJson(res, info, 200, `${successPrefix(info)}${data}}`, {}, snapshot?.versionHex);
}
