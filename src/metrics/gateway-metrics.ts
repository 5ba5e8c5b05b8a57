/**
 * The gateway's Prometheus metrics (prom-client), owned by the supervisor:
 * request counts and latency read from the serving threads' shared counters,
 * and the snapshot lifecycle (per-chain version and age, counts, build
 * durations, rejected files, live versions), plus the process's own metrics.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from "prom-client";
import type { ChainSnapshotInfo } from "../tables/compiled-chain.js";
import { HISTORY_STATES, type HistoryFigures, type HistoryStatusCells } from "../history/history-status.js";
import { SNAPSHOT_ERROR_REASONS } from "../snapshot/snapshot-error.js";
import {
  LATENCY_BUCKETS,
  clearThreadGauges,
  readRequestMetrics,
  RequestMetricsLayout,
  STREAM_DELAY_BUCKETS,
  STREAM_EVENT_TYPES,
  STREAM_TRANSPORTS,
  type ThreadEvent,
} from "./request-metrics.js";

export const ORIGIN_POLL_RESULTS = ["changed", "not_modified", "error", "refused"] as const;

/** What the origin's puller counts. */
export interface OriginMetrics {
  readonly polls: Counter<"result">;
  readonly bytes: Counter;
  readonly generation: Gauge;
}

/** Latency histogram whose values come from the shared per-thread buckets. */
function sharedLatencyHistogram(layout: RequestMetricsLayout, buffer: SharedArrayBuffer): Metric<string> {
  const name = "gateway_http_request_duration_seconds";
  const help = "Time from request to response, by route (seconds).";
  return {
    name,
    help,
    type: "histogram",
    aggregator: "sum",
    get: async () => {
      const values: Array<{ value: number; metricName: string; labels: Record<string, string | number> }> = [];
      for (const { route, buckets, sum, count } of readRequestMetrics(layout, buffer).latency) {
        let cumulative = 0;
        buckets.forEach((n, i) => {
          cumulative += n;
          values.push({
            value: cumulative,
            metricName: `${name}_bucket`,
            labels: { le: i < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[i] : "+Inf", route },
          });
        });
        values.push({ value: sum, metricName: `${name}_sum`, labels: { route } });
        values.push({ value: count, metricName: `${name}_count`, labels: { route } });
      }
      return { name, help, type: "histogram", values, aggregator: "sum" };
    },
  } as unknown as Metric<string>;
}

