/**
 * The `data.pool` JSON of one snapshot pool (api-decisions.md §4), keys in the
 * documented order, written straight into a column's bytes: byte for byte
 * what JSON.stringify gives for the wire object (test/unit/snapshot/encode-pool.test.ts
 * holds that object form as the reference). Keys are pre-encoded constants;
 * each token's and protocol's JSON is encoded once per chain and copied into
 * every pool that uses it; numbers are written as digits without a string.
 *
 * Input is a validated snapshot: strings with a format pattern (addresses,
 * integer strings) and the pool type are ASCII that needs no escaping, so
 * they are copied as they are; free text goes through JSON.stringify.
 */
import { CHAINS, type ChainId } from "../chains/chains.js";
import type { PoolToken, Protocol } from "../api/wire.js";
import { StringColumnBuilder, utf8, type StringColumn } from "../tables/shared-columns.js";
import type { PeriodStats, PoolType, SnapshotPool, SnapshotProtocol, SnapshotToken } from "../api/snapshot-format.js";
import type { TokenRows } from "./validate-snapshot.js";

export type TokenRecord = Pick<SnapshotToken, "address" | "decimals" | "name" | "symbol"> & { logoUrl: string };

const COMMA = 0x2c;
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;

const K = {
  createdAt: utf8('","createdAtTimestamp":'),
  feeTier: utf8(',"feeTier":{"feeTierPercentage":'),
  isDynamicTrue: utf8(',"isDynamic":true},"tokens":['),
  isDynamicFalse: utf8(',"isDynamic":false},"tokens":['),
  protocol: utf8('],"protocol":'),
  stats7d: utf8(',"stats7d":'),
  stats30d: utf8(',"stats30d":'),
  stats90d: utf8(',"stats90d":'),
  balance: utf8('},"balance":{"totalValueLockedUsd":'),
  balanceTokens: utf8(',"tokens":['),
  amount: utf8('{"amount":'),
  amountUsd: utf8(',"amountUsd":'),
  token: utf8(',"token":'),
  metadata: utf8(']},"metadata":'),
  feesUsd: utf8('{"feesUsd":'),
  swapVolumeUsd: utf8(',"swapVolumeUsd":'),
  yield: utf8(',"yield":'),
  netInflowUsd: utf8(',"netInflowUsd":'),
  liquidityVolumeUsd: utf8(',"liquidityVolumeUsd":'),
  v2: utf8('{"positionManagerAddress":"'),
  sqrtPrice: utf8('{"latestSqrtPriceX96":"'),
  tickSpacing: utf8('","tickSpacing":'),
  latestTick: utf8(',"latestTick":"'),
  positionManager: utf8('","positionManagerAddress":"'),
  poolManager: utf8('","poolManagerAddress":"'),
  permit2: utf8('","permit2Address":"'),
  stateViewNull: utf8('","stateViewAddress":null'),
  stateView: utf8('","stateViewAddress":"'),
  hookNull: utf8(',"hook":null}'),
  hookAfterNull: utf8(',"hook":{"address":"'),
  hook: utf8('","hook":{"address":"'),
  closeHook: utf8('"}}'),
  communityFee: utf8('","communityFeePercentage":'),
  deployer: utf8(',"deployer":"'),
  pluginNull: utf8('","plugin":null'),
  plugin: utf8('","plugin":{"address":"'),
  pluginConfig: utf8('","config":'),
  version: utf8(',"version":'),
};

/** `,"type":"V3","stats":{"stats24h":` per pool type. */
const TYPE_AND_STATS = new Map<PoolType, Uint8Array>(
  (["V2", "V3", "V4", "ALGEBRA", "SLIPSTREAM"] as const).map((t) => [t, utf8(`,"type":${JSON.stringify(t)},"stats":{"stats24h":`)]),
);

/** A chain's tokens as its pools' JSON shows them: each token's JSON object (a pool's `tokens` entry) and its row by address. */
export interface PoolTokenTable {
  /**
   * Token JSON objects `{"chainId":…,"address":…,"decimals":…,"name":…,"symbol":…,"logoUrl":…}`: one value per
   * token row, or, with `earlier`, one per row `from` does not take from there.
   */
  readonly json: StringColumn;
  /**
   * An incremental build (reuse-tokens.ts): the JSON objects of an earlier build (its token run's metadataJson),
   * which the unchanged tokens' rows point into instead of copying them, and per row where its object is: value
   * `from[row]` of `earlier` when >= 0, else value `-1 - from[row]` of `json`.
   */
  readonly earlier?: { readonly column: StringColumn; readonly from: Int32Array };
  readonly rows: TokenRows;
}

/** The token table of a chain's tokens (each token's JSON encoded once). */
export function poolTokenTable(chainId: ChainId, tokens: readonly TokenRecord[]): PoolTokenTable {
  const json = new StringColumnBuilder(tokens.length, tokens.length * 256);
  const rows = new Map<string, number>();
  for (let i = 0; i < tokens.length; i++) {
    json.add(poolTokenJson(chainId, tokens[i]));
    rows.set(tokens[i].address, i);
  }
  return { json: json.finish(), rows };
}

