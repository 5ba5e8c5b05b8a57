/**
 * Validation of one decoded snapshot file (shared/spec/snapshot-format.md).
 *
 * 1. Structure, by typia validators derived from the types in src/api/snapshot-format.ts. Extra
 *    unknown properties are allowed (forward compatibility). The fast path is
 *    `typia.createIs`; only when it fails is `typia.createValidate` run, on the
 *    one failing record, to name the first offending path.
 *    Every number must be finite: the typia transform runs with `finite: true`
 *    (tsconfig.json, vitest.config.ts), so NaN and ±Infinity fail structure.
 * 2. What typia cannot express: the chain id (supported, equal to the file name's), unique protocol ids / token addresses / pool
 *    addresses, and pool references to protocols and tokens.
 *
 * Throws a SnapshotError on the first problem; its message starts with the path,
 * e.g. `pools[1042].tokens[1].address: not in tokens ("0x…")`.
 */
import typia, { type IValidation } from "typia";
import { isSupportedChainId, SUPPORTED_CHAIN_IDS_ASCENDING } from "../chains/chains.js";
import type { PoolType, SnapshotFile, SnapshotPool, SnapshotProtocol, SnapshotToken } from "../api/snapshot-format.js";
import { snapshotFileName } from "../api/snapshot-format.js";
import { addressAt, findAddress, type AddressTableData } from "../tables/address-hash-table.js";
import { columnString, findSortedRow, type StringColumn } from "../tables/shared-columns.js";
import { SnapshotError } from "./snapshot-error.js";

type RecordArrays = "protocols" | "tokens" | "pools";
/** The top level without its record arrays (those are checked record by record). */
type SnapshotHeader = Omit<SnapshotFile, RecordArrays>;

type Validator = (input: unknown) => IValidation<unknown>;
type Is = (input: unknown) => boolean;

interface RecordCheckers {
  /** Fast path. */
  is: Is;
  /** The same checks, naming what failed. */
  validate: Validator;
}

const HEADER: RecordCheckers = {
  is: typia.createIs<SnapshotHeader>(),
  validate: typia.createValidate<SnapshotHeader>(),
};
const PROTOCOL: RecordCheckers = {
  is: typia.createIs<SnapshotProtocol>(),
  validate: typia.createValidate<SnapshotProtocol>(),
};
const TOKEN: RecordCheckers = {
  is: typia.createIs<SnapshotToken>(),
  validate: typia.createValidate<SnapshotToken>(),
};
const POOL: RecordCheckers = {
  is: typia.createIs<SnapshotPool>(),
  validate: typia.createValidate<SnapshotPool>(),
};

export const POOL_TYPES: readonly PoolType[] = ["V2", "V3", "V4", "ALGEBRA", "SLIPSTREAM"];
const POOL_TYPE_SET: ReadonlySet<unknown> = new Set<unknown>(POOL_TYPES);
const POOL_TYPES_TEXT = POOL_TYPES.map((t) => `"${t}"`).join(" | ");

const MAX_VALUE_CHARS = 60;

/**
 * Validates a decoded snapshot that was read from the file of chain `fileChainId`.
 * Returns the same object, typed; throws a SnapshotError on the first problem.
 */
export function validateSnapshot(raw: unknown, fileChainId: number): SnapshotFile {
  const checker = new SnapshotChecker(raw, fileChainId);
  const pools = arrayField(raw as object, "pools");
  for (let i = 0; i < pools.length; i++) checker.pool(i, pools[i]);
  return raw as SnapshotFile;
}

/**
 * Validation in two steps, for a build that sees pools one at a time: the
 * constructor checks the top level, protocols and tokens (and that `pools`
 * is an array); `pool(i, value)` checks one pool, its address unique among
 * the pools checked before and its references. An incremental build
 * (reuse-tokens.ts) checks the tokens one at a time too (`tokensLater`, then
 * `token` or `knownToken` for each, in order), and a pool whose bytes are those
 * of a pool validated before only for its address (`knownPool`): the same
 * checks in the same order, so the first problem is the same.
 */
