/**
 * A deliberately simple reference of history (shared/spec/history.md §22-§24, docs/history.md): it keeps
 * every observed file whole and recomputes every answer from those files by brute force, bucket by bucket,
 * sharing no code with src/query/history-answer.ts or the store.
 */
import type { SnapshotFile } from "../../src/api/snapshot-format.js";

export type Kind = "token" | "pool";

interface Observed {
  readonly t: number;
  readonly tokens: ReadonlyMap<string, readonly number[]>;
  readonly pools: ReadonlyMap<string, readonly number[]>;
}

export interface ReferenceQuery {
  readonly kind: Kind;
  readonly address: string;
  readonly tier: "raw" | "hour" | "day";
  readonly width: number;
  readonly before: number;
  readonly limit: number;
  readonly fill: boolean;
}

export interface ReferenceBucket {
  t: number;
  v: number[];
  nObs: number;
  filled: boolean;
}

const HOUR = 3600;
const DAY = 86_400;
const floorTo = (t: number, w: number) => t - (((t % w) + w) % w);

/** A file's values: a token's [price, pooled value], a pool's [TVL, volume 24h, fees 24h, yield 24h]. */
export function observedValues(file: SnapshotFile): Observed {
  return {
    t: file.generatedAt,
    tokens: new Map(file.tokens.map((t) => [t.address, [t.trackedUsdPrice, t.trackedTotalValuePooledUsd]])),
    pools: new Map(
      file.pools.map((p) => [
        p.address,
        [p.totalValueLockedUsd, p.stats.stats24h.swapVolumeUsd, p.stats.stats24h.feesUsd, p.stats.stats24h.yield],
      ]),
    ),
  };
}

export class ReferenceHistory {
  readonly observed: Observed[] = [];
  readonly gaps: Array<[number, number]> = [];
  private lastId: string | null = null;
  private servedId: string | null = null;

  constructor(private readonly retention: { rawHours: number; hourDays: number }) {}

  get maxT(): number {
    return this.observed[this.observed.length - 1].t;
  }

  /**
   * A file served: `previous` is the id of the file served before it in the same process (null after a
   * restart or on the first load). Same rules as the store: the file history observed last again is
   * nothing; an older one is not observed; continuity is the previous file being the one served last.
   */
  serve(file: SnapshotFile, id: string, previous: string | null): void {
    if (this.observed.length > 0 && id === this.lastId && (this.servedId === id || this.servedId === null)) {
      this.servedId = id;
      return;
    }
    const continuous = this.servedId !== null && previous !== null && previous === this.servedId;
    if (this.observed.length > 0 && file.generatedAt < this.maxT) {
      this.servedId = continuous ? id : "";
      return;
    }
    // A gap is a span without observation: none between two files of the same second.
    if (this.observed.length > 0 && !continuous && file.generatedAt > this.maxT) this.gaps.push([this.maxT, file.generatedAt]);
    this.observed.push(observedValues(file));
    this.lastId = id;
    this.servedId = id;
  }

  /** A restart: the next file comes without a previous. */
  restart(): void {
    this.servedId = null;
  }

  private valuesAt(o: Observed, kind: Kind, address: string): readonly number[] | undefined {
    return (kind === "token" ? o.tokens : o.pools).get(address);
  }

  floor(tier: "raw" | "hour" | "day"): number {
    const maxT = this.maxT;
    if (tier === "raw") return floorTo(maxT, HOUR) - (this.retention.rawHours - 1) * HOUR;
    if (tier === "hour") return floorTo(maxT, DAY) - (this.retention.hourDays - 1) * DAY;
    return floorTo(this.observed[0].t, DAY);
  }

  knows(kind: Kind, address: string): boolean {
    return this.observed.some((o) => this.valuesAt(o, kind, address) !== undefined);
  }

  candles(q: ReferenceQuery): {
    buckets: ReferenceBucket[];
    coverage: { from: number; to: number; observations: number; gaps: [number, number][] };
    closed: boolean;
  } {
    const w = q.width;
    const floor = Math.max(this.floor(q.tier), floorTo(this.observed[0].t, w));
    const last = Math.min(q.before - 1, this.maxT);
    const newest = floorTo(last, w);
    const buckets: ReferenceBucket[] = [];
    if (last >= floor) {
      for (let b = newest; b >= floor && buckets.length < q.limit; b -= w) {
        const inside = this.observed.filter((o) => o.t >= b && o.t < b + w);
        const values = inside.map((o) => this.valuesAt(o, q.kind, q.address)).filter((v): v is readonly number[] => v !== undefined);
        if (values.length > 0) {
          const lastV = values[values.length - 1];
          const v =
            q.kind === "token"
              ? [values[0][0], Math.max(...values.map((x) => x[0])), Math.min(...values.map((x) => x[0])), lastV[0], lastV[1]]
              : [...lastV];
          buckets.push({ t: b, v, nObs: values.length, filled: false });
          continue;
        }
        if (!q.fill || inside.length > 0) continue;
        const before = this.observed.filter((o) => o.t < b);
        if (before.length === 0) continue;
        const state = this.valuesAt(before[before.length - 1], q.kind, q.address);
        if (state === undefined) continue;
        buckets.push({
          t: b,
          v: q.kind === "token" ? [state[0], state[0], state[0], state[0], state[1]] : [...state],
          nObs: 0,
          filled: true,
        });
      }
    }
    const reached = buckets.length >= q.limit;
    const from = reached ? buckets[buckets.length - 1].t : floor;
    const to = Math.max(from, newest + w);
    const observations = buckets.reduce((s, b) => s + b.nObs, 0);
    const gaps = this.gaps.filter(([a, b]) => b > from && a < to).map(([a, b]) => [a, b] as [number, number]);
    return { buckets, coverage: { from, to, observations, gaps }, closed: reached && to <= this.maxT };
  }

  priceAt(address: string, at: number): { price: number; observedAt: number } | null {
    const until = at >= this.floor("raw") ? at : at >= this.floor("hour") ? floorTo(at + 1, HOUR) - 1 : floorTo(at + 1, DAY) - 1;
    const before = this.observed.filter((o) => o.t <= until);
    if (before.length === 0) return null;
    const o = before[before.length - 1];
    const v = o.tokens.get(address);
    return v === undefined ? null : { price: v[0], observedAt: o.t };
  }
}
