/**
 * The `data.pool` JSON of one snapshot pool (api-decisions.md §4), keys in the
 * documented order, written straight as text: byte for byte what
 * JSON.stringify gives for the wire object (test/unit/encode-pool.test.ts
 * holds that object form as the reference). Each token's and protocol's JSON
 * is encoded once per chain, not once per pool that uses it.
 *
 * Input is a validated snapshot: strings with a format pattern (addresses,
 * integer strings) and the pool type need no escaping, so they are quoted as
 * they are; free text goes through JSON.stringify.
 */
import type { ChainId } from "../chains/chains.js";
import type { PoolToken, Protocol } from "../api/wire.js";
import type { PeriodStats, SnapshotPool, SnapshotProtocol, SnapshotToken } from "./format.js";

type TokenRecord = Pick<SnapshotToken, "address" | "decimals" | "name" | "symbol"> & { logoUrl: string };

export class PoolJsonEncoder {
  private readonly tokenJson = new Map<string, string>();
  private readonly protocolJson = new Map<string, string>();
  private readonly head: string;

  constructor(
    chainId: ChainId,
    tokens: readonly TokenRecord[],
    protocols: readonly SnapshotProtocol[],
  ) {
    for (const t of tokens) {
      const token: PoolToken = { chainId, address: t.address, decimals: t.decimals, name: t.name, symbol: t.symbol, logoUrl: t.logoUrl };
      this.tokenJson.set(t.address, JSON.stringify(token));
    }
    for (const p of protocols) {
      const protocol: Protocol = { id: p.id, name: p.name, logoUrl: p.logoUrl, url: p.url };
      this.protocolJson.set(p.id, JSON.stringify(protocol));
    }
    this.head = `{"chainId":${chainId},"address":"`;
  }

  /** JSON text of the pool (one `data.pool` object). */
  encode(pool: SnapshotPool): string {
    const poolTokens = pool.tokens;
    let tokens = "";
    let balances = "";
    for (let j = 0; j < poolTokens.length; j++) {
      const t = poolTokens[j];
      const token = this.tokenJson.get(t.address)!;
      if (j > 0) {
        tokens += ",";
        balances += ",";
      }
      tokens += token;
      balances += `{"amount":${num(t.amount)},"amountUsd":${num(t.amountUsd)},"token":${token}}`;
    }
    const s = pool.stats;
    return (
      `${this.head}${pool.address}","createdAtTimestamp":${num(pool.createdAtTimestamp)}` +
      `,"feeTier":{"feeTierPercentage":${num(pool.feeTierPercentage)},"isDynamic":${pool.isDynamicFee ? "true" : "false"}}` +
      `,"tokens":[${tokens}],"protocol":${this.protocolJson.get(pool.protocolId)!},"type":"${pool.type}"` +
      `,"stats":{"stats24h":${period(s.stats24h)},"stats7d":${period(s.stats7d)},"stats30d":${period(s.stats30d)},"stats90d":${period(s.stats90d)}}` +
      `,"balance":{"totalValueLockedUsd":${num(pool.totalValueLockedUsd)},"tokens":[${balances}]}` +
      `,"metadata":${metadata(pool)}}`
    );
  }
}

/** A number as JSON.stringify writes it (non-finite: null; validation never lets one through). */
function num(value: number): string {
  return Number.isFinite(value) ? `${value}` : "null";
}

function period(p: PeriodStats): string {
  return (
    `{"feesUsd":${num(p.feesUsd)},"swapVolumeUsd":${num(p.swapVolumeUsd)},"yield":${num(p.yield)}` +
    `,"netInflowUsd":${num(p.netInflowUsd)},"liquidityVolumeUsd":${num(p.liquidityVolumeUsd)}}`
  );
}

/** Exactly the documented fields of the pool's type, nothing an operator added. */
function metadata(pool: SnapshotPool): string {
  if (pool.type === "V2") return `{"positionManagerAddress":"${pool.metadata.positionManagerAddress}"}`;
  const m = pool.metadata;
  const concentrated =
    `{"latestSqrtPriceX96":"${m.latestSqrtPriceX96}","tickSpacing":${num(m.tickSpacing)}` +
    `,"latestTick":"${m.latestTick}","positionManagerAddress":"${m.positionManagerAddress}"`;
  switch (pool.type) {
    case "V3":
    case "SLIPSTREAM":
      return `${concentrated}}`;
    case "V4": {
      const v4 = pool.metadata;
      return (
        `${concentrated},"poolManagerAddress":"${v4.poolManagerAddress}","permit2Address":"${v4.permit2Address}"` +
        `,"stateViewAddress":${v4.stateViewAddress === null ? "null" : `"${v4.stateViewAddress}"`}` +
        `,"hook":${v4.hook === null ? "null" : `{"address":"${v4.hook.address}"}`}}`
      );
    }
    case "ALGEBRA": {
      const a = pool.metadata;
      return (
        `${concentrated},"communityFeePercentage":${num(a.communityFeePercentage)},"deployer":"${a.deployer}"` +
        `,"plugin":${a.plugin === null ? "null" : `{"address":"${a.plugin.address}","config":${num(a.plugin.config)}}`}` +
        `,"version":${JSON.stringify(a.version)}}`
      );
    }
  }
}