export class SnapshotChecker {
  private readonly protocolIndex = new Map<string, number>();
  private readonly tokenIndex = new Map<string, number>();
  private readonly poolIndex = new Map<string, number>();
  /** An incremental build: the previous file's pools, and per previous pool 1 + the first pool checked with its address (0: none). */
  private previousPools: AddressTableData | null = null;
  private firstOfPrevious = new Int32Array(0);
  /** An incremental build: the previous file's token addresses and their rows in address order, and per previous token 1 + the first token checked with its address (0: none). */
  private previousTokens: { readonly address: StringColumn; readonly byAddress: Uint32Array } | null = null;
  private firstOfPreviousToken = new Int32Array(0);
  /** The previous row of each address looked up so far (-1: none): the changed pools look up the same few tokens again and again. */
  private readonly previousRowOf = new Map<string, number>();

  /** @param tokensLater the tokens are checked by `token` / `knownToken` calls, in order, not here */
  constructor(raw: unknown, fileChainId: number, tokensLater = false) {
    if (!isPlainMap(raw)) {
      throw new SnapshotError("structure", `(top level): expected a map, got ${describeValue(raw)}`, { path: "" });
    }
    if (!HEADER.is(raw)) throw structureError("", raw, HEADER);
    const header = raw as unknown as SnapshotHeader;
    checkChainId(header.chainId, fileChainId);

    const protocols = arrayField(raw, "protocols");
    const tokens = arrayField(raw, "tokens");
    arrayField(raw, "pools");

    // protocols: structure + unique id
    const protocolIndex = this.protocolIndex;
    for (let i = 0; i < protocols.length; i++) {
      const protocol = protocols[i];
      if (!PROTOCOL.is(protocol)) throw structureError(`protocols[${i}]`, protocol, PROTOCOL);
      const id = (protocol as SnapshotProtocol).id;
      const first = protocolIndex.get(id);
      if (first !== undefined) throw duplicateError(`protocols[${i}].id`, `protocols[${first}]`, id);
      protocolIndex.set(id, i);
    }

    // tokens: structure + unique address
    if (!tokensLater) for (let i = 0; i < tokens.length; i++) this.token(i, tokens[i]);
  }

  /** Token `i` (tokens are checked in order): structure, unique address. */
  token(i: number, value: unknown): SnapshotToken {
    if (!TOKEN.is(value)) throw structureError(`tokens[${i}]`, value, TOKEN);
    this.knownToken(i, (value as SnapshotToken).address);
    return value as SnapshotToken;
  }

  /** Token `i`, whose record is one validated before (its structure holds): unique address. */
  knownToken(i: number, address: string): void {
    if (this.previousTokens !== null) {
      const j = this.previousTokenRow(address);
      if (j >= 0) return this.knownPreviousToken(i, j);
    }
    const first = this.tokenIndex.get(address);
    if (first !== undefined) throw duplicateError(`tokens[${i}].address`, `tokens[${first}]`, address);
    this.tokenIndex.set(address, i);
  }

  /**
   * An incremental build (reuse-tokens.ts): the tokens of the previous file (their address column and its rows in
   * address order, as its token run keeps them). A token with one of their addresses is then checked unique by its
   * row there (knownPreviousToken) instead of by its address string: the same verdict and message, without a map
   * entry per unchanged token.
   */
  knowPreviousTokens(address: StringColumn, byAddress: Uint32Array): void {
    this.previousTokens = { address, byAddress };
    this.firstOfPreviousToken = new Int32Array(byAddress.length);
  }

  /** Token `i`, whose address is previous token j's (knowPreviousTokens), validated before or now: unique address. */
  knownPreviousToken(i: number, j: number): void {
    const first = this.firstOfPreviousToken[j];
    if (first !== 0) throw duplicateError(`tokens[${i}].address`, `tokens[${first - 1}]`, columnString(this.previousTokens!.address, j));
    this.firstOfPreviousToken[j] = i + 1;
  }

  /** Tokens i, i + 1, ... i + count - 1, whose addresses are previous tokens j, j + 1, ...'s: knownPreviousToken for each, in order. */
  knownPreviousTokenRun(i: number, j: number, count: number): void {
    const first = this.firstOfPreviousToken;
    for (let k = 0; k < count; k++) {
      if (first[j + k] !== 0) this.knownPreviousToken(i + k, j + k);
      first[j + k] = i + k + 1;
    }
  }

  /** The previous file's token row with this address (knowPreviousTokens), or -1. */
  previousTokenRow(address: string): number {
    const previous = this.previousTokens;
    if (previous === null) return -1;
    let j = this.previousRowOf.get(address);
    if (j === undefined) {
      j = findSortedRow(previous.address, address, previous.byAddress);
      this.previousRowOf.set(address, j);
    }
    return j;
  }

