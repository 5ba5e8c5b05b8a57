/**
 * Maps typia validation failures to the VALIDATION_ERROR of api-decisions.md
 * §1-§2: the first failing property in request-document order, its dotted
 * path, its value, and a class-validator style constraint name with messages.
 * The constraint and its bound are read from typia's `expected` text, so the
 * wire types stay the only statement of the rules.
 */
import typia, { type IValidation } from "typia";
import { isSupportedChainId, SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../chains/chains.js";
import { ApiError } from "../api/errors.js";
import { unreachable } from "../util/unreachable.js";

type Constraint =
  | "isObject"
  | "isArray"
  | "isString"
  | "isNumber"
  | "isInt"
  | "isBoolean"
  | "isIn"
  | "min"
  | "max"
  | "uniqueItems"
  | "whitelist"
  | "isNotEmpty"
  | "isEthereumAddress"
  | "matches";

/** `$input.filters.chainIds[1]` → `["filters", "chainIds", "1"]`. */
function pathSegments(typiaPath: string): string[] {
  const rest = typiaPath.replace(/^\$input/, "");
  const segments: string[] = [];
  const re = /\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(rest))) segments.push(m[1] ?? m[2] ?? JSON.parse(`"${m[3]}"`));
  return segments;
}

/**
 * Positions in the request document: the index of each key among its parent's
 * keys, each object's keys indexed once per validation (so ranking many errors
 * stays linear in the body size).
 */
class DocumentOrder {
  private readonly keyIndex = new Map<object, Map<string, number>>();

  constructor(private readonly input: unknown) {}

  /** The position of a path; an array-level check (uniqueItems) sorts after its items. */
  of(segments: readonly string[], arrayLevel: boolean): number[] {
    const order: number[] = [];
    let node: unknown = this.input;
    for (const segment of segments) {
      if (Array.isArray(node)) {
        order.push(Number(segment));
        node = node[Number(segment)];
      } else if (node !== null && typeof node === "object") {
        order.push(this.indexOf(node, segment));
        node = (node as Record<string, unknown>)[segment];
      } else break;
    }
    if (arrayLevel) order.push(Number.MAX_SAFE_INTEGER);
    return order;
  }

  private indexOf(node: object, key: string): number {
    let index = this.keyIndex.get(node);
    if (index === undefined) {
      index = new Map();
      let i = 0;
      for (const k of Object.keys(node)) index.set(k, i++);
      this.keyIndex.set(node, index);
    }
    return index.get(key) ?? Number.MAX_SAFE_INTEGER;
  }
}

