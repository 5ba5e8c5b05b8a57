/**
 * A chain file's pools against the previous file's (docs/decisions/013-incremental-builds.md): a pool whose
 * record bytes are those of a previous pool (same SHA-256) keeps what was compiled for it (its JSON and CRC,
 * its pool-search keys, type, protocol and token rows, where its JSON holds the wrapped native token), copied,
 * when what its JSON shows of others is unchanged too: every token it holds shows the same JSON in the new
 * file's pools, and its protocol is there with the same JSON. Any other pool is decoded, validated and encoded;
 * that pool is then part of the change set when no previous pool has its address or its JSON differs from that
 * pool's (live.md §12), and a previous pool whose address no pool of the new file has is removed.
 *
 * A copied pool's checks: its structure held when it was first read (same bytes, same validators); its
 * references are found (the conditions above); its address is checked unique among the pools before it in
 * file order, as a decoded pool's is. So the file's first problem is the one a full read finds.
 */
import type { SnapshotProtocol } from "../api/snapshot-format.js";
import type { Protocol } from "../api/wire.js";
import { addressAt, findAddress } from "../tables/address-hash-table.js";
import { poolJson } from "../tables/pool-table.js";
import type { PoolMatcher } from "./pool-stream.js";
import type { PreviousChainTables } from "./previous-chain.js";
import { indexedProtocolIds } from "./compile-pool-search.js";
import { DigestIndex } from "./record-digests.js";

/** What the pools of a file read incrementally are compared with (the same on both build threads of a chain). */
export interface PoolReuseInput {
  readonly previous: PreviousChainTables;
  /** The new file's tokens against the previous file's (reuse-tokens.ts, ReusedHeader). */
  readonly tokens: { readonly rowOf: Int32Array; readonly samePoolJson: Uint8Array };
  /** The new file's protocols. */
  readonly protocols: readonly SnapshotProtocol[];
  /**
   * One byte per previous pool, set when a pool of the new file has its address: shared memory, written by both
   * build threads of the chain (each for the pools it reads); the pools left unset are removed.
   */
  readonly present: Uint8Array;
}

export class PoolReuse implements PoolMatcher {
  readonly previous: PreviousChainTables;
  readonly present: Uint8Array;
  /** Per previous token row: its row in the new file (-1: gone). */
  readonly rowOf: Int32Array;
  private readonly samePoolJson: Uint8Array;
  private readonly index: DigestIndex;
  /** Per previous protocol index: its index among the new file's protocol ids, or -1 (gone, or its JSON changed). */
  private readonly protocolOf: Int32Array;
  private lastPool = -1;
  private lastAddress = "";

  constructor(input: PoolReuseInput) {
    const { previous } = input;
    if (previous.digests === null) throw new Error("pool reuse without the previous file's digests");
    this.previous = previous;
    this.present = input.present;
    this.rowOf = input.tokens.rowOf;
    this.samePoolJson = input.tokens.samePoolJson;
    this.index = new DigestIndex(previous.digests.pools, previous.pools.count);
    this.protocolOf = protocolMap(previous.poolSearch.protocolIds, previous.protocols, input.protocols);
  }

  /**
   * The previous pool whose compiled data the pool with this digest keeps, or -1: it is to be decoded (new bytes,
   * or a token or protocol it shows changed or gone).
   */
  match(digest: string): number {
    const j = this.index.find(digest);
    if (j < 0) return -1;
    const { poolProtocol, poolTokenStart, poolTokens } = this.previous.poolSearch;
    if (this.protocolOf[poolProtocol[j]] < 0) return -1;
    const same = this.samePoolJson;
    for (let k = poolTokenStart[j]; k < poolTokenStart[j + 1]; k++) if (same[poolTokens[k]] === 0) return -1;
    return j;
  }

  /** The address of previous pool j. */
  address(j: number): string {
    if (j !== this.lastPool) {
      this.lastAddress = addressAt(this.previous.pools, j);
      this.lastPool = j;
    }
    return this.lastAddress;
  }

  /** The protocol id of previous pool j. */
  protocolId(j: number): string {
    const search = this.previous.poolSearch;
    return search.protocolIds[search.poolProtocol[j]];
  }

  /** The index of previous pool j's protocol among the new file's protocol ids. */
  protocolIndex(j: number): number {
    return this.protocolOf[this.previous.poolSearch.poolProtocol[j]];
  }

  /** Previous pool j is kept (copied): it is no change. */
  kept(j: number): void {
    this.present[j] = 1;
  }

  /**
   * A pool decoded and encoded anew: the previous pool of its address (-1: none), and whether it is a change (no
   * previous pool of its address, or other JSON) in `changed`.
   */
  compare(address: string, json: Uint8Array): number {
    const j = findAddress(this.previous.pools, address);
    this.changed = j < 0 || this.differs(j, json);
    return j;
  }

  /** Whether the pool last compared is a change. */
  changed = false;

  private differs(j: number, json: Uint8Array): boolean {
    const pools = this.previous.pools;
    this.present[j] = 1;
    const previous = poolJson(pools, j);
    const length = previous.length;
    if (length !== json.length) return true;
    for (let k = 0; k < length; k++) if (previous[k] !== json[k]) return true;
    return false;
  }

  /** Addresses of the previous pools no pool of the new file has (once every pool is read). */
  removed(): string[] {
    const out: string[] = [];
    const pools = this.previous.pools;
    for (let j = 0; j < pools.count; j++) if (this.present[j] === 0) out.push(addressAt(pools, j));
    return out;
  }
}

/** Per previous protocol index: the new index of the same id when its JSON is the same, else -1. */
function protocolMap(previousIds: readonly string[], previous: readonly Protocol[], next: readonly SnapshotProtocol[]): Int32Array {
  const nextIds = indexedProtocolIds(next.map((p) => p.id));
  const nextIndex = new Map(nextIds.map((id, i) => [id, i] as const));
  const nextJson = new Map(next.map((p) => [p.id, protocolJson(p)] as const));
  const previousJson = new Map(previous.map((p) => [p.id, protocolJson(p)] as const));
  const map = new Int32Array(previousIds.length).fill(-1);
  previousIds.forEach((id, o) => {
    const json = previousJson.get(id);
    if (json !== undefined && json === nextJson.get(id)) map[o] = nextIndex.get(id)!;
  });
  return map;
}

/** A protocol's JSON as a pool shows it (encode-pool.ts). */
function protocolJson(p: Protocol | SnapshotProtocol): string {
  const protocol: Protocol = { id: p.id, name: p.name, logoUrl: p.logoUrl, url: p.url };
  return JSON.stringify(protocol);
}