/** The swap-to-last-stream-event delay histogram, from the shared per-thread buckets. */
function sharedStreamDelayHistogram(layout: RequestMetricsLayout, buffer: SharedArrayBuffer): Metric<string> {
  const name = "gateway_stream_publish_delay_seconds";
  const help =
    "Time from a serving thread's snapshot swap to the last stream event of it enqueued for that thread's subscribers (seconds; one observation per swap that carried change sets).";
  return {
    name,
    help,
    type: "histogram",
    aggregator: "sum",
    get: async () => {
      const { buckets, sum, count } = readRequestMetrics(layout, buffer).streamDelay;
      const values: Array<{ value: number; metricName: string; labels: Record<string, string | number> }> = [];
      let cumulative = 0;
      buckets.forEach((n, i) => {
        cumulative += n;
        values.push({
          value: cumulative,
          metricName: `${name}_bucket`,
          labels: { le: i < STREAM_DELAY_BUCKETS.length ? STREAM_DELAY_BUCKETS[i] : "+Inf" },
        });
      });
      values.push({ value: sum, metricName: `${name}_sum`, labels: {} });
      values.push({ value: count, metricName: `${name}_count`, labels: {} });
      return { name, help, type: "histogram", values, aggregator: "sum" };
    },
  } as unknown as Metric<string>;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly chains = new Map<number, ChainSnapshotInfo>();
  private liveVersions: readonly string[] = [];
  private currentVersion: string | null = null;

  readonly buildDuration = new Histogram({
    name: "gateway_snapshot_build_duration_seconds",
    help: "Duration of snapshot builds in the build workers, by phase (chain: one chain file, diff included; diff: its change set against the chain's previous file; token-index: the cross-chain index).",
    labelNames: ["phase"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  readonly buildWait = new Histogram({
    name: "gateway_snapshot_build_wait_seconds",
    help: "How long each chain file's build waited: from its push noticed to its start (behind other builds), plus the time its thread was runnable but not running or yielded the CPU; by the niceness it ran at (averaged over its run, rounded: 0 is the serving threads' priority; FRESHNESS_TARGET_S).",
    labelNames: ["priority"],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
    registers: [this.registry],
  });

  readonly rejectedFiles = new Counter({
    name: "gateway_snapshot_rejected_files_total",
    help: `Snapshot files rejected, by reason (${SNAPSHOT_ERROR_REASONS.join(", ")}).`,
    labelNames: ["reason"],
    registers: [this.registry],
  });

  readonly buildFailures = new Counter({
    name: "gateway_snapshot_build_failures_total",
    help: "Builds that threw or whose worker crashed (the current snapshot kept serving).",
    registers: [this.registry],
  });

  readonly threadRestarts = new Counter({
    name: "gateway_serving_thread_restarts_total",
    help: "Serving threads that exited unexpectedly after they listened (each is replaced, with a growing delay when they keep crashing).",
    registers: [this.registry],
  });

  readonly servingThreads = new Gauge({
    name: "gateway_serving_threads",
    help: "Serving threads listening and not draining: GATEWAY_THREADS, one more while a rolling restart replaces a thread.",
    registers: [this.registry],
  });

  readonly tlsReloadRejections = new Counter({
    name: "gateway_tls_reload_rejections_total",
    help: "Changed TLS files that failed their checks and were not applied (the threads kept their certificate).",
    registers: [this.registry],
  });

  readonly keysFileRejections = new Counter({
    name: "gateway_keys_file_rejections_total",
    help: "Keys files rejected as a whole (the keys in force stayed in force).",
    registers: [this.registry],
  });

  readonly basketsFileRejections = new Counter({
    name: "gateway_baskets_file_rejections_total",
    help: "Baskets files rejected as a whole (the baskets in force stayed in force).",
    registers: [this.registry],
  });

  readonly baskets = new Gauge({
    name: "gateway_baskets",
    help: "Token baskets in force (from the baskets file).",
    registers: [this.registry],
  });

  constructor(
    private readonly layout: RequestMetricsLayout,
    private readonly requestMetrics: SharedArrayBuffer,
  ) {
    // prom-client calls collect() with the metric as `this`: the gauges read this object through `self`.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    collectDefaultMetrics({ register: this.registry });
    // Every reason exported from the start (at 0): a rejection then shows as an increase, which an alert's
    // increase() sees (a series that first appears at 1 has no increase; config/monitoring/gateway-alerts.yml).
    for (const reason of SNAPSHOT_ERROR_REASONS) this.rejectedFiles.inc({ reason }, 0);
    const threadEvent = (name: string, help: string, event: ThreadEvent) =>
      new Counter({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(readRequestMetrics(layout, requestMetrics).events[event]);
        },
      });
    threadEvent(
      "gateway_uncaught_errors_total",
      "Errors that reached a serving thread's last-resort handler (the thread exited and was replaced).",
      "uncaught",
    );
    threadEvent(
      "gateway_backpressure_closes_total",
      "Connections closed because the serving thread's bytes held for clients that do not read reached the cap.",
      "backpressure-close",
    );
    threadEvent(
      "gateway_address_table_full_total",
      "Requests whose client address found no free slot in an address table (failed-auth or public limit), so were not limited.",
      "address-table-full",
    );
    threadEvent(
      "gateway_quota_store_errors_total",
      "Keyed requests the shared quota store (Redis) did not count (unreachable, failed or timed out): counted on this instance's own counters (QUOTA_FAILURE=open) or answered 503 (closed).",
      "quota-store-error",
    );
    threadEvent(
      "gateway_history_answer_cache_hits_total",
      "History bucket answers (candles, pool rows) sent from the bytes a serving thread keeps (made once per observation of the chain).",
      "history-answer-hit",
    );
    threadEvent(
      "gateway_history_answer_cache_misses_total",
      "History bucket answers made from the store: none kept for the request, or the chain observed a file (or moved its retention floor) since.",
      "history-answer-miss",
    );
    new Counter({
      name: "gateway_http_requests_total",
      help: "HTTP requests answered, by route and status.",
      labelNames: ["route", "status"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { route, status, count } of readRequestMetrics(layout, requestMetrics).requests) this.inc({ route, status }, count);
      },
    });
    this.registry.registerMetric(sharedLatencyHistogram(layout, requestMetrics));
    threadEvent(
      "gateway_stream_slow_consumer_closes_total",
      "Stream connections closed because their unsent bytes passed STREAM_MAX_BUFFER_BYTES (WebSocket 4008 slow-consumer, or the SSE response ended).",
      "stream-slow-consumer",
    );
    new Gauge({
      name: "gateway_streams_open",
      help: "Open GET /v1/stream connections, by transport (websocket, sse).",
      labelNames: ["transport"],
      registers: [this.registry],
      collect() {
        this.reset();
        const open = readRequestMetrics(layout, requestMetrics).streams;
        for (const transport of STREAM_TRANSPORTS) this.set({ transport }, open[transport]);
      },
    });
    new Counter({
      name: "gateway_stream_events_sent_total",
      help: "Stream events enqueued for clients, by type (one per connection that gets it; SSE and WebSocket alike).",
      labelNames: ["type"],
      registers: [this.registry],
      collect() {
        this.reset();
        const sent = readRequestMetrics(layout, requestMetrics).streamEvents;
        for (const type of STREAM_EVENT_TYPES) this.inc({ type }, sent[type]);
      },
    });
    this.registry.registerMetric(sharedStreamDelayHistogram(layout, requestMetrics));
    const perChain = (name: string, help: string, value: (info: ChainSnapshotInfo) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ["chain_id"],
        registers: [this.registry],
        collect() {
          this.reset();
          for (const info of self.chains.values()) {
            const v = value(info);
            if (v !== null) this.set({ chain_id: String(info.chainId) }, v);
          }
        },
      });
    perChain(
      "gateway_snapshot_generated_at_seconds",
      "generatedAt of the chain's served snapshot (Unix seconds): its version.",
      (i) => i.generatedAt,
    );
    perChain("gateway_snapshot_age_seconds", "Seconds since the served snapshot's generatedAt.", (i) => Date.now() / 1000 - i.generatedAt);
    perChain("gateway_snapshot_block_number", "blockNumber of the chain's served snapshot, when the file gives one.", (i) => i.blockNumber);
    perChain("gateway_snapshot_pools", "Pools in the chain's served snapshot.", (i) => i.poolCount);
    perChain("gateway_snapshot_tokens", "Tokens in the chain's served snapshot.", (i) => i.tokenCount);
    new Gauge({
      name: "gateway_snapshot_live_versions",
      help: "Snapshot versions alive (the served one and earlier ones kept for cursors); the label current is 1 for the served one.",
      labelNames: ["version", "current"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const v of self.liveVersions) this.set({ version: v, current: v === self.currentVersion ? "1" : "0" }, 1);
      },
    });
  }

  /**
   * History's figures (shared/spec/history.md §25), read from the history thread's status cells at each
   * scrape; nothing is exported with HISTORY=off.
   */
  watchHistory(status: HistoryStatusCells | null): void {
    if (status === null) return;
    const registers = [this.registry];
    const figure = (name: string, help: string, kind: "gauge" | "counter", value: (f: HistoryFigures) => number) =>
      kind === "gauge"
        ? new Gauge({
            name,
            help,
            registers,
            collect() {
              this.set(value(status.figures()));
            },
          })
        : new Counter({
            name,
            help,
            registers,
            collect() {
              this.reset();
              this.inc(value(status.figures()));
            },
          });
    new Gauge({
      name: "gateway_history_state",
      help: "History's state (GET /v1/status's history.state): 1 for the current one of ok, behind, failed.",
      labelNames: ["state"],
      registers,
      collect() {
        const state = status.state;
        for (const s of HISTORY_STATES) if (s !== "off") this.set({ state: s }, s === state ? 1 : 0);
      },
    });
    figure(
      "gateway_history_last_observed_at_seconds",
      "generatedAt of the latest file history observed (Unix seconds; 0: none).",
      "gauge",
      (f) => f.lastObservedAt,
    );
    figure(
      "gateway_history_lag_seconds",
      "Seconds from the latest observed file being served to its observations being written.",
      "gauge",
      (f) => f.lagSeconds,
    );
    figure("gateway_history_queued_files", "Served files waiting to be observed.", "gauge", (f) => f.queued);
    figure("gateway_history_disk_bytes", "Bytes of the history store (HISTORY_DIR) on disk.", "gauge", (f) => f.bytes);
    figure(
      "gateway_history_compaction_backlog_hours",
      "Closed hours waiting to be compacted (summed over chains and kinds).",
      "gauge",
      (f) => f.backlogHours,
    );
    figure("gateway_history_files_observed_total", "Served files whose observations were written.", "counter", (f) => f.files);
    figure(
      "gateway_history_observations_written_total",
      "Records written: entity values that changed, appeared or left.",
      "counter",
      (f) => f.records,
    );
    figure("gateway_history_compaction_steps_total", "Compaction and retention steps done.", "counter", (f) => f.compactionSteps);
    figure(
      "gateway_history_write_failures_total",
      "Served files whose observations could not be written (full or failing disk).",
      "counter",
      (f) => f.failures,
    );
    figure(
      "gateway_history_skipped_files_total",
      "Served files not observed because history was too far behind (their changes went with the next file).",
      "counter",
      (f) => f.skipped,
    );
  }

  /**
   * The origin's metrics (fleet.md §20), registered when the gateway pulls from one: polls by result (every result
   * exported from the start, at 0), body bytes received, the generation served, and seconds stale (read at scrape).
   */
  enableOrigin(staleSeconds: () => number): OriginMetrics {
    const polls = new Counter({
      name: "gateway_origin_polls_total",
      help: "Polls of the origin by result: changed (a new generation applied), not_modified, error (the origin could not be read), refused (what it holds cannot be taken).",
      labelNames: ["result"],
      registers: [this.registry],
    });
    for (const result of ORIGIN_POLL_RESULTS) polls.inc({ result }, 0);
    const bytes = new Counter({
      name: "gateway_origin_bytes_total",
      help: "Body bytes received from the origin (manifests and objects).",
      registers: [this.registry],
    });
    const generation = new Gauge({
      name: "gateway_origin_generation",
      help: "The origin generation served (the last accepted); 0 before any.",
      registers: [this.registry],
    });
    new Gauge({
      name: "gateway_origin_stale_seconds",
      help: "Seconds since the last successful poll while this instance cannot say it serves the origin's newest generation; 0 otherwise.",
      registers: [this.registry],
      collect() {
        this.set(staleSeconds());
      },
    });
    return { polls, bytes, generation };
  }

  /** A serving thread exited: the streams it held are gone (its gauges are zeroed). */
  threadExited(slot: number): void {
    clearThreadGauges(this.layout, this.requestMetrics, slot);
  }

  chainLoaded(info: ChainSnapshotInfo): void {
    this.chains.set(info.chainId, info);
  }

  versionsChanged(current: string | null, live: readonly string[]): void {
    this.currentVersion = current;
    this.liveVersions = live;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
