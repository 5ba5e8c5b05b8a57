/**
 * The Grafana dashboard of the gateway (config/monitoring/gateway-dashboard.json, written by
 * `npm run dashboard:generate`; test/server/prometheus-scrape.test.ts fails when the file is stale, when a
 * query names a metric the gateway does not export, or when the real Prometheus refuses a query). Sections:
 * traffic and latency by route, answers by status, quotas, streams and fan-out delay, freshness per chain,
 * the origin (instances that pull from one), builds and swaps, threads and memory. Queries read the `$datasource` and `$instance` variables.
 */

/** A query of a panel: PromQL and its legend. */
interface Target {
  readonly expr: string;
  readonly legend: string;
}

interface PanelSpec {
  readonly title: string;
  readonly description: string;
  /** Grafana unit id (reqps, s, percentunit, bytes, short, ...). */
  readonly unit: string;
  readonly targets: readonly Target[];
  readonly stack?: boolean;
}

interface Section {
  readonly title: string;
  readonly panels: readonly PanelSpec[];
}

const DATASOURCE = { type: "prometheus", uid: "${datasource}" } as const;
/** Label selector of every query: the instances chosen at the top of the dashboard. */
const I = 'instance=~"$instance"';
const rate = (selector: string) => `rate(${selector}[$__rate_interval])`;
const quantile = (q: number, by: string, bucket: string) => `histogram_quantile(${q}, sum by (${by}, le) (${rate(bucket)}))`;

