/**
 * A real Prometheus (Debian's binary, free loopback port, generated configuration, temporary storage) scrapes a
 * real gateway's /metrics with the shipped alert rules loaded, and its HTTP API is queried. The metric names the
 * rules and the Grafana dashboard read are held to the names that gateway's /metrics exports (its `# TYPE` lines,
 * with a histogram's `_bucket`, `_sum` and `_count`), or, for the origin's metrics (registered only when a gateway
 * pulls from one), the names a second gateway pulling from an nginx origin exports; and the real Prometheus must
 * accept every query of both.
 */
import { readFileSync } from "node:fs";
import path, { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildDashboard, dashboardQueries, dashboardText } from "../../tools/dashboard.js";
import { openForNginxWorkers, originServer, runNginx, type NginxServer } from "../../bench/targets/nginx.js";
import { poolsFixture, tempDir } from "../support/fixtures.js";
import { publishDir, startInstance, waitForGeneration, writeGeneration } from "../support/fleet.js";
import {
  expectSuccess,
  getProtocols,
  PROJECT_ROOT,
  request,
  startWithFixtures,
  waitFor,
  type Gateway,
} from "../support/gateway-process.js";
import { promqlMetricNames, startPrometheus, type Prometheus } from "../support/prometheus.js";

const RULES = join(PROJECT_ROOT, "config/monitoring/gateway-alerts.yml");
const DASHBOARD = join(PROJECT_ROOT, "config/monitoring/gateway-dashboard.json");
const JOB = "liquidity-gateway";
/** Series Prometheus makes itself for every target. */
const PROMETHEUS_SERIES = new Set(["up"]);

const ruleExpressions = (): string[] =>
  (parse(readFileSync(RULES, "utf8")) as { groups: Array<{ rules: Array<{ expr: string }> }> }).groups.flatMap((g) =>
    g.rules.map((r) => r.expr),
  );

/** The dashboard's queries, and the metric of each variable's `label_values(metric, label)`. */
function dashboardMetricNames(dashboard: Record<string, unknown>): string[] {
  const names = dashboardQueries(dashboard).flatMap(promqlMetricNames);
  const variables = (dashboard.templating as { list: Array<{ query?: unknown }> }).list;
  for (const variable of variables) {
    const query =
      typeof variable.query === "object" && variable.query !== null ? (variable.query as { query: string }).query : variable.query;
    const labelValues = typeof query === "string" ? /^label_values\((\w+),\s*\w+\)$/.exec(query) : null;
    if (labelValues) names.push(labelValues[1]);
  }
  return names;
}

/** Sample names /metrics exports: each `# TYPE` line's name, a histogram's and a summary's parts. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name + suffix);
    else if (type === "summary") for (const suffix of ["", "_sum", "_count"]) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

/** A Grafana query as Prometheus takes it: its variables replaced by what Grafana would send. */
const withVariables = (expr: string): string => expr.replaceAll("$__rate_interval", "1m").replaceAll("$instance", ".*");

let gw: Gateway;
let prometheus: Prometheus;
let nginx: NginxServer;
let pulling: Gateway;
const PROTOCOL_REQUESTS = 7;

beforeAll(async () => {
  gw = await startWithFixtures(poolsFixture());
  for (let i = 0; i < PROTOCOL_REQUESTS; i++) expectSuccess(await getProtocols(gw.baseUrl));
  prometheus = await startPrometheus({ targets: [`127.0.0.1:${gw.port}`], job: JOB, ruleFiles: [RULES] });
  const root = tempDir("lgw-scrape-origin-");
  openForNginxWorkers(root);
  await publishDir(writeGeneration(tempDir("lgw-scrape-src-"), 1, { chains: [1] }), path.join(root, "o"));
  nginx = await runNginx(originServer({ root }));
  pulling = await startInstance(`http://127.0.0.1:${nginx.port}/o/`);
  await waitForGeneration(pulling, 1);
});

afterAll(async () => {
  await prometheus?.stop();
  await gw?.stop();
  await pulling?.stop();
  await nginx?.stop();
});