  /** Each token address checked so far, with its index (the first of each). */
  get tokenRows(): TokenRows {
    return this.previousTokens === null ? this.tokenIndex : { get: (address) => this.tokenRow(address) };
  }

  /** The index of the first token checked with this address, or undefined. */
  private tokenRow(address: string): number | undefined {
    if (this.previousTokens !== null) {
      const j = this.previousTokenRow(address);
      if (j >= 0) {
        const first = this.firstOfPreviousToken[j];
        return first === 0 ? undefined : first - 1;
      }
    }
    return this.tokenIndex.get(address);
  }

  /** Whether a protocol of this id was checked. */
  hasProtocol(id: string): boolean {
    return this.protocolIndex.has(id);
  }

  /**
   * Pool `i`, whose record is one validated before (its structure holds) and whose references the caller
   * found among this file's protocols and tokens: unique address.
   */
  knownPool(i: number, address: string): void {
    const previous = this.previousPools;
    if (previous !== null) {
      const j = findAddress(previous, address);
      if (j >= 0) return this.knownPreviousPool(i, j);
    }
    const first = this.poolIndex.get(address);
    if (first !== undefined) throw duplicateError(`pools[${i}].address`, `pools[${first}]`, address);
    this.poolIndex.set(address, i);
  }

  /**
   * An incremental build (reuse-pools.ts): the pools of the previous file `table`. A pool with one of their
   * addresses is then checked unique by its index there (knownPreviousPool) instead of by its address string;
   * the same verdict and message.
   */
  knowPreviousPools(table: AddressTableData): void {
    this.previousPools = table;
    this.firstOfPrevious = new Int32Array(table.count);
  }

  /** Pool `i`, whose address is previous pool j's (knowPreviousPools), validated before or now: unique address. */
  knownPreviousPool(i: number, j: number): void {
    const first = this.firstOfPrevious[j];
    if (first !== 0) throw duplicateError(`pools[${i}].address`, `pools[${first - 1}]`, addressAt(this.previousPools!, j));
    this.firstOfPrevious[j] = i + 1;
  }

  /** Pool `i`: structure, unique address, references to protocols and tokens. */
  pool(i: number, value: unknown): SnapshotPool {
    if (!POOL.is(value)) throw poolStructureError(i, value);
    const pool = value as SnapshotPool;
    this.knownPool(i, pool.address);
    if (!this.protocolIndex.has(pool.protocolId)) {
      throw new SnapshotError("reference", `pools[${i}].protocolId: not in protocols (${describeValue(pool.protocolId)})`, {
        path: `pools[${i}].protocolId`,
      });
    }
    const poolTokens = pool.tokens;
    for (let j = 0; j < poolTokens.length; j++) {
      const address = poolTokens[j].address;
      if (this.tokenRow(address) === undefined) {
        throw new SnapshotError("reference", `pools[${i}].tokens[${j}].address: not in tokens (${describeValue(address)})`, {
          path: `pools[${i}].tokens[${j}].address`,
        });
      }
    }
    return pool;
  }

  /**
   * Addresses of pools `from`, `from + 1`, ... that another checker (same top level) found valid among
   * themselves: each must also be unique among the pools checked here, which come before them. Throws the
   * duplicate error of the first that is not, as checking them here one by one would.
   */
  joinPools(from: number, addresses: readonly string[], previousOf: Int32Array | null = null): void {
    const poolIndex = this.poolIndex;
    const byPrevious = this.previousPools !== null && previousOf !== null;
    for (let j = 0; j < addresses.length; j++) {
      if (byPrevious && previousOf![j] >= 0) {
        this.knownPreviousPool(from + j, previousOf![j]);
        continue;
      }
      const address = addresses[j];
      const first = poolIndex.get(address);
      if (first !== undefined) throw duplicateError(`pools[${from + j}].address`, `pools[${first}]`, address);
      poolIndex.set(address, from + j);
    }
  }
}

function checkChainId(chainId: number, fileChainId: number): void {
  if (!isSupportedChainId(chainId)) {
    throw new SnapshotError(
      "unsupported-chain",
      `chainId: ${chainId} is not a supported chain (supported: ${SUPPORTED_CHAIN_IDS_ASCENDING.join(", ")})`,
      { path: "chainId" },
    );
  }
  if (chainId !== fileChainId) {
    throw new SnapshotError("chain-mismatch", `chainId: ${chainId} does not match the file name ${snapshotFileName(fileChainId)}`, {
      path: "chainId",
    });
  }
}

