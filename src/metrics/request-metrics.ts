/**
 * Request counts (by route and status) and latency histograms (by route) in
 * shared memory. Each serving thread writes only its own slice, with plain
 * increments; the supervisor sums the slices when /metrics is scraped. A
 * replacement thread takes over its predecessor's slice, so counters never
 * go backwards.
 */
export const ROUTE_LABELS = ["tokens", "pools", "protocols", "health", "ready", "metrics", "openapi", "unmatched"] as const;
export type RouteLabel = (typeof ROUTE_LABELS)[number];

export const STATUS_LABELS = [200, 400, 401, 403, 404, 405, 413, 415, 429, 500, 503] as const;
/** Latency bucket upper bounds, seconds. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1] as const;

const ROUTES = ROUTE_LABELS.length;
const STATUSES = STATUS_LABELS.length + 1; // + "other"
const BUCKETS = LATENCY_BUCKETS.length + 1; // + Inf
const HISTOGRAM_FIELDS = BUCKETS + 2; // buckets, sum, count
const SLICE = ROUTES * STATUSES + ROUTES * HISTOGRAM_FIELDS;

export const MAX_SERVING_THREADS = 64;

export function createRequestMetricsBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(MAX_SERVING_THREADS * SLICE * Float64Array.BYTES_PER_ELEMENT);
}

const routeIndex = new Map<string, number>(ROUTE_LABELS.map((r, i) => [r, i]));
const statusIndex = new Map<number, number>(STATUS_LABELS.map((s, i) => [s, i]));

/** The writer of one serving thread. */
export class RequestMetricsRecorder {
  private readonly slice: Float64Array;

  constructor(buffer: SharedArrayBuffer, threadSlot: number) {
    this.slice = new Float64Array(buffer, threadSlot * SLICE * Float64Array.BYTES_PER_ELEMENT, SLICE);
  }

  record(route: string, status: number, seconds: number): void {
    const r = routeIndex.get(route) ?? ROUTES - 1;
    const s = statusIndex.get(status) ?? STATUSES - 1;
    const slice = this.slice;
    slice[r * STATUSES + s]++;
    const h = ROUTES * STATUSES + r * HISTOGRAM_FIELDS;
    let b = 0;
    while (b < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[b]) b++;
    slice[h + b]++;
    slice[h + BUCKETS] += seconds;
    slice[h + BUCKETS + 1]++;
  }
}

export interface RequestMetricsTotals {
  /** requests[route][statusLabel] */
  readonly requests: ReadonlyArray<{ route: RouteLabel; status: string; count: number }>;
  readonly latency: ReadonlyArray<{ route: RouteLabel; buckets: number[]; sum: number; count: number }>;
}

/** Sums every thread's slice (read by the supervisor). */
export function readRequestMetrics(buffer: SharedArrayBuffer): RequestMetricsTotals {
  const all = new Float64Array(buffer);
  const totals = new Float64Array(SLICE);
  for (let t = 0; t < MAX_SERVING_THREADS; t++) {
    const base = t * SLICE;
    for (let i = 0; i < SLICE; i++) totals[i] += all[base + i];
  }
  const requests: Array<{ route: RouteLabel; status: string; count: number }> = [];
  const latency: Array<{ route: RouteLabel; buckets: number[]; sum: number; count: number }> = [];
  for (let r = 0; r < ROUTES; r++) {
    for (let s = 0; s < STATUSES; s++) {
      const count = totals[r * STATUSES + s];
      if (count > 0) requests.push({ route: ROUTE_LABELS[r], status: s < STATUS_LABELS.length ? String(STATUS_LABELS[s]) : "other", count });
    }
    const h = ROUTES * STATUSES + r * HISTOGRAM_FIELDS;
    const count = totals[h + BUCKETS + 1];
    if (count > 0) latency.push({ route: ROUTE_LABELS[r], buckets: Array.from(totals.subarray(h, h + BUCKETS)), sum: totals[h + BUCKETS], count });
  }
  return { requests, latency };
}
