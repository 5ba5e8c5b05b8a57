/**
 * The shipped alert rules (config/monitoring/gateway-alerts.yml): promtool checks them and runs their unit tests
 * (gateway-alerts.test.yml), and every alert has its test group (series that fire it and series that do not), a
 * severity, a summary and a runbook section in docs/monitoring.md. Adding an alert is one rule plus one test
 * group (plus its runbook): this file fails until all three exist. The metric names the rules read are held to what
 * the gateway exports by test/server/prometheus-scrape.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PROJECT_ROOT } from "../support/gateway-process.js";
import { promqlMetricNames, promtool } from "../support/prometheus.js";

const RULES = join(PROJECT_ROOT, "config/monitoring/gateway-alerts.yml");
const RULE_TESTS = join(PROJECT_ROOT, "config/monitoring/gateway-alerts.test.yml");
const RUNBOOK = join(PROJECT_ROOT, "docs/monitoring.md");

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

interface RuleTest {
  name: string;
  input_series: Array<{ series: string; values: string }>;
  alert_rule_test: Array<{ eval_time: string; alertname: string; exp_alerts: unknown[] }>;
}

const alerts = (): AlertRule[] =>
  (parse(readFileSync(RULES, "utf8")) as { groups: Array<{ rules: AlertRule[] }> }).groups.flatMap((g) => g.rules);
const ruleTests = (): RuleTest[] => (parse(readFileSync(RULE_TESTS, "utf8")) as { tests: RuleTest[] }).tests;

describe("the alert rules", () => {
  it("pass promtool check rules", () => {
    const { status, output } = promtool(["check", "rules", RULES]);
    expect(status, output).toBe(0);
    expect(output).toContain(`SUCCESS: ${alerts().length} rules found`);
  });

  it("pass their promtool unit tests", () => {
    const { status, output } = promtool(["test", "rules", RULE_TESTS]);
    expect(status, output).toBe(0);
    expect(output).toContain("SUCCESS");
  });

  it("each alert has a test group that fires it and one evaluation where it does not fire; no test names another alert", () => {
    const names = alerts().map((a) => a.alert);
    expect(new Set(names).size).toBe(names.length);
    const groups = ruleTests();
    expect(groups.map((g) => g.name).sort()).toEqual([...names].sort());
    for (const group of groups) {
      expect(
        group.alert_rule_test.every((t) => t.alertname === group.name),
        group.name,
      ).toBe(true);
      expect(
        group.alert_rule_test.some((t) => t.exp_alerts.length > 0),
        `${group.name}: an evaluation where it fires`,
      ).toBe(true);
      expect(
        group.alert_rule_test.some((t) => t.exp_alerts.length === 0),
        `${group.name}: an evaluation where it does not fire`,
      ).toBe(true);
      // The input reads the metrics the rule reads (and only those).
      const rule = alerts().find((a) => a.alert === group.name)!;
      const read = new Set(promqlMetricNames(rule.expr));
      const fed = new Set(group.input_series.map((s) => s.series.slice(0, s.series.indexOf("{"))));
      expect([...fed].sort(), group.name).toEqual([...read].sort());
    }
  });

  it("each alert has a severity, a summary and a runbook section in docs/monitoring.md", () => {
    const runbook = readFileSync(RUNBOOK, "utf8");
    const headings = new Set([...runbook.matchAll(/^### (\S+)$/gm)].map((m) => m[1]));
    for (const rule of alerts()) {
      expect(["critical", "warning"], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toMatch(/\S/);
      expect(rule.annotations.runbook_url, rule.alert).toBe(`docs/monitoring.md#${rule.alert.toLowerCase()}`);
      expect(headings, `docs/monitoring.md has no "### ${rule.alert}"`).toContain(rule.alert);
    }
  });

  it("reads metric names out of PromQL", () => {
    expect(promqlMetricNames('histogram_quantile(0.99, sum by (route, le) (rate(a_bucket{x="y}"}[$__rate_interval])))')).toEqual([
      "a_bucket",
    ]);
    expect(promqlMetricNames("sum by (i) (increase(b_total[10m])) > 0 or c unless d offset 10m")).toEqual(["b_total", "c", "d"]);
    expect(promqlMetricNames('up{job="g"} == 0')).toEqual(["up"]);
    expect(promqlMetricNames("nodejs_eventloop_lag_p99_seconds > 1e3")).toEqual(["nodejs_eventloop_lag_p99_seconds"]);
    expect(promqlMetricNames("x / sum(y) by (le) > 0.01")).toEqual(["x", "y"]);
  });
});