function arrayField(raw: object, key: RecordArrays): unknown[] {
  const value = (raw as Record<string, unknown>)[key];
  // The header check leaves the record arrays out; check them here.
  if (!Array.isArray(value)) {
    const message = value === undefined ? `${key}: missing, expected an array` : `${key}: expected an array, got ${describeValue(value)}`;
    throw new SnapshotError("structure", message, { path: key });
  }
  return value;
}

function duplicateError(path: string, firstPath: string, value: string): SnapshotError {
  return new SnapshotError("duplicate", `${path}: duplicate of ${firstPath} (${describeValue(value)})`, { path });
}

function poolStructureError(index: number, value: unknown): SnapshotError {
  // An unknown or missing `type` fails the whole union at the pool itself; name the field.
  if (isPlainMap(value)) {
    const type = (value as { type?: unknown }).type;
    if (!POOL_TYPE_SET.has(type)) {
      const path = `pools[${index}].type`;
      const message =
        type === undefined
          ? `${path}: missing, expected ${POOL_TYPES_TEXT}`
          : `${path}: expected ${POOL_TYPES_TEXT}, got ${describeValue(type)}`;
      return new SnapshotError("structure", message, { path });
    }
  }
  return structureError(`pools[${index}]`, value, POOL);
}

/** The first typia error of `value` (a record that failed `checkers.is`), as a SnapshotError. */
function structureError(prefix: string, value: unknown, checkers: RecordCheckers): SnapshotError {
  const plain = checkers.validate(value);
  if (!plain.success && plain.errors.length > 0) return errorFrom(prefix, plain.errors[0]);
  const path = prefix === "" ? "(top level)" : prefix;
  return new SnapshotError("structure", `${path}: does not match the snapshot format`, { path: prefix });
}

function errorFrom(prefix: string, error: IValidation.IError): SnapshotError {
  const path = joinPath(prefix, error.path);
  const shown = path === "" ? "(top level)" : path;
  let message: string;
  if (typeof error.value === "number" && !Number.isFinite(error.value)) {
    message = `${shown}: expected a finite number, got ${describeValue(error.value)}`;
  } else if (error.value === undefined) {
    message = `${shown}: missing, expected ${describeExpected(error.expected)}`;
  } else {
    message = `${shown}: expected ${describeExpected(error.expected)}, got ${describeValue(error.value)}`;
  }
  return new SnapshotError("structure", message, { path });
}

/** typia's `$input.pools[3].tokens[1].address` (relative to the record) → `pools[3].tokens[1].address`. */
function joinPath(prefix: string, typiaPath: string): string {
  let rest = typiaPath.startsWith("$input") ? typiaPath.slice("$input".length) : typiaPath;
  if (prefix === "" && rest.startsWith(".")) rest = rest.slice(1);
  return prefix + rest;
}

/** typia's `expected` text, made short and readable. */
function describeExpected(expected: string): string {
  let text = expected;
  if (text.startsWith("(") && text.endsWith(")") && balancedWrap(text)) text = text.slice(1, -1);
  text = text.replace(/\b__type(?:\.o\d+)?\b/g, "map");
  // A named record type (`SnapshotToken`, `V2Metadata`): say what it is on the wire.
  if (/^[A-Z][A-Za-z0-9_]*$/.test(text)) text = `a map (${text})`;
  return truncate(text, 160);
}

/** True when the first `(` of `text` closes at its last character. */
function balancedWrap(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0 && i !== text.length - 1) return false;
    }
  }
  return depth === 0;
}

function isPlainMap(value: unknown): value is object {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A short description of an offending value for a message. */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "undefined":
      return "nothing";
    case "string":
      return truncate(JSON.stringify(value), MAX_VALUE_CHARS);
    case "number":
      return String(value);
    case "bigint":
      return `integer ${truncate(value.toString(), MAX_VALUE_CHARS)} (beyond ±2^53, not exact as a number)`;
    case "boolean":
      return String(value);
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? "" : "s"}`;
      if (value instanceof Uint8Array) return `binary data (${value.length} bytes)`;
      if (value instanceof Date) return "a timestamp";
      if (isPlainMap(value)) return "a map";
      return `a ${(value as { constructor?: { name?: string } }).constructor?.name ?? "value"}`;
    }
    case "function":
    case "symbol":
      return typeof value;
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A token's row by address: what a chain's pools look their tokens up in (a Map, or the checker's lookup). */
export interface TokenRows {
  get(address: string): number | undefined;
}
