/** Path parameters shared by several routes (api-decisions.md §2, api-extended.md §7). */
import typia from "typia";
import { ApiError } from "../api/errors.js";
import type { PoolPathParameters } from "../api/wire.js";
import { isSupportedChainId, type ChainId } from "../chains/chains.js";
import { parseAddress } from "../tables/token-lookup.js";
import { constraintError, unsupportedChainError } from "./validation-error.js";

const CANONICAL_INTEGER = /^(0|[1-9][0-9]*)$/;

/** A path `chainId`: base 10 without sign or leading zeros (else VALIDATION_ERROR), supported (else UNSUPPORTED_CHAIN_ID). */
export function parsePathChainId(text: string): ChainId {
  if (!CANONICAL_INTEGER.test(text) || text.length > 15) {
    throw constraintError(
      "chainId",
      text,
      "isInt",
      "chainId must be an integer number",
      "The path chainId must be a base-10 integer without sign or leading zeros.",
    );
  }
  const chainId = Number(text);
  if (!isSupportedChainId(chainId)) throw unsupportedChainError(chainId, [chainId]);
  return chainId;
}

/** A path `tokenAddress`: `0x` + 40 hex digits, any letter case (else VALIDATION_ERROR, `isEthereumAddress`); its 20 bytes. */
export function parsePathTokenAddress(text: string): Uint8Array {
  const address = parseAddress(text);
  if (address === null) {
    throw constraintError(
      "tokenAddress",
      text,
      "isEthereumAddress",
      "tokenAddress must be an Ethereum address",
      "The path tokenAddress must be 0x followed by 40 hex digits (any letter case).",
    );
  }
  return address;
}

/** The address rule of the wire type (0x + 40 or 64 hex digits, any letter case). */
export const isPoolAddress = typia.createIs<PoolPathParameters["poolAddress"]>();

/** 400 INVALID_POOL_ADDRESS for a path `poolAddress` that breaks that rule. */
export function invalidPoolAddress(address: string): ApiError {
  return new ApiError(
    "INVALID_POOL_ADDRESS",
    `"${address.slice(0, 80)}" is not a pool address; use 0x and 40 hex digits, or 0x and 64 hex digits for a V4 pool id.`,
    "Pool addresses are 0x + 40 hex digits (contract) or 0x + 64 hex digits (V4 pool id), any letter case.",
    { liquidityPoolAddress: address },
  );
}
