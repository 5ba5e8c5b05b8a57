/**
 * Compiles one validated chain snapshot (token defaults filled) into its
 * serving form: token columns for the cross-chain index, pre-encoded pool
 * details and the pool-search index.
 */
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../chains/chains.js";
import type { PoolToken, Protocol } from "../api/wire.js";
import { sharedArray, StringColumnBuilder, utf8, type StringColumn } from "../tables/shared-columns.js";
import type { ChainSnapshotInfo, ChainTokenColumns, CompiledChain, TokenRunData } from "../tables/compiled-chain.js";
import {
  indexedProtocolIds,
  PoolSearchIndexBuilder,
  PoolSearchRange,
  poolSearchColumns,
  type PoolSearchColumns,
  type PoolSearchRangePart,
} from "./compile-pool-search.js";
import { PoolJsonEncoder, type PoolTokenTable } from "./encode-pool.js";
import { tokenLogoUrl } from "./normalize-token.js";
import { buildPoolTable, buildPoolTableKeeping, poolJsonCrc } from "../tables/pool-table.js";
import type { NormalizedSnapshotFile } from "./read-snapshot-file.js";
import { poolArray, type PoolItem, type PoolSource } from "./pool-stream.js";
import { digestColumn } from "./record-digests.js";
import { keptPoolJson } from "./kept-pool-json.js";
import type { PoolReuse } from "./reuse-pools.js";
import { TokenColumnsBuilder } from "./token-columns.js";
import { compileTokenRun, type PreviousRun } from "./compile-token-run.js";
import { StageClock, type BuildStages } from "./stage-clock.js";

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
  /** Each pool's record digest (record-digests.ts), written as the pools are read from a split file. */
  readonly digests: Uint8Array;
  /** Per pool: 1 + the previous file's pool whose compiled data it copied (an incremental build), or 0. */
  readonly keptFrom: Int32Array;
}

/** What a range of pools written elsewhere hands back (compile-pool-range.ts). */
export interface PoolRangeOutput {
  readonly from: number;
  /** Index after the last pool written. */
  readonly to: number;
  readonly addresses: readonly string[];
  /** Their JSON, one value per pool written (not those kept from the previous file's: PoolRangeWriter.copy). */
  readonly json: StringColumn;
  /**
   * `json` lies in the targets' JSON buffer (in the range's region), not in a blob its writer moved to: the writer
   * that joins it then moves it down in place (another thread's view of that buffer is another object).
   */
  readonly jsonInTargets: boolean;
  readonly search: PoolSearchRangePart;
  /** Ids of the protocols the range's pools use. */
  readonly protocols: readonly string[];
  /** With a reuse (an incremental build): the addresses of the range's pools that are part of the change set. */
  readonly upserted: readonly string[];
  /** With a reuse: how many of the range's pools were copied from the previous file's tables. */
  readonly kept: number;
  /** With a reuse: per pool of the range, the previous file's pool of its address, or -1 (SnapshotChecker.joinPools). */
  readonly previousOf: Int32Array | null;
}

/**
 * Writes pools `from`, `from + 1`, ... of a chain (in order) into its targets: JSON, checksum, search columns. With
 * a reuse (an incremental build), a pool taken as a previous pool's index is copied from the previous file's
 * tables, and a decoded one is compared with the previous pool of its address (the change set).
 */
export class PoolRangeWriter {
  /**
   * Each pool's address; a kept pool's is "" when the previous file's pool orders are merged (no one reads it then:
   * the pool table copies its bytes, the checker knows it by its previous pool, the merge reads the decoded pools').
   */
  readonly addresses: string[] = [];
  readonly protocols = new Set<string>();
  readonly json: StringColumnBuilder;
  readonly search: PoolSearchRange;
  /** With a reuse: the addresses of the pools written here (or joined) that are part of the change set. */
  readonly upserted: string[] = [];
  /** With a reuse: pools copied from the previous file's tables. */
  kept = 0;
  /** With a reuse: per pool written here, the previous file's pool of its address, or -1. */
  private readonly previousOf: number[] | null;
  private index: number;
  /** Per protocol index of the new file: whether a copied pool has added its id to `protocols`. */
  private readonly keptProtocols: Uint8Array;
  /** Previous pools [runFrom, runFrom + runLength) are written here next: copied in one piece (flushRun). */
  private runFrom = 0;
  private runLength = 0;
  /** Whether a kept pool's address is written out (the pool orders are sorted anew: compile-pool-search.ts). */
  private readonly keptAddresses: boolean;

  constructor(
    private readonly encoder: PoolJsonEncoder,
    private readonly targets: ChainPoolTargets,
    protocolIds: readonly string[],
    readonly from: number,
    to: number,
    private readonly reuse: PoolReuse | null = null,
  ) {
    const room = new Uint8Array(targets.json, from * EXPECTED_POOL_JSON_BYTES, (to - from) * EXPECTED_POOL_JSON_BYTES);
    this.json = new StringColumnBuilder(to - from, 0, room);
    this.search = new PoolSearchRange(targets.search, targets.poolCount, indexedProtocolIds(protocolIds), from);
    this.index = from;
    this.previousOf = reuse === null ? null : [];
    this.keptProtocols = new Uint8Array(protocolIds.length);
    this.keptAddresses = reuse !== null && reuse.previous.digests?.poolOrders == null;
  }

