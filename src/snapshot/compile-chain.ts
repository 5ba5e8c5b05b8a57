/**
 * Compiles one validated chain snapshot (token defaults filled) into its
 * serving form: token columns for the cross-chain index, pre-encoded pool
 * details and the pool-search index.
 */
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../chains/chains.js";
import type { PoolToken, Protocol } from "../api/wire.js";
import type { SnapshotPool } from "../api/snapshot-format.js";
import { encodeStringColumn, sharedArray, StringColumnBuilder, utf8, type StringColumn } from "../tables/shared-columns.js";
import type { ChainSnapshotInfo, ChainTokenColumns, CompiledChain, TokenRunData } from "../tables/compiled-chain.js";
import {
  indexedProtocolIds,
  PoolSearchIndexBuilder,
  PoolSearchRange,
  poolSearchColumns,
  type PoolSearchColumns,
  type PoolSearchRangePart,
} from "./compile-pool-search.js";
import { PoolJsonEncoder } from "./encode-pool.js";
import { tokenLogoUrl, type NormalizedSnapshotToken } from "./normalize-token.js";
import { buildPoolTable, poolJsonCrc } from "../tables/pool-table.js";
import type { NormalizedSnapshotFile } from "./read-snapshot-file.js";
import { poolArray, type PoolSource } from "./pool-stream.js";
import { compileTokenRun } from "./compile-token-run.js";

/** First guess of a pool's JSON size: room for pool i's JSON starts at i times this (the column grows if pools are larger). */
const EXPECTED_POOL_JSON_BYTES = 3072;

export interface CompileChainSource {
  readonly file: string;
  readonly fileBytes: number;
  readonly sha256: string;
  readonly fileMtimeMs: number;
  /** The token logo URL template (the native asset's logo when the chain has no native token record). */
  readonly logoTemplate: string;
}

/**
 * The shared memory a chain's pools are written into, at each pool's index: the pools of one chain can be
 * written by two threads, each its own range (compile-pool-range.ts), and joined without copying.
 */
export interface ChainPoolTargets {
  readonly poolCount: number;
  /** The pools' JSON; a range starting at pool `from` writes from byte `from * EXPECTED_POOL_JSON_BYTES`. */
  readonly json: SharedArrayBuffer;
  /** CRC-32 of each pool's JSON. */
  readonly jsonCrc: Uint32Array;
  readonly search: PoolSearchColumns;
}

/** What a range of pools written elsewhere hands back (compile-pool-range.ts). */
export interface PoolRangeOutput {
  readonly from: number;
  /** Index after the last pool written. */
  readonly to: number;
  readonly addresses: readonly string[];
  /** Their JSON, one value per pool. */
  readonly json: StringColumn;
  readonly search: PoolSearchRangePart;
  /** Ids of the protocols the range's pools use. */
  readonly protocols: readonly string[];
}

/** Writes pools `from`, `from + 1`, ... of a chain (in order) into its targets: JSON, checksum, search columns. */
export class PoolRangeWriter {
  readonly addresses: string[] = [];
  readonly protocols = new Set<string>();
  readonly json: StringColumnBuilder;
  readonly search: PoolSearchRange;
  private index: number;

  constructor(
    private readonly encoder: PoolJsonEncoder,
    private readonly targets: ChainPoolTargets,
    protocolIds: readonly string[],
    readonly from: number,
    to: number,
  ) {
    const room = new Uint8Array(targets.json, from * EXPECTED_POOL_JSON_BYTES, (to - from) * EXPECTED_POOL_JSON_BYTES);
    this.json = new StringColumnBuilder(to - from, 0, room);
    this.search = new PoolSearchRange(targets.search, targets.poolCount, indexedProtocolIds(protocolIds), from);
    this.index = from;
  }

  write(pool: SnapshotPool): void {
    const encoder = this.encoder;
    this.addresses.push(pool.address);
    encoder.write(pool, this.json);
    this.targets.jsonCrc[this.index++] = poolJsonCrc(this.json.lastValue());
    this.search.add(pool, encoder.lastTokenRows(), encoder.wrappedOffsets);
    this.protocols.add(pool.protocolId);
  }

