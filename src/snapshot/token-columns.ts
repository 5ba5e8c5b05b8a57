/**
 * A chain's token columns (ChainTokenColumns, the input of its token run and of the cross-chain token index),
 * written row by row: from a validated token with its defaults filled, or copied from a row of an earlier
 * build's columns (a token whose record bytes did not change: reuse-tokens.ts). Both give the same bytes.
 */
import type { ChainTokenColumns } from "../tables/compiled-chain.js";
import { sharedArray, StringColumnBuilder } from "../tables/shared-columns.js";
import type { NormalizedSnapshotToken } from "./normalize-token.js";

type TextField = "address" | "symbol" | "name" | "logoUrl" | "normalizedSymbol" | "normalizedName";
const TEXT_FIELDS: readonly TextField[] = ["address", "symbol", "name", "logoUrl", "normalizedSymbol", "normalizedName"];

export class TokenColumnsBuilder {
  private readonly text: Record<TextField, StringColumnBuilder>;
  private readonly decimals: Uint8Array;
  private readonly tvl: Float64Array;
  private readonly price: Float64Array;
  private readonly swaps: Float64Array;
  private readonly volume: Float64Array;
  private row = 0;

  /** @param bytesOf the expected bytes of each text column (a guess: columns grow) */
  constructor(
    private readonly count: number,
    bytesOf: (field: TextField) => number,
  ) {
    this.text = Object.fromEntries(TEXT_FIELDS.map((f) => [f, new StringColumnBuilder(count, bytesOf(f))])) as Record<
      TextField,
      StringColumnBuilder
    >;
    this.decimals = sharedArray(Uint8Array, count);
    this.tvl = sharedArray(Float64Array, count);
    this.price = sharedArray(Float64Array, count);
    this.swaps = sharedArray(Float64Array, count);
    this.volume = sharedArray(Float64Array, count);
  }

  /** The columns of these tokens. */
  static of(tokens: readonly NormalizedSnapshotToken[]): ChainTokenColumns {
    const builder = new TokenColumnsBuilder(tokens.length, (f) => {
      let bytes = 0;
      for (let i = 0; i < tokens.length; i++) bytes += tokens[i][f].length * 3;
      return bytes;
    });
    for (let i = 0; i < tokens.length; i++) builder.add(tokens[i]);
    return builder.finish();
  }

  add(t: NormalizedSnapshotToken): void {
    const text = this.text;
    for (const f of TEXT_FIELDS) text[f].add(t[f]);
    const i = this.row++;
    this.decimals[i] = t.decimals;
    this.tvl[i] = t.trackedTotalValuePooledUsd;
    this.price[i] = t.trackedUsdPrice;
    this.swaps[i] = t.swapsCount;
    this.volume[i] = t.trackedSwapVolumeUsd;
  }

  /** Rows `j` to `j + n - 1` of `columns` as the next rows: each column's values copied in one piece. */
  copyRun(columns: ChainTokenColumns, j: number, n: number): void {
    const text = this.text;
    for (const f of TEXT_FIELDS) text[f].appendValues(columns[f], j, j + n);
    const i = this.row;
    this.row += n;
    this.decimals.set(columns.decimals.subarray(j, j + n), i);
    this.tvl.set(columns.tvl.subarray(j, j + n), i);
    this.price.set(columns.price.subarray(j, j + n), i);
    this.swaps.set(columns.swaps.subarray(j, j + n), i);
    this.volume.set(columns.volume.subarray(j, j + n), i);
  }

  finish(): ChainTokenColumns {
    if (this.row !== this.count) throw new Error(`token columns: ${this.row} of ${this.count} rows written`);
    const text = this.text;
    return {
      count: this.count,
      address: text.address.finish(),
      symbol: text.symbol.finish(),
      name: text.name.finish(),
      logoUrl: text.logoUrl.finish(),
      normalizedSymbol: text.normalizedSymbol.finish(),
      normalizedName: text.normalizedName.finish(),
      decimals: this.decimals,
      tvl: this.tvl,
      price: this.price,
      swaps: this.swaps,
      volume: this.volume,
    };
  }
}
