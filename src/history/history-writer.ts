/**
 * The one writer of the history store: each served chain file's observations in one transaction (its
 * records, the chain's files by hour and day, a gap when continuity is unknown, the meta record). Work per
 * candidate (what the file's change sets name), not per record of the chain, but when the file's change set
 * is not relative to the file history observed last (the first file after a restart, after a failed
 * write, or after files were skipped): then every record of the file is a candidate, whatever history held
 * that the file no longer holds is recorded as gone, and the span since the last observation is a gap.
 *
 * A file older than the chain's latest observation (an allowed rollback) is not recorded: every bucket it
 * falls in already holds a later observation. Its changes are carried to the chain's next file, which
 * records them (shared/spec/history.md §22; docs/history.md).
 *
 * Compaction and retention are history-compactor.ts; both run on the history thread (history-thread.ts).
 */
import type { ChangeLists } from "../tables/change-sets.js";
import { valueCount, type EntityKind, POOL, TOKEN } from "../query/history-units.js";
import { dayFilesWith, hourFiles, hourFilesWith } from "./hour-files.js";
import {
  decodeMeta,
  encodeMeta,
  HistoryKeys,
  L0_GROUP_BITS,
  newChainMeta,
  OrderedPuts,
  type ChainMeta,
  type HistoryDbs,
} from "./history-store.js";
import { observeFile, type KindObservations, type ObservedTables } from "./observe.js";
import { RecordChunkWriter, ShardBlobWriter } from "./records.js";

/** One served chain file, as the history thread receives it. */
export interface ServedFile {
  readonly chainId: number;
  readonly generatedAt: number;
  /** Its change-set id (`<generatedAt>.<12 hex>`). */
  readonly id: string;
  /** The id of the file its change sets are relative to (the file served before); null: none (a first load). */
  readonly previous: string | null;
  /** Its change sets since `previous` (several when files were accepted and replaced before one was served). */
  readonly lists: readonly ChangeLists[];
  readonly tables: ObservedTables;
}

export type WriteOutcome =
  | { readonly kind: "observed"; readonly records: number; readonly full: boolean; readonly gap: boolean }
  /** The file history observed last (a restart serving the same file). */
  | { readonly kind: "same" }
  /** Older than the chain's latest observation: carried to its next file. */
  | { readonly kind: "rollback" };

interface ChainState {
  meta: ChainMeta;
  /** Ids present at the latest observation, per kind. */
  present: [Uint8Array, Uint8Array];
}

export class HistoryWriter {
  private readonly keys = new HistoryKeys();
  private readonly puts = new OrderedPuts();
  private readonly chains = new Map<number, ChainState | null>();
  /** Per chain: the id of the file last served (observed, or carried), and the change sets carried since. */
  private readonly served = new Map<number, { id: string; carried: ChangeLists[] }>();

  constructor(private readonly dbs: HistoryDbs) {}

  /** The chain's meta record, or null when it has no history. */
  meta(chainId: number): ChainMeta | null {
    return this.chain(chainId)?.meta ?? null;
  }

  /** Forget what is cached (after a failed transaction: what is on disk is the truth). */
  reset(): void {
    this.chains.clear();
    this.served.clear();
  }

  /** A chain's meta changed outside write() (the compactor): keep the cached copy in step. */
  setMeta(chainId: number, meta: ChainMeta): void {
    const state = this.chain(chainId);
    if (state !== null) state.meta = meta;
  }

  private chain(chainId: number): ChainState | null {
    let state = this.chains.get(chainId);
    if (state === undefined) {
      const bytes = this.dbs.meta.getBinary(this.keys.meta(chainId));
      if (bytes === undefined) state = null;
      else {
        const meta = decodeMeta(bytes);
        const present = [TOKEN, POOL].map((k) => {
          const stored = this.dbs.present.getBinary(this.keys.present(chainId, k));
          const bits = new Uint8Array(Math.max(64, ((meta.nextId[k] + 7) >> 3) * 2));
          if (stored !== undefined) bits.set(stored.subarray(0, Math.min(stored.length, bits.length)));
          return bits;
        }) as [Uint8Array, Uint8Array];
        state = { meta, present };
      }
      this.chains.set(chainId, state);
    }
    return state;
  }