  /** Index after the last pool written. */
  get to(): number {
    return this.index;
  }

  /** What another thread is handed back (the writer is spent afterwards). */
  output(): PoolRangeOutput {
    return {
      from: this.from,
      to: this.index,
      addresses: this.addresses,
      json: this.json.finish(),
      search: this.search.part(),
      protocols: [...this.protocols],
    };
  }

  /** Takes the pools after this range as its own (they were not handed to another thread). */
  continueToEnd(): void {
    this.json.claimRest();
  }

  /** Appends another range's output, whose pools follow the pools written here. */
  join(part: PoolRangeOutput): void {
    if (part.from !== this.index) throw new Error(`pool ranges do not meet: ${this.index} then ${part.from}`);
    for (const address of part.addresses) this.addresses.push(address);
    this.json.appendColumn(part.json);
    this.search.join(part.search, part.to);
    for (const id of part.protocols) this.protocols.add(id);
    this.index = part.to;
  }
}

/** A new chain's shared pool targets. */
export function chainPoolTargets(poolCount: number): ChainPoolTargets {
  return {
    poolCount,
    json: new SharedArrayBuffer(Math.max(64, poolCount * EXPECTED_POOL_JSON_BYTES)),
    jsonCrc: sharedArray(Uint32Array, poolCount),
    search: poolSearchColumns(poolCount),
  };
}

/** The encoder of a chain's pools (built from its tokens and protocols: in each thread that writes pools). */
export function chainPoolEncoder(snapshot: NormalizedSnapshotFile): PoolJsonEncoder {
  return new PoolJsonEncoder(snapshot.chainId as ChainId, snapshot.tokens, snapshot.protocols);
}

/**
 * Compiles one chain: `write` each pool in order (or hand a range of them to another thread and `join` what
 * it wrote), then `finish`.
 */
export class ChainCompiler {
  readonly targets: ChainPoolTargets;
  private readonly started = performance.now();
  private readonly encoder: PoolJsonEncoder;
  private readonly writer: PoolRangeWriter;

  private tokens: { columns: ChainTokenColumns; run: TokenRunData } | null = null;

  /**
   * @param ownPools the pools written here, from pool 0; those after them may be written by another thread
   * @param targets where they are written (new ones when absent)
   */
  constructor(
    private readonly snapshot: NormalizedSnapshotFile,
    private readonly source: CompileChainSource,
    poolCount: number,
    ownPools = poolCount,
    targets: ChainPoolTargets = chainPoolTargets(poolCount),
  ) {
    if (targets.poolCount !== poolCount) throw new RangeError(`targets for ${targets.poolCount} pools, not ${poolCount}`);
    this.targets = targets;
    this.encoder = chainPoolEncoder(snapshot);
    this.writer = new PoolRangeWriter(
      this.encoder,
      this.targets,
      snapshot.protocols.map((p) => p.id),
      0,
      ownPools,
    );
  }

  write(pool: SnapshotPool): void {
    this.writer.write(pool);
  }

  /** The pools after those the constructor was told are written here after all. */
  continueToEnd(): void {
    this.writer.continueToEnd();
  }

  /** Joins the pools another thread wrote (they follow those written here). */
  join(part: PoolRangeOutput): void {
    this.writer.join(part);
  }

  /** Compiles the chain's token columns and token run now (they need no pools: e.g. while another thread writes pools). */
  compileTokens(): { columns: ChainTokenColumns; run: TokenRunData } {
    if (this.tokens === null) {
      const columns = tokenColumns(this.snapshot.tokens);
      this.tokens = { columns, run: compileTokenRun(this.snapshot.chainId as ChainId, columns) };
    }
    return this.tokens;
  }

