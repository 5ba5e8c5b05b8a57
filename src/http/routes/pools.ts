/** GET /v1/pools/{chainId}/{poolAddress} (api-decisions.md §2, §4). */
import typia from "typia";
import { assertChainAllowed } from "../../access/restrictions.js";
import type { KeyEntry } from "../../access/key-store.js";
import type { PoolPathParameters } from "../../api/wire.js";
import { isSupportedChainId } from "../../chains/chains.js";
import { findPool } from "../../snapshot/pool-table.js";
import { columnBytes } from "../../util/shared-columns.js";
import { requireLoadedChain } from "../chain-availability.js";
import { successPrefix } from "../envelope.js";
import { ApiError } from "../errors.js";
import type { GatewayContext } from "../gateway-context.js";
import type { RequestInfo } from "../request-info.js";
import { assemble, sendJson } from "../respond.js";
import type { HttpResponse } from "../uws.js";
import { unsupportedChainError } from "../validation-error.js";

const CANONICAL_INTEGER = /^(0|[1-9][0-9]*)$/;
/** The address rule of the wire type (0x + 40 or 64 hex digits, any letter case). */
const isPoolAddress = typia.createIs<PoolPathParameters["poolAddress"]>();

function parseChainId(text: string): number {
  if (!CANONICAL_INTEGER.test(text) || text.length > 15) {
    const rule = "chainId must be an integer number";
    throw new ApiError("VALIDATION_ERROR", `Invalid parameter chainId: ${rule}.`, "The path chainId must be a base-10 integer without sign or leading zeros.", {
      property: "chainId",
      value: text,
      constraints: { isInt: [rule] },
    });
  }
  return Number(text);
}

export function servePool(res: HttpResponse, info: RequestInfo, ctx: GatewayContext, key: KeyEntry, params: readonly string[]): void {
  const [chainText, address] = params;
  const chainId = parseChainId(chainText);
  if (!isSupportedChainId(chainId)) throw unsupportedChainError(chainId, [chainId]);
  assertChainAllowed(key, chainId);
  if (!isPoolAddress(address)) {
    throw new ApiError(
      "INVALID_POOL_ADDRESS",
      `"${address.slice(0, 80)}" is not a pool address; use 0x and 40 hex digits, or 0x and 64 hex digits for a V4 pool id.`,
      "Pool addresses are 0x + 40 hex digits (contract) or 0x + 64 hex digits (V4 pool id), any letter case.",
      { liquidityPoolAddress: address },
    );
  }
  const snapshot = requireLoadedChain(ctx.store.current, chainId);
  const pools = snapshot.chains.get(chainId)!.pools;
  const index = findPool(pools, address);
  if (index < 0) {
    throw new ApiError(
      "LIQUIDITY_POOL_NOT_FOUND",
      `No pool ${address} on chain ${chainId}; check the address and chain id.`,
      "The pool is not in the loaded snapshot of this chain.",
      { liquidityPoolAddress: address, chainId },
    );
  }
  const body = assemble(successPrefix(info) + '{"pool":', [columnBytes(pools.json, index)], "", "}}");
  sendJson(res, info, 200, body, {}, snapshot.versionHex);
}