  /** Records one served file; throws when the store cannot write (nothing of the file is then kept). */
  write(file: ServedFile): WriteOutcome {
    const state = this.chain(file.chainId);
    const served = this.served.get(file.chainId) ?? (state === null ? null : { id: state.meta.lastFileId, carried: [] });
    if (state !== null && file.id === state.meta.lastFileId && served?.id === file.id) return { kind: "same" };
    const continuous = served !== null && file.previous !== null && file.previous === served.id;
    if (state !== null && file.generatedAt < state.meta.maxT) {
      // A rollback: its changes are carried to the next file (continuity lost: that file records everything).
      this.served.set(file.chainId, continuous ? { id: file.id, carried: [...served!.carried, ...file.lists] } : { id: "", carried: [] });
      return { kind: "rollback" };
    }
    const lists = continuous ? [...served!.carried, ...file.lists] : null;
    const observations = observeFile(file.tables, lists);
    let records = 0;
    // A span without observation: none when the file is of the same second as the last one (nothing between).
    const gap = state !== null && !continuous && file.generatedAt > state.meta.maxT;
    this.dbs.env.transactionSync(() => {
      const chain = state ?? { meta: newChainMeta(file.generatedAt, file.id), present: [new Uint8Array(64), new Uint8Array(64)] };
      const meta = chain.meta;
      const seq = this.addFile(file.chainId, file.generatedAt, meta);
      records += this.writeKind(file, chain, TOKEN, observations.tokens, observations.full, seq);
      records += this.writeKind(file, chain, POOL, observations.pools, observations.full, seq);
      if (gap) this.dbs.gaps.putSync(this.keys.chainTime(file.chainId, meta.maxT), u32(file.generatedAt));
      meta.maxT = file.generatedAt;
      meta.files++;
      meta.lastFileId = file.id;
      this.dbs.meta.putSync(this.keys.meta(file.chainId), encodeMeta(meta));
      for (const k of [TOKEN, POOL]) this.dbs.present.putSync(this.keys.present(file.chainId, k), Buffer.from(chain.present[k]));
      this.chains.set(file.chainId, chain);
    });
    this.served.set(file.chainId, { id: file.id, carried: [] });
    return { kind: "observed", records, full: observations.full, gap };
  }

  /** Adds the file to its hour's and day's entries; returns its seq (files of the same second before it). */
  private addFile(chainId: number, t: number, meta: ChainMeta): number {
    const hour = t - (t % 3600);
    const day = t - (t % 86_400);
    const hourKey = this.keys.chainTime(chainId, hour);
    const previous = this.dbs.files.getBinary(hourKey);
    let seq = 0;
    if (previous !== undefined && t === meta.maxT && meta.files > 0) for (const [ft] of hourFiles(previous, hour)) if (ft === t) seq++;
    this.dbs.files.putSync(Buffer.from(hourKey), hourFilesWith(previous, hour, t));
    const dayKey = Buffer.from(this.keys.chainTime(chainId, day));
    this.dbs.days.putSync(dayKey, dayFilesWith(this.dbs.days.getBinary(dayKey), day, t));
    return seq;
  }

  /** One kind's records of the file, as l0 shard blobs; returns how many records. */
  private writeKind(file: ServedFile, chain: ChainState, kind: EntityKind, obs: KindObservations, full: boolean, seq: number): number {
    const { chainId, generatedAt } = file;
    const meta = chain.meta;
    const changes: Array<[number, number[] | null]> = [];
    let seen = full ? new Uint8Array(chain.present[kind].length) : null;
    for (let i = 0; i < obs.addresses.length; i++) {
      const key = this.keys.id(chainId, kind, obs.addresses[i]);
      const stored = this.dbs.ids.getBinary(key);
      const values = obs.values[i];
      let id: number;
      if (stored === undefined) {
        if (values === null) continue; // never observed: nothing to record of its departure
        id = meta.nextId[kind]++;
        this.dbs.ids.putSync(Buffer.from(key), u32(id));
      } else id = stored.readUInt32LE(0);
      chain.present[kind] = withRoom(chain.present[kind], id);
      const bits = chain.present[kind];
      const present = (bits[id >> 3] & (1 << (id & 7))) !== 0;
      if (seen !== null) {
        seen = withRoom(seen, id);
        seen[id >> 3] |= 1 << (id & 7);
      }
      if (values === null) {
        if (!present) continue;
        bits[id >> 3] &= ~(1 << (id & 7));
      } else bits[id >> 3] |= 1 << (id & 7);
      changes.push([id, values]);
    }
    if (seen !== null) {
      // Every record of the file is a candidate: what history held present and the file lacks has left.
      const bits = chain.present[kind];
      for (let id = 0; id < meta.nextId[kind]; id++) {
        const mask = 1 << (id & 7);
        if ((bits[id >> 3] & mask) !== 0 && (id >> 3 >= seen.length || (seen[id >> 3] & mask) === 0)) {
          bits[id >> 3] &= ~mask;
          changes.push([id, null]);
        }
      }
    }
    changes.sort((a, b) => a[0] - b[0]);
    const n = valueCount(kind);
    const blob = new ShardBlobWriter();
    let group = -1;
    const flush = () => {
      if (group >= 0 && blob.count > 0)
        this.puts.put(this.dbs.l0, Buffer.from(this.keys.l0(chainId, kind, generatedAt, seq, group)), blob.take());
    };
    for (const [id, values] of changes) {
      const g = id >> L0_GROUP_BITS;
      if (g !== group) {
        flush();
        group = g;
      }
      blob.begin(id & ((1 << L0_GROUP_BITS) - 1));
      new RecordChunkWriter(blob.data, generatedAt).add({ t: generatedAt, seq, values: values === null ? null : values.slice(0, n) });
      blob.end();
    }
    flush();
    return changes.length;
  }
}

function u32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v, 0);
  return b;
}

/** The bitset, grown to hold `id`. */
function withRoom(bits: Uint8Array, id: number): Uint8Array {
  if (id >> 3 < bits.length) return bits;
  const next = new Uint8Array(Math.max(bits.length * 2, (id >> 3) + 1));
  next.set(bits);
  return next;
}
