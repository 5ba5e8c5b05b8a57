/**
 * Request bodies holding lists of tokens named as `{chainId, address}`
 * (POST /v1/tokens/prices, POST /v1/pools/search): the error of a failed
 * validation, in the order of api-extended.md §11: the body's shape first
 * (VALIDATION_ERROR of the first failing property in document order), then
 * every malformed address of the first such list, in document order, that has
 * one (INVALID_BLOCKCHAIN_ADDRESS, addresses as sent), then an unsupported
 * chain id (UNSUPPORTED_CHAIN_ID).
 */
import type { IValidation } from "typia";
import type { InvalidAddressItem } from "../api/wire.js";
import { ApiError } from "../api/errors.js";
import { validationFailure } from "./validation-error.js";

/** @param lists the top-level properties that hold token lists. */
export function tokenListsFailure(body: unknown, errors: readonly IValidation.IError[], lists: readonly string[]): ApiError {
  const itemField = (e: IValidation.IError): { list: string; field: string } | null => {
    const m = /^\$input\.([A-Za-z]+)\[\d+\]\.(address|chainId)$/.exec(e.path);
    return m !== null && lists.includes(m[1]) ? { list: m[1], field: m[2] } : null;
  };
  const isAddress = (e: IValidation.IError) => itemField(e)?.field === "address" && e.value !== undefined;
  const isUnsupportedChain = (e: IValidation.IError) => itemField(e)?.field === "chainId" && Number.isInteger(e.value);
  const shape = errors.filter((e) => !isAddress(e) && !isUnsupportedChain(e));
  if (shape.length > 0) return validationFailure(body, shape);
  const addressErrors = errors.filter(isAddress);
  if (addressErrors.length === 0) return validationFailure(body, errors);

  const object = body as Record<string, unknown>;
  const list = Object.keys(object).find((key) => addressErrors.some((e) => itemField(e)!.list === key))!;
  const received = object[list] as unknown[];
  const invalidAddresses: InvalidAddressItem[] = addressErrors
    .filter((e) => itemField(e)!.list === list)
    .map((e) => ({
      address: e.value,
      reason:
        typeof e.value === "string" ? "not 0x followed by 40 hex digits" : `not a string (${e.value === null ? "null" : typeof e.value})`,
    }));
  return new ApiError(
    "INVALID_BLOCKCHAIN_ADDRESS",
    `${invalidAddresses.length} of the ${received.length} token addresses of ${list} ${invalidAddresses.length === 1 ? "is" : "are"} not valid; use 0x followed by 40 hex digits.`,
    `Malformed: ${invalidAddresses
      .map((a) => JSON.stringify(a.address)?.slice(0, 60))
      .join(", ")
      .slice(0, 400)}.`,
    { invalidAddresses, receivedCount: received.length },
  );
}