const SECTIONS: readonly Section[] = [
  {
    title: "Traffic and latency",
    panels: [
      {
        title: "Requests by route",
        description: "Answers per second by route (the route table's names; `unmatched`: no route took the request).",
        unit: "reqps",
        stack: true,
        targets: [{ expr: `sum by (route) (${rate(`gateway_http_requests_total{${I}}`)})`, legend: "{{route}}" }],
      },
      {
        title: "Latency p99 by route",
        description: "99th percentile of the time from request to response (serving threads' shared histograms).",
        unit: "s",
        targets: [{ expr: quantile(0.99, "route", `gateway_http_request_duration_seconds_bucket{${I}}`), legend: "{{route}}" }],
      },
      {
        title: "Latency p50 by route",
        description: "Median time from request to response.",
        unit: "s",
        targets: [{ expr: quantile(0.5, "route", `gateway_http_request_duration_seconds_bucket{${I}}`), legend: "{{route}}" }],
      },
      {
        title: "Requests by instance",
        description: "Answers per second of each gateway instance.",
        unit: "reqps",
        targets: [{ expr: `sum by (instance) (${rate(`gateway_http_requests_total{${I}}`)})`, legend: "{{instance}}" }],
      },
    ],
  },
  {
    title: "Errors",
    panels: [
      {
        title: "Answers by status (not 2xx/304)",
        description:
          "Error answers per second by HTTP status; each status's codes are in the error catalogue (`x-error-code`): 400 invalid parameters, 401/403 keys, 404 not found, 429 quotas, 500 UNKNOWN_ERROR (a bug), 503 CHAIN_DATA_UNAVAILABLE or QUOTA_STORE_UNAVAILABLE.",
        unit: "reqps",
        stack: true,
        targets: [{ expr: `sum by (status) (${rate(`gateway_http_requests_total{${I}, status!~"2..|101|304"}`)})`, legend: "{{status}}" }],
      },
      {
        title: "5xx ratio",
        description: "Share of answers that are 5xx (alert GatewayServerErrors past 1 % for 5 minutes).",
        unit: "percentunit",
        targets: [
          {
            expr: `sum by (instance) (${rate(`gateway_http_requests_total{${I}, status=~"5.."}`)}) / sum by (instance) (${rate(`gateway_http_requests_total{${I}}`)})`,
            legend: "{{instance}}",
          },
        ],
      },
    ],
  },
  {
    title: "Quotas",
    panels: [
      {
        title: "429 answers by route",
        description: "Requests refused for a key's quota or the per-address budget of public routes, per second.",
        unit: "reqps",
        stack: true,
        targets: [{ expr: `sum by (route) (${rate(`gateway_http_requests_total{${I}, status="429"}`)})`, legend: "{{route}}" }],
      },
      {
        title: "Quota store errors and full address tables",
        description:
          "Keyed requests the shared quota store (Redis) did not count, and requests whose client address found no slot in an address table (not limited), per second.",
        unit: "reqps",
        targets: [
          { expr: `sum by (instance) (${rate(`gateway_quota_store_errors_total{${I}}`)})`, legend: "quota store errors {{instance}}" },
          { expr: `sum by (instance) (${rate(`gateway_address_table_full_total{${I}}`)})`, legend: "address table full {{instance}}" },
        ],
      },
    ],
  },
  {
    title: "Streams",
    panels: [
      {
        title: "Open streams",
        description: "Open GET /v1/stream connections by transport.",
        unit: "short",
        stack: true,
        targets: [{ expr: `sum by (transport) (gateway_streams_open{${I}})`, legend: "{{transport}}" }],
      },
      {
        title: "Stream events sent",
        description: "Events enqueued for clients per second, by type (one per connection that gets it).",
        unit: "short",
        stack: true,
        targets: [{ expr: `sum by (type) (${rate(`gateway_stream_events_sent_total{${I}}`)})`, legend: "{{type}}" }],
      },
      {
        title: "Fan-out delay",
        description: "Time from a serving thread's snapshot swap to the last stream event of it enqueued for its subscribers.",
        unit: "s",
        targets: [
          { expr: quantile(0.5, "instance", `gateway_stream_publish_delay_seconds_bucket{${I}}`), legend: "p50 {{instance}}" },
          { expr: quantile(0.99, "instance", `gateway_stream_publish_delay_seconds_bucket{${I}}`), legend: "p99 {{instance}}" },
        ],
      },
      {
        title: "Slow consumers and backpressure closes",
        description:
          "Stream connections closed because their unsent bytes passed STREAM_MAX_BUFFER_BYTES, and HTTP connections closed because the thread's held bytes reached MAX_HELD_RESPONSE_MB, per 5 minutes.",
        unit: "short",
        targets: [
          {
            expr: `sum by (instance) (increase(gateway_stream_slow_consumer_closes_total{${I}}[5m]))`,
            legend: "slow consumers {{instance}}",
          },
          { expr: `sum by (instance) (increase(gateway_backpressure_closes_total{${I}}[5m]))`, legend: "backpressure {{instance}}" },
        ],
      },
    ],
  },
  {
    title: "Freshness",
    panels: [
      {
        title: "Data age by chain",
        description: "Seconds since the served file's generatedAt, worst instance per chain (alert GatewayChainDataStale past 900 s).",
        unit: "s",
        targets: [{ expr: `max by (chain_id) (gateway_snapshot_age_seconds{${I}})`, legend: "{{chain_id}}" }],
      },
      {
        title: "Pools and tokens by chain",
        description: "Records in each chain's served file.",
        unit: "short",
        targets: [
          { expr: `max by (chain_id) (gateway_snapshot_pools{${I}})`, legend: "pools {{chain_id}}" },
          { expr: `max by (chain_id) (gateway_snapshot_tokens{${I}})`, legend: "tokens {{chain_id}}" },
        ],
      },
    ],
  },
  {
    title: "Origin",
    panels: [
      {
        title: "Origin generation by instance",
        description:
          "The origin generation each instance serves (SNAPSHOT_ORIGIN, docs/fleet.md; 0 before any): after a publish every line steps up within seconds.",
        unit: "short",
        targets: [{ expr: `max by (instance) (gateway_origin_generation{${I}})`, legend: "{{instance}}" }],
      },
      {
        title: "Origin polls by result",
        description:
          "Polls of the origin per 5 minutes: changed (a generation applied), not_modified (304), error (alert GatewayOriginFailing when nothing else), refused.",
        unit: "short",
        stack: true,
        targets: [{ expr: `sum by (result) (increase(gateway_origin_polls_total{${I}}[5m]))`, legend: "{{result}}" }],
      },
      {
        title: "Origin stale seconds",
        description:
          "Seconds since the last successful poll while an instance cannot say it serves the origin's newest generation; 0 otherwise (alert GatewayOriginStale past an hour).",
        unit: "s",
        targets: [{ expr: `max by (instance) (gateway_origin_stale_seconds{${I}})`, legend: "{{instance}}" }],
      },
      {
        title: "Origin bytes received",
        description: "Body bytes received from the origin per second (manifests and the changed objects only).",
        unit: "Bps",
        targets: [{ expr: `sum by (instance) (${rate(`gateway_origin_bytes_total{${I}}`)})`, legend: "{{instance}}" }],
      },
    ],
  },
  {
    title: "Builds and swaps",
    panels: [
      {
        title: "Swaps by chain",
        description: "Files that started being served per 5 minutes (changes of the served generatedAt).",
        unit: "short",
        stack: true,
        targets: [{ expr: `sum by (chain_id) (changes(gateway_snapshot_generated_at_seconds{${I}}[5m]))`, legend: "{{chain_id}}" }],
      },
      {
        title: "Build duration p95 by phase",
        description: "Build workers' time per phase: chain (one file, diff included), diff, token-index.",
        unit: "s",
        targets: [{ expr: quantile(0.95, "phase", `gateway_snapshot_build_duration_seconds_bucket{${I}}`), legend: "{{phase}}" }],
      },
      {
        title: "Build failures and rejected files",
        description:
          "Builds that threw or whose worker crashed, and files rejected by reason, per 15 minutes (the last good data keeps serving).",
        unit: "short",
        targets: [
          { expr: `sum by (instance) (increase(gateway_snapshot_build_failures_total{${I}}[15m]))`, legend: "build failures {{instance}}" },
          { expr: `sum by (reason) (increase(gateway_snapshot_rejected_files_total{${I}}[15m]))`, legend: "rejected: {{reason}}" },
        ],
      },
      {
        title: "Live snapshot versions",
        description: "Versions alive per instance: the served one and earlier ones kept for cursors.",
        unit: "short",
        targets: [{ expr: `count by (instance) (gateway_snapshot_live_versions{${I}})`, legend: "{{instance}}" }],
      },
    ],
  },
  {
    title: "Threads and memory",
    panels: [
      {
        title: "Serving threads and restarts",
        description: "Serving threads listening, and threads replaced after an unexpected exit per 15 minutes.",
        unit: "short",
        targets: [
          { expr: `sum by (instance) (gateway_serving_threads{${I}})`, legend: "threads {{instance}}" },
          { expr: `sum by (instance) (increase(gateway_serving_thread_restarts_total{${I}}[15m]))`, legend: "restarts {{instance}}" },
        ],
      },
      {
        title: "Memory",
        description:
          "The process's resident memory (every thread and the shared snapshot tables), the supervisor's V8 heap and external memory.",
        unit: "bytes",
        targets: [
          { expr: `process_resident_memory_bytes{${I}}`, legend: "RSS {{instance}}" },
          { expr: `nodejs_heap_size_used_bytes{${I}}`, legend: "heap used (supervisor) {{instance}}" },
          { expr: `nodejs_external_memory_bytes{${I}}`, legend: "external (supervisor) {{instance}}" },
        ],
      },
      {
        title: "CPU",
        description: "CPU seconds per second of the whole process (every thread).",
        unit: "short",
        targets: [{ expr: `${rate(`process_cpu_seconds_total{${I}}`)}`, legend: "{{instance}}" }],
      },
      {
        title: "Supervisor event-loop lag p99",
        description: "The main thread's event-loop delay (it serves no HTTP: loads, metrics, reloads).",
        unit: "s",
        targets: [{ expr: `nodejs_eventloop_lag_p99_seconds{${I}}`, legend: "{{instance}}" }],
      },
    ],
  },
];

