/**
 * Request counts (by route and status), latency histograms (by route) and a
 * few per-thread event counters, in shared memory. Each serving thread writes
 * only its own slice, with plain increments; the supervisor sums the slices
 * when /metrics is scraped. A replacement thread takes over its predecessor's
 * slice, so counters never go backwards. The route labels are the route
 * table's names (src/http/route-table.ts) plus `unmatched`.
 */
export const STATUS_LABELS = [200, 204, 304, 400, 401, 403, 404, 405, 413, 415, 429, 500, 503] as const;
/** Latency bucket upper bounds, seconds. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1] as const;

/** Events a serving thread counts (each becomes a counter of the supervisor's registry). */
export const THREAD_EVENTS = [
  /** An error reached the thread's last-resort handler (the thread then exits and is replaced). */
  "uncaught",
  /** A connection was closed because the thread's held response bytes reached the cap. */
  "backpressure-close",
  /** A client address found no free slot in an address table (its request was not limited). */
  "address-table-full",
] as const;
export type ThreadEvent = (typeof THREAD_EVENTS)[number];

export const MAX_SERVING_THREADS = 64;

const STATUSES = STATUS_LABELS.length + 1; // + "other"
const BUCKETS = LATENCY_BUCKETS.length + 1; // + Inf
const HISTOGRAM_FIELDS = BUCKETS + 2; // buckets, sum, count
const statusIndex = new Map<number, number>(STATUS_LABELS.map((s, i) => [s, i]));
const eventIndex = new Map<string, number>(THREAD_EVENTS.map((e, i) => [e, i]));

/** Where each figure lives in a thread's slice, for a list of route labels. */
export class RequestMetricsLayout {
  /** Route labels: the table's route names, then `unmatched` (index routes.length - 1). */
  readonly routes: readonly string[];
  readonly slice: number;
  readonly histograms: number;
  readonly events: number;

  constructor(routeNames: readonly string[]) {
    this.routes = [...routeNames, "unmatched"];
    this.histograms = this.routes.length * STATUSES;
    this.events = this.histograms + this.routes.length * HISTOGRAM_FIELDS;
    this.slice = this.events + THREAD_EVENTS.length;
  }

  createBuffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(MAX_SERVING_THREADS * this.slice * Float64Array.BYTES_PER_ELEMENT);
  }
}

/** The writer of one serving thread. */
export class RequestMetricsRecorder {
  private readonly slice: Float64Array;
  private readonly unmatched: number;

  constructor(
    private readonly layout: RequestMetricsLayout,
    buffer: SharedArrayBuffer,
    threadSlot: number,
  ) {
    this.slice = new Float64Array(buffer, threadSlot * layout.slice * Float64Array.BYTES_PER_ELEMENT, layout.slice);
    this.unmatched = layout.routes.length - 1;
  }

  /** @param route index in the route table, or -1 for a request no route took */
  record(route: number, status: number, seconds: number): void {
    const r = route < 0 ? this.unmatched : route;
    const s = statusIndex.get(status) ?? STATUSES - 1;
    const slice = this.slice;
    slice[r * STATUSES + s]++;
    const h = this.layout.histograms + r * HISTOGRAM_FIELDS;
    let b = 0;
    while (b < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[b]) b++;
    slice[h + b]++;
    slice[h + BUCKETS] += seconds;
    slice[h + BUCKETS + 1]++;
  }

  count(event: ThreadEvent): void {
    this.slice[this.layout.events + eventIndex.get(event)!]++;
  }
}

export interface RequestMetricsTotals {
  readonly requests: ReadonlyArray<{ route: string; status: string; count: number }>;
  readonly latency: ReadonlyArray<{ route: string; buckets: number[]; sum: number; count: number }>;
  readonly events: Readonly<Record<ThreadEvent, number>>;
}

/** Sums every thread's slice (read by the supervisor). */
export function readRequestMetrics(layout: RequestMetricsLayout, buffer: SharedArrayBuffer): RequestMetricsTotals {
  const all = new Float64Array(buffer);
  const size = layout.slice;
  const totals = new Float64Array(size);
  for (let t = 0; t < MAX_SERVING_THREADS; t++) {
    const base = t * size;
    for (let i = 0; i < size; i++) totals[i] += all[base + i];
  }
  const requests: Array<{ route: string; status: string; count: number }> = [];
  const latency: Array<{ route: string; buckets: number[]; sum: number; count: number }> = [];
  layout.routes.forEach((route, r) => {
    for (let s = 0; s < STATUSES; s++) {
      const count = totals[r * STATUSES + s];
      if (count > 0) requests.push({ route, status: s < STATUS_LABELS.length ? String(STATUS_LABELS[s]) : "other", count });
    }
    const h = layout.histograms + r * HISTOGRAM_FIELDS;
    const count = totals[h + BUCKETS + 1];
    if (count > 0) latency.push({ route, buckets: Array.from(totals.subarray(h, h + BUCKETS)), sum: totals[h + BUCKETS], count });
  });
  const events = Object.fromEntries(THREAD_EVENTS.map((e, i) => [e, totals[layout.events + i]])) as Record<ThreadEvent, number>;
  return { requests, latency, events };
}
