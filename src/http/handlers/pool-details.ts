/** GET /v1/pools/{chainId}/{poolAddress} (api-decisions.md §2, §4): the pre-encoded pool. */
import { assertChainAllowed } from "../../access/restrictions.js";
import { findPool, poolJson } from "../../tables/pool-table.js";
import { requireLoadedChain } from "../chain-availability.js";
import { ApiError } from "../../api/errors.js";
import { invalidPoolAddress, isPoolAddress, parsePathChainId } from "../path-parameters.js";
import { dataReply, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";

const POOL_OPEN = Buffer.from('{"pool":');
const POOL_CLOSE = Buffer.from("}");

export function getPool(request: KeyedRequest): Reply {
  const [chainText, address] = request.params;
  const chainId = parsePathChainId(chainText);
  assertChainAllowed(request.key, chainId);
  const current = request.ctx.store.current;
  if (current === null || !current.isLoaded(chainId)) {
    if (!isPoolAddress(address)) throw invalidPoolAddress(address);
    requireLoadedChain(current, chainId); // throws 503
  }
  const snapshot = current!;
  const pools = snapshot.chains.get(chainId)!.pools;
  // A pool is found only by a well-formed address (every table entry is one), so the format is checked on a miss only.
  const index = findPool(pools, address);
  if (index < 0) {
    if (!isPoolAddress(address)) throw invalidPoolAddress(address);
    throw new ApiError(
      "LIQUIDITY_POOL_NOT_FOUND",
      `No pool ${address} on chain ${chainId}; check the address and chain id.`,
      "The pool is not in the loaded snapshot of this chain.",
      { liquidityPoolAddress: address, chainId },
    );
  }
  // The data is a function of the pool's JSON alone: the JSON's checksum (computed at build) validates it.
  return dataReply(
    [POOL_OPEN, poolJson(pools, index), POOL_CLOSE],
    snapshot.versionHex,
    `pools.get:${chainId}:${index}`,
    pools.jsonCrc[index],
    snapshot.dataGeneratedAt(chainId),
  );
}