  write(item: PoolItem): void {
    if (typeof item === "number") return this.copy(item);
    this.flushRun();
    const pool = item;
    const encoder = this.encoder;
    this.targets.keptFrom[this.index] = 0;
    this.addresses.push(pool.address);
    encoder.write(pool, this.json);
    const json = this.json.lastValue();
    this.targets.jsonCrc[this.index++] = poolJsonCrc(json);
    this.search.add(pool, encoder.lastTokenRows(), encoder.wrappedOffsets);
    this.protocols.add(pool.protocolId);
    const reuse = this.reuse;
    if (reuse !== null) {
      this.previousOf!.push(reuse.compare(pool.address, json));
      if (reuse.changed) this.upserted.push(pool.address);
    }
  }

  /**
   * Previous pool j, whose record this pool has: what was compiled for it, kept. Its CRC is copied with those of
   * the previous pools that follow it in both files, in one piece (most unchanged pools come in runs); its JSON is
   * not written here (the pool keeps it where the previous build wrote it: keptPoolJson).
   */
  private copy(j: number): void {
    const reuse = this.reuse;
    if (reuse === null) throw new Error(`pool ${this.index}: taken as previous pool ${j} without a reuse`);
    if (this.runLength > 0 && j !== this.runFrom + this.runLength) this.flushRun();
    if (this.runLength === 0) this.runFrom = j;
    this.targets.keptFrom[this.index + this.runLength] = j + 1;
    this.runLength++;
    this.previousOf!.push(j);
    this.addresses.push(this.keptAddresses ? reuse.address(j) : "");
    const protocol = reuse.protocolIndex(j);
    this.search.copy(reuse.previous.poolSearch, j, reuse.rowOf, protocol);
    // Its protocol id once per protocol, not once per pool (the ids are a set).
    if (this.keptProtocols[protocol] === 0) {
      this.keptProtocols[protocol] = 1;
      this.protocols.add(reuse.protocolId(j));
    }
    reuse.kept(j);
    this.kept++;
  }

  /**
   * Writes the CRCs of the previous pools copied since the last flush (their JSON stays where it is: keptPoolJson
   * puts their places in the chain's pool JSON column).
   */
  private flushRun(): void {
    const n = this.runLength;
    if (n === 0) return;
    const pools = this.reuse!.previous.pools;
    this.targets.jsonCrc.set(pools.jsonCrc.subarray(this.runFrom, this.runFrom + n), this.index);
    this.index += n;
    this.runLength = 0;
  }

  /** Index after the last pool written. */
  get to(): number {
    this.flushRun();
    return this.index;
  }

  /** What another thread is handed back (the writer is spent afterwards). */
  output(): PoolRangeOutput {
    this.flushRun();
    const json = this.json.finish();
    return {
      from: this.from,
      to: this.index,
      addresses: this.addresses,
      json,
      jsonInTargets: json.bytes.buffer === this.targets.json,
      search: this.search.part(),
      protocols: [...this.protocols],
      upserted: this.upserted,
      kept: this.kept,
      previousOf: this.previousOf === null ? null : Int32Array.from(this.previousOf),
    };
  }

  /** Takes the pools after this range as its own (they were not handed to another thread). */
  continueToEnd(): void {
    this.flushRun();
    this.json.claimRest();
  }

  /** Appends another range's output, whose pools follow the pools written here. */
  join(part: PoolRangeOutput): void {
    this.flushRun();
    if (part.from !== this.index) throw new Error(`pool ranges do not meet: ${this.index} then ${part.from}`);
    for (const address of part.addresses) this.addresses.push(address);
    // Posted from another thread, the part's JSON is a view of another object over the same shared memory: seen
    // through this thread's targets, it is moved down in place rather than copied into a new, larger blob.
    const { bytes, offsets } = part.json;
    const json = part.jsonInTargets ? { bytes: new Uint8Array(this.targets.json, bytes.byteOffset, bytes.length), offsets } : part.json;
    this.json.appendColumn(json);
    this.search.join(part.search, part.to);
    for (const id of part.protocols) this.protocols.add(id);
    for (const address of part.upserted) this.upserted.push(address);
    if (this.previousOf !== null && part.previousOf !== null) for (const j of part.previousOf) this.previousOf.push(j);
    this.kept += part.kept;
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
    digests: digestColumn(poolCount),
    keptFrom: sharedArray(Int32Array, poolCount),
  };
}

/** The encoder of a chain's pools (built from its tokens and protocols: in each thread that writes pools). */
export function chainPoolEncoder(snapshot: NormalizedSnapshotFile, tokens: PoolTokenTable | null = null): PoolJsonEncoder {
  return new PoolJsonEncoder(snapshot.chainId as ChainId, tokens ?? snapshot.tokens, snapshot.protocols);
}