  finish(): CompiledChain {
    const { snapshot, source, encoder, writer } = this;
    const chainId = snapshot.chainId as ChainId;
    const poolCount = this.targets.poolCount;
    if (writer.to !== poolCount) throw new Error(`chain ${chainId}: ${writer.to} of ${poolCount} pools compiled`);
    const protocolById = new Map<string, Protocol>();
    for (const p of snapshot.protocols) protocolById.set(p.id, { id: p.id, name: p.name, logoUrl: p.logoUrl, url: p.url });
    const search = new PoolSearchIndexBuilder(
      {
        chainId,
        tokenCount: snapshot.tokens.length,
        protocolIds: snapshot.protocols.map((p) => p.id),
        poolCount,
        wrappedRow: encoder.wrappedRow,
        wrappedJsonBytes: encoder.wrappedJsonBytes,
        nativeTokenJson: encoder.tokenJsonOf(NATIVE_ADDRESS) ?? nativeTokenJson(chainId, source.logoTemplate),
      },
      this.targets.search,
      writer.search,
    );
    const poolAddresses = writer.addresses;
    const pools = buildPoolTable(poolAddresses, writer.json.finish(), this.targets.jsonCrc);
    const { columns: tokens, run: tokenRun } = this.compileTokens();
    const poolSearch = search.finish(poolAddresses);
    const info: ChainSnapshotInfo = {
      chainId,
      generatedAt: snapshot.generatedAt,
      blockNumber: snapshot.blockNumber ?? null,
      file: source.file,
      fileBytes: source.fileBytes,
      sha256: source.sha256,
      fileMtimeMs: source.fileMtimeMs,
      tokenCount: snapshot.tokens.length,
      poolCount,
      buildMs: Math.round(performance.now() - this.started),
    };
    const protocols = [...writer.protocols].sort().map((id) => protocolById.get(id)!);
    return { info, protocols, pools, tokens, tokenRun, poolSearch };
  }
}

/**
 * @param poolSource the snapshot's pools, taken one at a time (a streamed file's
 *   pools are decoded and validated as they are taken: see pool-stream.ts)
 */
export function compileChain(
  snapshot: NormalizedSnapshotFile,
  source: CompileChainSource,
  poolSource: PoolSource = poolArray(snapshot.pools),
): CompiledChain {
  const compiler = new ChainCompiler(snapshot, source, poolSource.count);
  for (let i = 0; i < poolSource.count; i++) compiler.write(poolSource.next());
  return compiler.finish();
}

/** The native asset as a pool token when the chain's snapshot has no record of it (api-decisions.md §6). */
function nativeTokenJson(chainId: ChainId, logoTemplate: string): Uint8Array {
  const chain = CHAINS[chainId];
  const token: PoolToken = {
    chainId,
    address: NATIVE_ADDRESS,
    decimals: 18,
    name: chain.nativeName,
    symbol: chain.nativeSymbol,
    logoUrl: tokenLogoUrl(logoTemplate, chainId, NATIVE_ADDRESS),
  };
  return utf8(JSON.stringify(token));
}

function tokenColumns(tokens: readonly NormalizedSnapshotToken[]): ChainTokenColumns {
  const n = tokens.length;
  const tvl = sharedArray(Float64Array, n);
  const price = sharedArray(Float64Array, n);
  const swaps = sharedArray(Float64Array, n);
  const volume = sharedArray(Float64Array, n);
  const decimals = sharedArray(Uint8Array, n);
  for (let i = 0; i < n; i++) {
    const t = tokens[i];
    decimals[i] = t.decimals;
    tvl[i] = t.trackedTotalValuePooledUsd;
    price[i] = t.trackedUsdPrice;
    swaps[i] = t.swapsCount;
    volume[i] = t.trackedSwapVolumeUsd;
  }
  return {
    count: n,
    address: encodeStringColumn(tokens.map((t) => t.address)),
    symbol: encodeStringColumn(tokens.map((t) => t.symbol)),
    name: encodeStringColumn(tokens.map((t) => t.name)),
    logoUrl: encodeStringColumn(tokens.map((t) => t.logoUrl)),
    normalizedSymbol: encodeStringColumn(tokens.map((t) => t.normalizedSymbol)),
    normalizedName: encodeStringColumn(tokens.map((t) => t.normalizedName)),
    decimals,
    tvl,
    price,
    swaps,
    volume,
  };
}
