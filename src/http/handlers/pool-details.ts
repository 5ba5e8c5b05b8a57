/** GET /v1/pools/{chainId}/{poolAddress} (api-decisions.md §2, §4): the pre-encoded pool. */
import typia from "typia";
import { assertChainAllowed } from "../../access/restrictions.js";
import type { PoolPathParameters } from "../../api/wire.js";
import { findPool } from "../../snapshot/pool-table.js";
import { columnBytes } from "../../util/shared-columns.js";
import { requireLoadedChain } from "../chain-availability.js";
import { ApiError } from "../errors.js";
import { parsePathChainId } from "../path-parameters.js";
import { dataReply, type Reply } from "../reply.js";
import type { RouteRequest } from "../route.js";

/** The address rule of the wire type (0x + 40 or 64 hex digits, any letter case). */
const isPoolAddress = typia.createIs<PoolPathParameters["poolAddress"]>();

export function getPool(request: RouteRequest): Reply {
  const [chainText, address] = request.params;
  const chainId = parsePathChainId(chainText);
  assertChainAllowed(request.key!, chainId);
  if (!isPoolAddress(address)) {
    throw new ApiError(
      "INVALID_POOL_ADDRESS",
      `"${address.slice(0, 80)}" is not a pool address; use 0x and 40 hex digits, or 0x and 64 hex digits for a V4 pool id.`,
      "Pool addresses are 0x + 40 hex digits (contract) or 0x + 64 hex digits (V4 pool id), any letter case.",
      { liquidityPoolAddress: address },
    );
  }
  const snapshot = requireLoadedChain(request.ctx.store.current, chainId);
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
  return dataReply(['{"pool":', columnBytes(pools.json, index), "}"], snapshot.versionHex);
}
