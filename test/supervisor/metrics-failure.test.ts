/**
 * GET /metrics when the supervisor cannot render the metrics (issue 20, item 6):
 * the supervisor answers the thread's request with `metrics-failed` and the
 * thread answers at once with the error envelope, 500 UNKNOWN_ERROR, saying
 * nothing of why; it does not wait for its own timeout. The supervisor runs in
 * this process with the built serving thread, so that the rendering can fail
 * for real: a metric of its registry whose collection throws.
 */
import { pino } from "pino";
import { Gauge } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayMetrics } from "../../src/metrics/gateway-metrics.js";
import { METRICS_REPLY_TIMEOUT_MS } from "../../src/server/messages.js";
import { Supervisor } from "../../src/server/supervisor.js";
import { expectBuiltThreads, supervisorOfBuiltThreads } from "../support/built-threads.js";

const SECRET = "rendering failed at /srv/internal/secret-path";

describe("a /metrics request the supervisor cannot render", () => {
  let supervisor: Supervisor;
  let metrics: GatewayMetrics;
  let base: string;

  beforeAll(async () => {
    expectBuiltThreads();
    ({ supervisor, metrics } = supervisorOfBuiltThreads({ threads: 1, log: pino({ level: "silent" }) }));
    base = `http://127.0.0.1:${await supervisor.start()}`;
  });

  afterAll(async () => {
    await supervisor?.stop();
  });

  it("is answered at once with 500 UNKNOWN_ERROR that leaks nothing; the next render serves again", async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(200);

    new Gauge({
      name: "test_broken_metric",
      help: "A metric whose collection fails.",
      registers: [metrics.registry],
      collect() {
        throw new Error(SECRET);
      },
    });
    const started = performance.now();
    const res = await fetch(`${base}/metrics`);
    const elapsed = performance.now() - started;
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(res.headers.get("x-error-code")).toBe("UNKNOWN_ERROR");
    const body = JSON.parse(text);
    expect(body.statusCode).toBe(500);
    expect(body.path).toBe("/metrics");
    expect(body.error.code).toBe("UNKNOWN_ERROR");
    expect(text).not.toContain("secret-path");
    expect(text).not.toContain("render");
    // The thread's own timeout never came into it: the supervisor's reply answered the request.
    expect(elapsed).toBeLessThan(METRICS_REPLY_TIMEOUT_MS);

    metrics.registry.removeSingleMetric("test_broken_metric");
    const again = await fetch(`${base}/metrics`);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain("gateway_http_requests_total");
  });
});