function compareOrder(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** A finite number that is not an integer (NaN and ±Infinity are not numbers to the API). */
function isFractional(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && !Number.isInteger(value);
}

function constraintOf(expected: string, value: unknown): { name: Constraint; bound?: string; allowed?: string[]; items?: true } {
  if (expected === "undefined") return { name: "whitelist" };
  if (/^\(?Array<.*> & (MinItems|MaxItems)</.test(expected) && Array.isArray(value)) {
    const min = /MinItems<(\d+)>/.exec(expected);
    if (min !== null && value.length < Number(min[1]))
      return min[1] === "1" ? { name: "isNotEmpty" } : { name: "min", bound: min[1], items: true };
    const max = /MaxItems<(\d+)>/.exec(expected);
    if (max !== null) return { name: "max", bound: max[1], items: true };
  }
  if (/^number & /.test(expected) || /^Array<.*> & UniqueItems/.test(expected)) {
    if (/UniqueItems/.test(expected)) return { name: "uniqueItems" };
    if (/Type<"u?int\d+">/.test(expected)) return { name: "isInt" };
    const min = /Minimum<(-?[\d.e+]+)>/.exec(expected);
    if (min) return { name: "min", bound: min[1] };
    const max = /Maximum<(-?[\d.e+]+)>/.exec(expected);
    if (max) return { name: "max", bound: max[1] };
  }
  const alternatives = expected
    .replace(/^\((.*)\)$/, "$1")
    .split(" | ")
    .filter((a) => a !== "undefined" && a !== "null");
  const literals = alternatives.filter((a) => /^"/.test(a));
  if (literals.length > 0 && literals.length === alternatives.length)
    return { name: "isIn", allowed: literals.map((l) => JSON.parse(l) as string) };
  const first = alternatives[0] ?? "";
  if (/^\(?number/.test(first)) return { name: isFractional(value) ? "isInt" : "isNumber" };
  if (first === "boolean") return { name: "isBoolean" };
  if (first === "string" || (/^string & /.test(first) && typeof value !== "string")) return { name: "isString" };
  if (/^\(?Array</.test(first)) return { name: "isArray" };
  return { name: "isObject" };
}

function message(c: ReturnType<typeof constraintOf>, property: string, isItem: boolean): string {
  const subject = isItem ? `each value in ${property}` : property;
  switch (c.name) {
    case "whitelist":
      return `property ${property} should not exist`;
    case "max":
      return c.items ? `${subject} must contain no more than ${c.bound} elements` : `${subject} must not be greater than ${c.bound}`;
    case "min":
      return c.items ? `${subject} must contain at least ${c.bound} elements` : `${subject} must not be less than ${c.bound}`;
    case "isNotEmpty":
      return `${subject} should not be empty`;
    case "isInt":
      return `${subject} must be an integer number`;
    case "isNumber":
      return `${subject} must be a number conforming to the specified constraints`;
    case "isBoolean":
      return `${subject} must be a boolean value`;
    case "isString":
      return `${subject} must be a string`;
    case "isArray":
      return `${subject} must be an array`;
    case "isObject":
      return `${subject} must be an object`;
    case "isIn":
      return `${subject} must be one of the following values: ${c.allowed!.join(", ")}`;
    case "uniqueItems":
      return `All ${property}'s elements must be unique`;
    case "isEthereumAddress":
    case "matches":
      return `${subject} is invalid`;
    default:
      return unreachable(c.name, "constraint");
  }
}

/**
 * A failure of a rule no type states (a trimmed length, a combination of
 * values), found at `path`: it competes with typia's failures in document order.
 */
export interface RuleFailure {
  /** Property names and indices, e.g. ["search"] or ["config", "orderBy", "direction"]. */
  readonly path: readonly string[];
  readonly error: ApiError;
}

/** The validated value, or the error of its first failing property (typia's rules and `rules` alike). */
export function validated<T>(validate: (input: unknown) => IValidation<T>, input: unknown, rules: readonly RuleFailure[] = []): T {
  const result = validate(input);
  if (!result.success) throw validationFailure(input, result.errors, rules);
  const order = new DocumentOrder(input);
  let first: RuleFailure | null = null;
  for (const rule of rules) if (first === null || compareOrder(order.of(rule.path, false), order.of(first.path, false)) < 0) first = rule;
  if (first !== null) throw first.error;
  return result.data;
}

/** The ApiError for a failed typia validation of `input` (or of a rule failure that comes first). */
export function validationFailure(input: unknown, errors: readonly IValidation.IError[], rules: readonly RuleFailure[] = []): ApiError {
  // The first failing property in document order: one linear pass, no sort.
  const order = new DocumentOrder(input);
  let error = errors[0];
  let segments = pathSegments(error.path);
  let best = order.of(segments, /UniqueItems/.test(error.expected));
  for (let i = 1; i < errors.length; i++) {
    const candidate = pathSegments(errors[i].path);
    const position = order.of(candidate, /UniqueItems/.test(errors[i].expected));
    if (compareOrder(position, best) < 0) {
      error = errors[i];
      segments = candidate;
      best = position;
    }
  }
  for (const rule of rules) if (compareOrder(order.of(rule.path, false), best) < 0) return rule.error;
  const property = segments.length === 0 ? "body" : segments.join(".");
  const last = segments.length === 0 ? "body" : segments[segments.length - 1];
  const isItem = /^\d+$/.test(last);
  const name = isItem ? segments[segments.length - 2] : last;

  // An unknown property is `whitelist` whatever its name or value (a stray `chainId` is not a chain id).
  if (error.expected === "undefined") return invalid(error, property, { name: "whitelist" }, last, false);
  // typia checks uniqueness before the items; §2 reports item problems first, as typia states them.
  if (!isItem && name === "chainIds" && Array.isArray(error.value)) {
    const items = validateChainIdItems(error.value);
    if (!items.success) {
      const bad = items.errors[0];
      return validationFailure(input, [
        { path: `${error.path}${bad.path.replace(/^\$input/, "")}`, expected: bad.expected, value: bad.value },
      ]);
    }
  }
  // A chain id of the wrong value (not type) is an unsupported chain: an item of a chain id list, or
  // the `chainId` of an object in a list (every unsupported one of the list is named).
  const chainValue = (isItem && name === "chainIds") || (!isItem && name === "chainId");
  if (chainValue && Number.isInteger(error.value)) {
    if (isItem) return unsupportedChain(valueAt(input, segments.slice(0, -1)), error.value as number);
    const siblings =
      segments.length >= 3 && /^\d+$/.test(segments[segments.length - 2]) ? valueAt(input, segments.slice(0, -2)) : undefined;
    const ids = Array.isArray(siblings)
      ? siblings.map((item) => (item !== null && typeof item === "object" ? (item as { chainId?: unknown }).chainId : undefined))
      : [error.value];
    return unsupportedChain(ids, error.value as number);
  }
  const constraint = chainValue
    ? { name: (isFractional(error.value) ? "isInt" : "isNumber") as Constraint }
    : constraintOf(error.expected, error.value);
  return invalid(error, property, constraint, name, isItem);
}

/** The items of a chain id list (without the list's uniqueness), with the `expected` text typia gives an item. */
const validateChainIdItems = typia.createValidate<ChainId[]>();

/** The VALIDATION_ERROR of one typia failure at `property`. */
function invalid(
  error: IValidation.IError,
  property: string,
  constraint: ReturnType<typeof constraintOf>,
  name: string,
  isItem: boolean,
): ApiError {
  const text = message(constraint, name, isItem);
  const metadata: Record<string, unknown> = { property };
  if (error.value !== undefined) metadata.value = error.value;
  metadata.constraints = { [constraint.name]: [text] };
  return new ApiError(
    "VALIDATION_ERROR",
    `Invalid parameter ${property}: ${text}.`,
    `Expected ${error.expected} at ${property}.`,
    metadata,
  );
}

/** The value at a path of property names and indices. */
function valueAt(input: unknown, segments: readonly string[]): unknown {
  let node = input;
  for (const segment of segments) node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[segment] : undefined;
  return node;
}

/** UNSUPPORTED_CHAIN_ID for an item of a chain id list, naming every unsupported id of that list. */
function unsupportedChain(list: unknown, chainId: number): ApiError {
  const sent = Array.isArray(list) ? list : [chainId];
  const unsupportedIds = new Set(sent.filter((id): id is number => Number.isInteger(id) && !isSupportedChainId(id)));
  return unsupportedChainError(chainId, [...unsupportedIds]);
}

/** A VALIDATION_ERROR for a rule no type states (a trimmed length, a path parameter's form). */
export function constraintError(property: string, value: unknown, constraint: Constraint, text: string, details: string): ApiError {
  const metadata: Record<string, unknown> = { property };
  if (value !== undefined) metadata.value = value;
  metadata.constraints = { [constraint]: [text] };
  return new ApiError("VALIDATION_ERROR", `Invalid parameter ${property}: ${text}.`, details, metadata);
}

export function unsupportedChainError(chainId: number | string, unsupportedIds: readonly number[]): ApiError {
  return new ApiError(
    "UNSUPPORTED_CHAIN_ID",
    `Chain ${chainId} is not supported; use one of ${SUPPORTED_CHAIN_IDS_ASCENDING.join(", ")}.`,
    `Supported chain ids: ${SUPPORTED_CHAIN_IDS_ASCENDING.join(", ")}.`,
    { chainId, unsupportedIds, supportedIds: SUPPORTED_CHAIN_IDS_ASCENDING },
  );
}