const PANEL_WIDTH = 12;
const PANEL_HEIGHT = 8;

function timeseries(spec: PanelSpec, id: number, x: number, y: number): Record<string, unknown> {
  return {
    id,
    type: "timeseries",
    title: spec.title,
    description: spec.description,
    datasource: DATASOURCE,
    gridPos: { h: PANEL_HEIGHT, w: PANEL_WIDTH, x, y },
    fieldConfig: {
      defaults: {
        unit: spec.unit,
        custom: {
          drawStyle: "line",
          lineWidth: 1,
          fillOpacity: spec.stack ? 30 : 0,
          stacking: { mode: spec.stack ? "normal" : "none", group: "A" },
        },
      },
      overrides: [],
    },
    options: { legend: { displayMode: "list", placement: "bottom", showLegend: true }, tooltip: { mode: "multi", sort: "desc" } },
    targets: spec.targets.map((t, i) => ({
      refId: String.fromCharCode(65 + i),
      datasource: DATASOURCE,
      expr: t.expr,
      legendFormat: t.legend,
      range: true,
    })),
  };
}

/** The dashboard's JSON model (Grafana 10+, schemaVersion 39). */
export function buildDashboard(): Record<string, unknown> {
  const panels: Record<string, unknown>[] = [];
  let id = 1;
  let y = 0;
  for (const section of SECTIONS) {
    panels.push({ id: id++, type: "row", title: section.title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] });
    y += 1;
    section.panels.forEach((spec, i) => {
      panels.push(timeseries(spec, id++, (i % 2) * PANEL_WIDTH, y + Math.floor(i / 2) * PANEL_HEIGHT));
    });
    y += Math.ceil(section.panels.length / 2) * PANEL_HEIGHT;
  }
  return {
    title: "liquidity-gateway",
    uid: "liquidity-gateway",
    description: "Traffic, errors, quotas, streams, freshness, builds and memory of the gateway (docs/monitoring.md).",
    tags: ["liquidity-gateway"],
    editable: true,
    graphTooltip: 1,
    refresh: "30s",
    schemaVersion: 39,
    version: 1,
    time: { from: "now-6h", to: "now" },
    timezone: "utc",
    templating: {
      list: [
        { name: "datasource", label: "Data source", type: "datasource", query: "prometheus", current: {}, hide: 0 },
        {
          name: "instance",
          label: "Instance",
          type: "query",
          datasource: DATASOURCE,
          query: { query: "label_values(gateway_serving_threads, instance)", refId: "instance" },
          definition: "label_values(gateway_serving_threads, instance)",
          refresh: 2,
          includeAll: true,
          multi: true,
          allValue: ".*",
          current: { selected: true, text: ["All"], value: ["$__all"] },
          sort: 1,
          hide: 0,
        },
      ],
    },
    annotations: { list: [] },
    panels,
  };
}

/** Every PromQL query of the dashboard (panels' targets and the variables' queries). */
export function dashboardQueries(dashboard: Record<string, unknown>): string[] {
  const queries: string[] = [];
  for (const panel of dashboard.panels as Array<{ targets?: Array<{ expr: string }> }>) {
    for (const target of panel.targets ?? []) queries.push(target.expr);
  }
  return queries;
}

/** The file's text: the JSON model, two-space indented (`npm run dashboard:generate` writes it; a test compares). */
export function dashboardText(): string {
  return `${JSON.stringify(buildDashboard(), null, 2)}\n`;
}