/** A token's JSON object as a pool shows it. */
export function poolTokenJson(chainId: ChainId, t: TokenRecord): string {
  const token: PoolToken = { chainId, address: t.address, decimals: t.decimals, name: t.name, symbol: t.symbol, logoUrl: t.logoUrl };
  return JSON.stringify(token);
}

export class PoolJsonEncoder {
  /** Token JSON objects, found by address through tokenRow: row r's is bytes [jsonStart[r], jsonEnd[r]) of jsonBytes[jsonPart[r]]. */
  private readonly jsonBytes: readonly Uint8Array[];
  private readonly jsonPart: Uint8Array;
  private readonly jsonStart: Uint32Array;
  private readonly jsonEnd: Uint32Array;
  private readonly tokenRow: TokenRows;
  private readonly protocolJson = new Map<string, Uint8Array>();
  private readonly head: Uint8Array;
  /** Token rows of the pool being written. */
  private rows = new Uint32Array(8);
  private rowCount = 0;
  /** Row of the chain's wrapped native token; -1 when the chain's tokens do not list it. */
  readonly wrappedRow: number;
  /** Length of the wrapped native token's JSON object (0 when absent). */
  readonly wrappedJsonBytes: number;
  /**
   * Offsets, within the JSON of the pool last written, of each copy of the
   * wrapped native token's JSON object (in `tokens` and in `balance.tokens`),
   * ascending: where a reader can splice in another token object.
   */
  readonly wrappedOffsets: number[] = [];

  constructor(chainId: ChainId, tokens: PoolTokenTable | readonly TokenRecord[], protocols: readonly SnapshotProtocol[]) {
    const table = isTokenTable(tokens) ? tokens : poolTokenTable(chainId, tokens);
    ({ bytes: this.jsonBytes, part: this.jsonPart, start: this.jsonStart, end: this.jsonEnd } = tokenJsonPlaces(table));
    this.tokenRow = table.rows;
    for (const p of protocols) {
      const protocol: Protocol = { id: p.id, name: p.name, logoUrl: p.logoUrl, url: p.url };
      this.protocolJson.set(p.id, utf8(JSON.stringify(protocol)));
    }
    this.head = utf8(`{"chainId":${JSON.stringify(chainId)},"address":"`);
    this.wrappedRow = this.tokenRow.get(CHAINS[chainId].wrappedNative) ?? -1;
    this.wrappedJsonBytes = this.wrappedRow < 0 ? 0 : this.jsonEnd[this.wrappedRow] - this.jsonStart[this.wrappedRow];
  }

  /** A copy of the JSON object of the token at `address` (a pool's `tokens` entry), or null when the chain has no such token. */
  tokenJsonOf(address: string): Uint8Array | null {
    const row = this.tokenRow.get(address);
    if (row === undefined) return null;
    return this.jsonBytes[this.jsonPart[row]].slice(this.jsonStart[row], this.jsonEnd[row]);
  }

  /** Token rows (indices in the constructor's `tokens`) of the pool last written, in its token order. */
  lastTokenRows(): Uint32Array {
    return this.rows.subarray(0, this.rowCount);
  }

  /** Appends the pool's JSON (one `data.pool` object) to `out` as one value. */
  write(pool: SnapshotPool, out: StringColumnBuilder): void {
    const poolTokens = pool.tokens;
    const count = poolTokens.length;
    if (this.rows.length < count) this.rows = new Uint32Array(count * 2);
    const rows = this.rows;
    this.rowCount = count;
    const wrappedOffsets = this.wrappedOffsets;
    wrappedOffsets.length = 0;
    const wrappedRow = this.wrappedRow;
    const { jsonBytes, jsonPart, jsonStart, jsonEnd } = this;
    lit(out, this.head);
    out.writeAscii(pool.address);
    lit(out, K.createdAt);
    out.writeNumber(pool.createdAtTimestamp);
    lit(out, K.feeTier);
    out.writeNumber(pool.feeTierPercentage);
    lit(out, pool.isDynamicFee ? K.isDynamicTrue : K.isDynamicFalse);
    for (let j = 0; j < count; j++) {
      const row = this.tokenRow.get(poolTokens[j].address)!;
      rows[j] = row;
      if (j > 0) out.writeByte(COMMA);
      if (row === wrappedRow) wrappedOffsets.push(out.valueBytes);
      out.writeBytes(jsonBytes[jsonPart[row]], jsonStart[row], jsonEnd[row]);
    }
    lit(out, K.protocol);
    lit(out, this.protocolJson.get(pool.protocolId)!);
    lit(out, TYPE_AND_STATS.get(pool.type)!);
    const s = pool.stats;
    period(out, s.stats24h);
    lit(out, K.stats7d);
    period(out, s.stats7d);
    lit(out, K.stats30d);
    period(out, s.stats30d);
    lit(out, K.stats90d);
    period(out, s.stats90d);
    lit(out, K.balance);
    out.writeNumber(pool.totalValueLockedUsd);
    lit(out, K.balanceTokens);
    for (let j = 0; j < count; j++) {
      const t = poolTokens[j];
      if (j > 0) out.writeByte(COMMA);
      lit(out, K.amount);
      out.writeNumber(t.amount);
      lit(out, K.amountUsd);
      out.writeNumber(t.amountUsd);
      lit(out, K.token);
      if (rows[j] === wrappedRow) wrappedOffsets.push(out.valueBytes);
      const row = rows[j];
      out.writeBytes(jsonBytes[jsonPart[row]], jsonStart[row], jsonEnd[row]);
      out.writeByte(CLOSE_BRACE);
    }
    lit(out, K.metadata);
    metadata(out, pool);
    out.writeByte(CLOSE_BRACE);
    out.endValue();
  }
}

