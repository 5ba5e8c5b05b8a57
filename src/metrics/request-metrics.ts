/**
 * Request counts (by route and status), latency histograms (by route) and a
 * few per-thread event counters, in shared memory. Each serving thread writes
 * only its own slice, with plain increments; the supervisor sums the slices
 * when /metrics is scraped. A replacement thread takes over its predecessor's
 * slice, so counters never go backwards. The route labels are the route
 * table's names (src/http/route-table.ts), `preflight` (CORS) and `unmatched`.
 */
import { STREAM_EVENT_TYPES, STREAM_TRANSPORTS, type StreamEventType, type StreamTransport } from "../stream/stream-events.js";

export { STREAM_EVENT_TYPES, STREAM_TRANSPORTS };

export const STATUS_LABELS = [101, 200, 204, 304, 400, 401, 403, 404, 405, 406, 413, 415, 429, 500, 503] as const;
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
  /** A keyed request the shared quota store (Redis) did not count. */
  "quota-store-error",
  /** A stream connection was closed because its unsent bytes passed STREAM_MAX_BUFFER_BYTES. */
  "stream-slow-consumer",
  /** A history bucket answer sent from the bytes the thread keeps (src/history/answer-cache.ts). */
  "history-answer-hit",
  /** A history bucket answer made from the store (none kept, or no longer good). */
  "history-answer-miss",
] as const;
export type ThreadEvent = (typeof THREAD_EVENTS)[number];

export const MAX_SERVING_THREADS = 64;

/** Bucket upper bounds (seconds) of the delay from a swap to the last stream event of it enqueued. */
export const STREAM_DELAY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

const STATUSES = STATUS_LABELS.length + 1; // + "other"
const BUCKETS = LATENCY_BUCKETS.length + 1; // + Inf
const HISTOGRAM_FIELDS = BUCKETS + 2; // buckets, sum, count
const statusIndex = new Map<number, number>(STATUS_LABELS.map((s, i) => [s, i]));
const eventIndex = new Map<string, number>(THREAD_EVENTS.map((e, i) => [e, i]));
const transportIndex = new Map<string, number>(STREAM_TRANSPORTS.map((t, i) => [t, i]));
const streamEventIndex = new Map<string, number>(STREAM_EVENT_TYPES.map((t, i) => [t, i]));
const DELAY_BUCKETS = STREAM_DELAY_BUCKETS.length + 1; // + Inf

/** Where each figure lives in a thread's slice, for a list of route labels. */
export class RequestMetricsLayout {
  /** Route labels: the table's route names, then `preflight` and `unmatched`. */
  readonly routes: readonly string[];
  readonly slice: number;
  readonly histograms: number;
  readonly events: number;
  /** Open streams by transport (gauges: a thread's own, reset when a thread takes the slice). */
  readonly streams: number;
  /** Stream events sent, by type. */
  readonly streamEvents: number;
  /** The swap-to-last-event delay histogram: buckets, sum, count. */
  readonly streamDelay: number;

  constructor(routeNames: readonly string[]) {
    this.routes = [...routeNames, "preflight", "unmatched"];
    this.histograms = this.routes.length * STATUSES;
    this.events = this.histograms + this.routes.length * HISTOGRAM_FIELDS;
    this.streams = this.events + THREAD_EVENTS.length;
    this.streamEvents = this.streams + STREAM_TRANSPORTS.length;
    this.streamDelay = this.streamEvents + STREAM_EVENT_TYPES.length;
    this.slice = this.streamDelay + DELAY_BUCKETS + 2;
  }

  createBuffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(MAX_SERVING_THREADS * this.slice * Float64Array.BYTES_PER_ELEMENT);
  }
}

/** The writer of one serving thread. */
export class RequestMetricsRecorder {
  private readonly slice: Float64Array;
  private readonly unmatched: number;
  private readonly preflight: number;

  constructor(
    private readonly layout: RequestMetricsLayout,
    buffer: SharedArrayBuffer,
    threadSlot: number,
  ) {
    this.slice = new Float64Array(buffer, threadSlot * layout.slice * Float64Array.BYTES_PER_ELEMENT, layout.slice);
    this.unmatched = layout.routes.length - 1;
    this.preflight = layout.routes.length - 2;
    // The streams of a thread that held this slice before ended with it.
    this.slice.fill(0, layout.streams, layout.streams + STREAM_TRANSPORTS.length);
  }

  /** @param route index in the route table; -1 for a request no route took, -2 for a CORS preflight */
  record(route: number, status: number, seconds: number): void {
    const r = route >= 0 ? route : route === -2 ? this.preflight : this.unmatched;
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

  /** A stream connection closed as a slow consumer. */
  streamSlowConsumer(): void {
    this.count("stream-slow-consumer");
  }

  /** A stream opened (+1) or closed (-1). */
  streamOpened(transport: StreamTransport, delta: 1 | -1): void {
    this.slice[this.layout.streams + transportIndex.get(transport)!] += delta;
  }

  /** `n` stream events of `type` sent (one per connection that gets it). */
  streamEvents(type: StreamEventType, n: number): void {
    this.slice[this.layout.streamEvents + streamEventIndex.get(type)!] += n;
  }

  /** The delay from a swap to the last event of it enqueued (seconds). */
  streamDelay(seconds: number): void {
    const slice = this.slice;
    const h = this.layout.streamDelay;
    let b = 0;
    while (b < STREAM_DELAY_BUCKETS.length && seconds > STREAM_DELAY_BUCKETS[b]) b++;
    slice[h + b]++;
    slice[h + DELAY_BUCKETS] += seconds;
    slice[h + DELAY_BUCKETS + 1]++;
  }
}

export interface RequestMetricsTotals {
  readonly requests: ReadonlyArray<{ route: string; status: string; count: number }>;
  readonly latency: ReadonlyArray<{ route: string; buckets: number[]; sum: number; count: number }>;
  readonly events: Readonly<Record<ThreadEvent, number>>;
  readonly streams: Readonly<Record<StreamTransport, number>>;
  readonly streamEvents: Readonly<Record<StreamEventType, number>>;
  readonly streamDelay: { readonly buckets: number[]; readonly sum: number; readonly count: number };
}

/** Zeroes a thread's gauges once it has exited (its streams ended with it). */
export function clearThreadGauges(layout: RequestMetricsLayout, buffer: SharedArrayBuffer, threadSlot: number): void {
  const slice = new Float64Array(buffer, threadSlot * layout.slice * Float64Array.BYTES_PER_ELEMENT, layout.slice);
  slice.fill(0, layout.streams, layout.streams + STREAM_TRANSPORTS.length);
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
  const streams = Object.fromEntries(STREAM_TRANSPORTS.map((t, i) => [t, totals[layout.streams + i]])) as Record<StreamTransport, number>;
  const streamEvents = Object.fromEntries(STREAM_EVENT_TYPES.map((t, i) => [t, totals[layout.streamEvents + i]])) as Record<
    StreamEventType,
    number
  >;
  const h = layout.streamDelay;
  const streamDelay = {
    buckets: Array.from(totals.subarray(h, h + DELAY_BUCKETS)),
    sum: totals[h + DELAY_BUCKETS],
    count: totals[h + DELAY_BUCKETS + 1],
  };
  return { requests, latency, events, streams, streamEvents, streamDelay };
}