describe("a real Prometheus scraping a real gateway", () => {
  it("answers a gateway metric through its query API", async () => {
    const query = 'gateway_http_requests_total{route="protocols.list", status="200"}';
    const result = await waitFor(`Prometheus to scrape ${query}`, async () => {
      const answer = await prometheus.api("query", { query });
      expect(answer.status).toBe("success");
      return answer.data.result.length > 0 ? answer.data.result : undefined;
    });
    expect(result).toHaveLength(1);
    expect(result[0].metric).toMatchObject({ job: JOB, instance: `127.0.0.1:${gw.port}`, route: "protocols.list", status: "200" });
    expect(Number(result[0].value[1])).toBeGreaterThanOrEqual(PROTOCOL_REQUESTS);
    const up = await prometheus.api("query", { query: `up{job="${JOB}"}` });
    expect(up.data.result.map((r: { value: [number, string] }) => r.value[1])).toEqual(["1"]);
  });

  it("evaluates the shipped rules: only the stale-data alert is active, for the fixtures' old files", async () => {
    const rules = await waitFor("every rule evaluated", async () => {
      const answer = await prometheus.api("rules");
      const all = answer.data.groups.flatMap((g: { rules: Array<{ name: string; health: string }> }) => g.rules);
      return all.length > 0 && all.every((r: { health: string }) => r.health === "ok") ? all : undefined;
    });
    expect(rules.map((r: { name: string }) => r.name).sort()).toEqual(
      (parse(readFileSync(RULES, "utf8")) as { groups: Array<{ rules: Array<{ alert: string }> }> }).groups
        .flatMap((g) => g.rules.map((r) => r.alert))
        .sort(),
    );
    // The fixtures' files were generated in 2025: their age is past the threshold, so the alert waits out its `for`.
    const status = (await request(gw.baseUrl, "/ready", { key: null })).body;
    expect(status.chains.length).toBeGreaterThan(0);
    // Rules may first run before the first scrape: wait for an evaluation that saw every chain.
    const alerts = await waitFor("the stale-data alert of every chain", async () => {
      const active = (await prometheus.api("alerts")).data.alerts as Array<{ labels: Record<string, string>; state: string }>;
      return active.length >= status.chains.length ? active : undefined;
    });
    expect(alerts.map((a) => `${a.labels.alertname} ${a.labels.chain_id} ${a.state}`).sort()).toEqual(
      status.chains.map((chain: number) => `GatewayChainDataStale ${chain} pending`).sort(),
    );
  });

  it("accepts every query of the rules and the dashboard", async () => {
    const queries = [...ruleExpressions(), ...dashboardQueries(buildDashboard()).map(withVariables)];
    expect(queries.length).toBeGreaterThan(30);
    for (const query of queries) {
      const answer = await prometheus.api("query", { query });
      expect(answer.status, `${query}: ${answer.error}`).toBe("success");
    }
  });
});

describe("the rules and the dashboard read only metrics the gateway exports", () => {
  it("every metric name they use is on the gateway's /metrics (the origin's: on one that pulls from an origin)", async () => {
    const plain = exportedNames((await request(gw.baseUrl, "/metrics", { key: null })).text);
    const withOrigin = exportedNames((await request(pulling.baseUrl, "/metrics", { key: null })).text);
    expect([...withOrigin].filter((name) => !plain.has(name)).sort()).toEqual([
      "gateway_origin_bytes_total",
      "gateway_origin_generation",
      "gateway_origin_polls_total",
      "gateway_origin_stale_seconds",
    ]);
    const exported = new Set([...plain, ...withOrigin]);
    expect(exported.size).toBeGreaterThan(40);
    const used = new Set([...ruleExpressions().flatMap(promqlMetricNames), ...dashboardMetricNames(buildDashboard())]);
    expect(used.size).toBeGreaterThan(20);
    const unknown = [...used].filter((name) => !exported.has(name) && !PROMETHEUS_SERIES.has(name));
    expect(unknown).toEqual([]);
  });
});

describe("the Grafana dashboard", () => {
  it("is what tools/dashboard.ts makes (else npm run dashboard:generate)", () => {
    expect(readFileSync(DASHBOARD, "utf8")).toBe(dashboardText());
  });

  it("has unique panel ids, the datasource variable on every query, and panels inside the 24-column grid", () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
      panels: Array<{ id: number; type: string; gridPos: { x: number; w: number }; datasource?: { uid: string }; targets?: unknown[] }>;
    };
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
      if (panel.type === "row") continue;
      expect(panel.datasource?.uid).toBe("${datasource}");
      expect(panel.targets?.length).toBeGreaterThan(0);
    }
  });
});
