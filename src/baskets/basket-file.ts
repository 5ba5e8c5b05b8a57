/**
 * The operator's baskets file (api-extended.md §9, docs/baskets.md): its
 * types, the typia validator derived from them, and the parser that turns the
 * file into a BasketsFile or a BasketsFileError naming the file and the
 * offending path.
 *
 * The file is rejected as a whole on the first problem; a caller that reloads
 * it keeps the previous baskets in force.
 *
 * Size limits (docs/baskets.md "Limits"): they bound what a basket costs a
 * request (a pool search side, a baskets answer) and what a load costs (each
 * basket is resolved to token rows once per file and snapshot).
 */
import typia, { type IValidation, type tags } from "typia";
import { FILE_LIMITS, OperatorFileError, readOperatorFile } from "../util/operator-file.js";
import { isSupportedChainId, SUPPORTED_CHAIN_IDS_ASCENDING } from "../chains/chains.js";
import { displayPath, displayPathSegments, JsonFileError, moreProblems, parseJsonText, preview } from "../util/json-file.js";

/** A basket id: lowercase words of letters and digits joined by single dashes (`usd-stablecoins`). */
export type BasketId = string & tags.Pattern<"^[a-z0-9]+(-[a-z0-9]+)*$"> & tags.MaxLength<64>;

/** A token address in the file: `0x` + 40 hex digits, any letter case (stored in lowercase). */
export type BasketAddress = string & tags.Pattern<"^0x[0-9a-fA-F]{40}$">;

/** One basket: a named set of token addresses per chain. */
export interface BasketRecord {
  /** Unique in the file; what requests name (`basketIds`, `/v1/tokens/baskets/{basketId}`). */
  id: BasketId;
  /** Display name. */
  name: string;
  /** What the basket holds, for people. */
  description: string;
  /** Logo URL of the basket. */
  logoUrl: string;
  /** Chain id (decimal, a supported chain) → the basket's token addresses on that chain, in the order answered. */
  addresses: Record<string, BasketAddress[]>;
}

/** Most baskets one file holds. */
export const MAX_BASKETS = 100;
/** Most addresses one basket lists, every chain together. */
export const MAX_BASKET_ADDRESSES = 1_000;
/** Most addresses the whole file lists, every basket and chain together. */
export const MAX_FILE_ADDRESSES = 10_000;
/** Most characters of a basket's `name`, `description` and `logoUrl` (answered as they are). */
export const MAX_BASKET_TEXT = { name: 256, description: 2_048, logoUrl: 2_048 } as const;

export interface BasketsFile {
  baskets: BasketRecord[];
}

/** A baskets file that cannot be used. `message` names the file and, when there is one, the offending path (`baskets[2].addresses["8453"][0]`). */
export class BasketsFileError extends JsonFileError {
  override name = "BasketsFileError";
}

const validateBasketsFile = typia.createValidateEquals<BasketsFile>();

const RECORD_FIELDS = ["id", "name", "description", "logoUrl", "addresses"] as const;

/** A chain key as written in the file: a supported chain id in base 10, without sign or leading zeros. */
const CHAIN_KEY = /^(0|[1-9][0-9]{0,14})$/;

/**
 * Parses and validates the text of a baskets file. `source` names the file in
 * error messages. Throws BasketsFileError on invalid JSON, a structural
 * problem (the first one found), a chain key that is not a supported chain,
 * a duplicate id, or an address listed twice for one chain.
 */
export function parseBasketsFile(text: string, source: string): BasketsFile {
  const document = parseJsonText(text, (message, cause) => new BasketsFileError(source, null, message, { cause }));
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new BasketsFileError(source, null, `expected a JSON object {"baskets": [...]} at the top level, found ${preview(document)}`);
  }
  const result: IValidation<BasketsFile> = validateBasketsFile(document);
  if (!result.success) {
    const first = result.errors[0]!;
    const path = displayPath(first.path);
    throw new BasketsFileError(source, path, describeProblem(first, path) + moreProblems(result.errors));
  }
  const file = result.data;
  checkLimits(file, source);

  const ids = new Map<string, number>();
  file.baskets.forEach((basket, index) => {
    const same = ids.get(basket.id);
    if (same !== undefined) {
      throw new BasketsFileError(
        source,
        `baskets[${index}].id`,
        `duplicate id ${JSON.stringify(basket.id)} (already used by baskets[${same}])`,
      );
    }
    ids.set(basket.id, index);
    for (const [key, addresses] of Object.entries(basket.addresses)) {
      const where = `baskets[${index}].addresses[${JSON.stringify(key)}]`;
      if (!CHAIN_KEY.test(key) || !isSupportedChainId(Number(key))) {
        throw new BasketsFileError(
          source,
          where,
          `${JSON.stringify(key)} is not a supported chain id (supported: ${SUPPORTED_CHAIN_IDS_ASCENDING.join(", ")}), written in base 10`,
        );
      }
      const seen = new Map<string, number>();
      addresses.forEach((address, at) => {
        const lower = address.toLowerCase();
        const first = seen.get(lower);
        if (first !== undefined)
          throw new BasketsFileError(
            source,
            `${where}[${at}]`,
            `duplicate address ${JSON.stringify(address)} (already listed at [${first}])`,
          );
        seen.set(lower, at);
      });
    }
  });
  return file;
}