/** Where each token row's JSON object lies: a byte range of one of two byte arrays (the table's own, or an earlier build's). */
function tokenJsonPlaces(table: PoolTokenTable): { bytes: Uint8Array[]; part: Uint8Array; start: Uint32Array; end: Uint32Array } {
  const { json, earlier } = table;
  if (earlier === undefined) {
    const n = json.offsets.length - 1;
    return { bytes: [json.bytes], part: new Uint8Array(n), start: json.offsets.subarray(0, n), end: json.offsets.subarray(1) };
  }
  const { column, from } = earlier;
  const n = from.length;
  const part = new Uint8Array(n);
  const start = new Uint32Array(n);
  const end = new Uint32Array(n);
  for (let row = 0; row < n; row++) {
    const f = from[row];
    if (f >= 0) {
      part[row] = 1;
      start[row] = column.offsets[f];
      end[row] = column.offsets[f + 1];
    } else {
      start[row] = json.offsets[-1 - f];
      end[row] = json.offsets[-f];
    }
  }
  return { bytes: [json.bytes, column.bytes], part, start, end };
}

function isTokenTable(tokens: PoolTokenTable | readonly TokenRecord[]): tokens is PoolTokenTable {
  return !Array.isArray(tokens);
}

function lit(out: StringColumnBuilder, bytes: Uint8Array): void {
  out.writeBytes(bytes, 0, bytes.length);
}

function period(out: StringColumnBuilder, p: PeriodStats): void {
  lit(out, K.feesUsd);
  out.writeNumber(p.feesUsd);
  lit(out, K.swapVolumeUsd);
  out.writeNumber(p.swapVolumeUsd);
  lit(out, K.yield);
  out.writeNumber(p.yield);
  lit(out, K.netInflowUsd);
  out.writeNumber(p.netInflowUsd);
  lit(out, K.liquidityVolumeUsd);
  out.writeNumber(p.liquidityVolumeUsd);
  out.writeByte(CLOSE_BRACE);
}

/** Exactly the documented fields of the pool's type, nothing an operator added. */
function metadata(out: StringColumnBuilder, pool: SnapshotPool): void {
  if (pool.type === "V2") {
    lit(out, K.v2);
    out.writeAscii(pool.metadata.positionManagerAddress);
    out.writeByte(QUOTE);
    out.writeByte(CLOSE_BRACE);
    return;
  }
  const m = pool.metadata;
  lit(out, K.sqrtPrice);
  out.writeAscii(m.latestSqrtPriceX96);
  lit(out, K.tickSpacing);
  out.writeNumber(m.tickSpacing);
  lit(out, K.latestTick);
  out.writeAscii(m.latestTick);
  lit(out, K.positionManager);
  out.writeAscii(m.positionManagerAddress);
  switch (pool.type) {
    case "V3":
    case "SLIPSTREAM":
      out.writeByte(QUOTE);
      out.writeByte(CLOSE_BRACE);
      return;
    case "V4": {
      const v4 = pool.metadata;
      lit(out, K.poolManager);
      out.writeAscii(v4.poolManagerAddress);
      lit(out, K.permit2);
      out.writeAscii(v4.permit2Address);
      if (v4.stateViewAddress === null) {
        lit(out, K.stateViewNull);
        if (v4.hook === null) return lit(out, K.hookNull);
        lit(out, K.hookAfterNull);
      } else {
        lit(out, K.stateView);
        out.writeAscii(v4.stateViewAddress);
        if (v4.hook === null) {
          out.writeByte(QUOTE);
          return lit(out, K.hookNull);
        }
        lit(out, K.hook);
      }
      out.writeAscii(v4.hook.address);
      return lit(out, K.closeHook);
    }
    case "ALGEBRA": {
      const a = pool.metadata;
      lit(out, K.communityFee);
      out.writeNumber(a.communityFeePercentage);
      lit(out, K.deployer);
      out.writeAscii(a.deployer);
      if (a.plugin === null) lit(out, K.pluginNull);
      else {
        lit(out, K.plugin);
        out.writeAscii(a.plugin.address);
        lit(out, K.pluginConfig);
        out.writeNumber(a.plugin.config);
        out.writeByte(CLOSE_BRACE);
      }
      lit(out, K.version);
      out.write(JSON.stringify(a.version));
      out.writeByte(CLOSE_BRACE);
      return;
    }
  }
}
