/** Path parameters shared by several routes (api-decisions.md §2, api-extended.md §7). */
import { isSupportedChainId, type ChainId } from "../chains/chains.js";
import { ApiError } from "./errors.js";
import { unsupportedChainError } from "./validation-error.js";

const CANONICAL_INTEGER = /^(0|[1-9][0-9]*)$/;

/** A path `chainId`: base 10 without sign or leading zeros (else VALIDATION_ERROR), supported (else UNSUPPORTED_CHAIN_ID). */
export function parsePathChainId(text: string): ChainId {
  if (!CANONICAL_INTEGER.test(text) || text.length > 15) {
    const rule = "chainId must be an integer number";
    throw new ApiError("VALIDATION_ERROR", `Invalid parameter chainId: ${rule}.`, "The path chainId must be a base-10 integer without sign or leading zeros.", {
      property: "chainId",
      value: text,
      constraints: { isInt: [rule] },
    });
  }
  const chainId = Number(text);
  if (!isSupportedChainId(chainId)) throw unsupportedChainError(chainId, [chainId]);
  return chainId;
}