/**
 * A chain's tokens compiled before its pools (an incremental build: reuse-tokens.ts), in place of the snapshot's
 * `tokens`: its columns and its tokens as the pools' JSON shows them.
 */
export interface PreparedTokens {
  readonly columns: ChainTokenColumns;
  readonly poolTokens: PoolTokenTable;
  /** The earlier run whose rows the unchanged tokens repeat (compile-token-run.ts). */
  readonly previousRun: PreviousRun | null;
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
  private readonly reuse: PoolReuse | null;
  /** After `finish`: the pools in every pool-search key's order (RecordDigests.poolOrders). */
  poolOrders: Uint32Array | null = null;
  /** After `finish`: the milliseconds its parts took (logged with the build's stages as `finish.<part>`). */
  finishStages: BuildStages = {};

  private tokens: { columns: ChainTokenColumns; run: TokenRunData } | null = null;

  /**
   * @param ownPools the pools written here, from pool 0; those after them may be written by another thread
   * @param targets where they are written (new ones when absent)
   * @param prepared the tokens, compiled already (then the snapshot's `tokens` are not read)
   * @param reuse the previous file's pools, when the pools come incrementally (a PoolStream with this reuse)
   */
  constructor(
    private readonly snapshot: NormalizedSnapshotFile,
    private readonly source: CompileChainSource,
    poolCount: number,
    ownPools = poolCount,
    targets: ChainPoolTargets = chainPoolTargets(poolCount),
    private readonly prepared: PreparedTokens | null = null,
    reuse: PoolReuse | null = null,
  ) {
    if (targets.poolCount !== poolCount) throw new RangeError(`targets for ${targets.poolCount} pools, not ${poolCount}`);
    this.targets = targets;
    this.reuse = reuse;
    this.encoder = chainPoolEncoder(snapshot, prepared?.poolTokens ?? null);
    this.writer = new PoolRangeWriter(
      this.encoder,
      this.targets,
      snapshot.protocols.map((p) => p.id),
      0,
      ownPools,
      reuse,
    );
  }

  write(pool: PoolItem): void {
    this.writer.write(pool);
  }

  /** With a reuse: the addresses of the pools (every range joined) that are part of the change set. */
  get upserted(): readonly string[] {
    return this.writer.upserted;
  }

  /** With a reuse: the pools (every range joined) copied from the previous file's tables. */
  get kept(): number {
    return this.writer.kept;
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
      const columns = this.prepared?.columns ?? TokenColumnsBuilder.of(this.snapshot.tokens);
      this.tokens = { columns, run: compileTokenRun(this.snapshot.chainId as ChainId, columns, this.prepared?.previousRun ?? null) };
    }
    return this.tokens;
  }

  private get tokenCount(): number {
    return this.prepared?.columns.count ?? this.snapshot.tokens.length;
  }

  finish(): CompiledChain {
    const { snapshot, source, encoder, writer } = this;
    const chainId = snapshot.chainId as ChainId;
    const poolCount = this.targets.poolCount;
    if (writer.to !== poolCount) throw new Error(`chain ${chainId}: ${writer.to} of ${poolCount} pools compiled`);
    const clock = new StageClock();
    const protocolById = new Map<string, Protocol>();
    for (const p of snapshot.protocols) protocolById.set(p.id, { id: p.id, name: p.name, logoUrl: p.logoUrl, url: p.url });
    const search = new PoolSearchIndexBuilder(
      {
        chainId,
        tokenCount: this.tokenCount,
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
    // An incremental build's column holds the pools encoded here; the kept pools keep their JSON where it lies.
    const written = writer.json.finish();
    const previousPools = this.reuse?.previous.pools ?? null;
    const kept = previousPools === null ? null : keptPoolJson(previousPools.json, written, this.targets.keptFrom);
    clock.mark("json");
    // The kept pools' addresses are copied from the previous pool table, as bytes.
    const pools =
      kept === null
        ? buildPoolTable(poolAddresses, written, this.targets.jsonCrc)
        : buildPoolTableKeeping(poolAddresses, kept, this.targets.jsonCrc, previousPools!, this.targets.keptFrom);
    clock.mark("lookup");
    const { columns: tokens, run: tokenRun } = this.compileTokens();
    clock.mark("tokens");
    const previousOrders = this.reuse?.previous.digests?.poolOrders ?? null;
    const reuse = this.reuse;
    const poolSearch = search.finish(
      poolAddresses,
      reuse === null || previousOrders == null
        ? null
        : {
            index: reuse.previous.poolSearch,
            pools: reuse.previous.pools,
            table: pools,
            orders: previousOrders,
            keptFrom: this.targets.keptFrom,
            rowOf: reuse.rowOf,
          },
      clock,
    );
    this.poolOrders = search.orders;
    this.finishStages = clock.report();
    const info: ChainSnapshotInfo = {
      chainId,
      generatedAt: snapshot.generatedAt,
      blockNumber: snapshot.blockNumber ?? null,
      file: source.file,
      fileBytes: source.fileBytes,
      sha256: source.sha256,
      fileMtimeMs: source.fileMtimeMs,
      tokenCount: this.tokenCount,
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