const count = (n: number) => n.toLocaleString("en-US");

/** The size limits, checked on a structurally valid file; the first one broken is the error. */
function checkLimits(file: BasketsFile, source: string): void {
  if (file.baskets.length > MAX_BASKETS) {
    throw new BasketsFileError(
      source,
      "baskets",
      `${count(file.baskets.length)} baskets, more than the ${count(MAX_BASKETS)} a file may hold`,
    );
  }
  let total = 0;
  file.baskets.forEach((basket, index) => {
    for (const field of ["name", "description", "logoUrl"] as const) {
      const max = MAX_BASKET_TEXT[field];
      if (basket[field].length > max)
        throw new BasketsFileError(
          source,
          `baskets[${index}].${field}`,
          `${count(basket[field].length)} characters, more than the ${count(max)} allowed`,
        );
    }
    let inBasket = 0;
    for (const addresses of Object.values(basket.addresses)) inBasket += addresses.length;
    if (inBasket > MAX_BASKET_ADDRESSES) {
      throw new BasketsFileError(
        source,
        `baskets[${index}].addresses`,
        `${count(inBasket)} addresses, more than the ${count(MAX_BASKET_ADDRESSES)} a basket may list (every chain together)`,
      );
    }
    total += inBasket;
    if (total > MAX_FILE_ADDRESSES) {
      throw new BasketsFileError(
        source,
        `baskets[${index}].addresses`,
        `the baskets up to this one list ${count(total)} addresses, more than the ${count(MAX_FILE_ADDRESSES)} a file may list (every basket and chain together)`,
      );
    }
  });
}

/**
 * Reads and parses a baskets file from disk through the bounded operator-file
 * reader (a regular file of at most `maxBytes`, opened without blocking);
 * every failure, IO included, is a BasketsFileError.
 */
export function loadBasketsFile(path: string, maxBytes: number = FILE_LIMITS.baskets.maxBytes): BasketsFile {
  let text: string;
  try {
    text = readOperatorFile(path, { ...FILE_LIMITS.baskets, maxBytes }).bytes.toString("utf8");
  } catch (error) {
    if (error instanceof OperatorFileError)
      throw new BasketsFileError(path, null, `cannot read the baskets file: ${error.problem}`, { cause: error });
    throw error;
  }
  return parseBasketsFile(text, path);
}

// ---------------------------------------------------------------- messages

function describeProblem(error: IValidation.IError, path: string): string {
  const segs = displayPathSegments(path);
  const found = error.value === undefined ? "" : `, found ${preview(error.value)}`;
  if (error.expected === "undefined") {
    const allowed = segs.length === 3 ? RECORD_FIELDS : ["baskets"];
    return `unknown property ${JSON.stringify(String(segs[segs.length - 1]))} (allowed: ${allowed.join(", ")})`;
  }
  if (error.value === undefined) return "missing required property";
  if (segs.length === 0) return `expected an object with a "baskets" array${found}`;
  if (segs.length === 1) return `expected an array of basket objects${found}`;
  if (segs.length === 2) return `expected a basket object {"id", "name", "description", "logoUrl", "addresses"}${found}`;
  switch (segs[2]) {
    case "id":
      return `expected 1 to 64 characters: lowercase letters and digits in words joined by single dashes (e.g. "usd-stablecoins")${found}`;
    case "name":
    case "description":
    case "logoUrl":
      return `expected a string${found}`;
    case "addresses":
      if (segs.length === 3) return `expected an object {"<chainId>": ["0x…", …]}${found}`;
      if (segs.length === 4) return `expected an array of token addresses${found}`;
      return `expected a token address: 0x and 40 hex digits${found}`;
    default:
      return `expected ${error.expected}${found}`;
  }
}
