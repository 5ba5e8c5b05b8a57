import { describe, expect, test } from "vitest";
import { DONE_MARKER, luaString, parseWrkOutput, parseWrkTime, wrkScript } from "../../../../bench/shared/wrk.js";

// wrk 4.1.0's report of a run with the bench's done line (real output, shortened stat line).
const WITH_DONE = `Running 1s test @ http://127.0.0.1:18931/x
  1 threads and 8 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   662.85us    1.52ms  24.28ms   94.35%
    Req/Sec    22.28k    10.73k   35.27k    54.55%
  Latency Distribution
     50%  263.00us
     75%  485.00us
     90%    1.22ms
     99%    7.72ms
  24293 requests in 1.10s, 3.01MB read
Requests/sec:  22089.61
Transfer/sec:      2.74MB
${DONE_MARKER} requests=24293 duration_us=1099748 bytes=3156090 connect=0 read=0 write=0 status=0 timeout=0 mean_us=662.9 max_us=24280 p50_us=263 p90_us=1220 p99_us=7716 p999_us=20011 stat=6751 (wrk) R 6735 6735 3209 0 -1 4194304 498 0 2 0 12 35 0 0 20 0 1 0 82594
`;

// wrk's report alone (no script): non-2xx responses and socket errors, no latency distribution.
const TEXT_ONLY = `Running 2s test @ http://127.0.0.1:18931/bad
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   200.61us  425.61us    1.05s    95.17%
    Req/Sec    32.72k    10.28k   39.30k    81.82%
  71416 requests in 2.00s, 9.20MB read
  Socket errors: connect 0, read 3, write 1, timeout 2
  Non-2xx or 3xx responses: 35708
Requests/sec:  35708.00
Transfer/sec:      4.60MB
`;

describe("parseWrkOutput", () => {
  test("the done line gives exact counts, percentiles and wrk's own CPU", () => {
    const r = parseWrkOutput(WITH_DONE, 100);
    expect(r.requests).toBe(24293);
    expect(r.durationS).toBeCloseTo(1.099748, 9);
    expect(r.rps).toBeCloseTo(24293 / 1.099748, 6);
    expect(r.bytesRead).toBe(3156090);
    expect(r.non2xx).toBe(0);
    expect(r.socketErrors).toEqual({ connect: 0, read: 0, write: 0, timeout: 0 });
    expect(r.latencyMs).toEqual({ p50: 0.263, p90: 1.22, p99: 7.716, p999: 20.011, max: 24.28, mean: expect.closeTo(0.6629, 9) });
    expect(r.wrkCpuSeconds).toBeCloseTo(0.47, 10);
  });

  test("without the done line, wrk's report is read (units, socket errors, non-2xx)", () => {
    const r = parseWrkOutput(TEXT_ONLY, 100);
    expect(r.requests).toBe(71416);
    expect(r.durationS).toBe(2);
    expect(r.rps).toBe(35708);
    expect(r.bytesRead).toBeCloseTo(9.2 * 1024 * 1024, 3);
    expect(r.non2xx).toBe(35708);
    expect(r.socketErrors).toEqual({ connect: 0, read: 3, write: 1, timeout: 2 });
    expect(r.latencyMs.mean).toBeCloseTo(0.20061, 9);
    expect(r.latencyMs.max).toBe(1050);
    expect(r.latencyMs.p99).toBeNaN();
    expect(r.wrkCpuSeconds).toBeNaN();
  });

  test("the latency distribution is read when there is no done line", () => {
    const r = parseWrkOutput(WITH_DONE.split(DONE_MARKER)[0], 100);
    expect(r.requests).toBe(24293);
    expect(r.durationS).toBeCloseTo(1.1, 9);
    expect([r.latencyMs.p50, r.latencyMs.p90, r.latencyMs.p99]).toEqual([0.263, 1.22, 7.72]);
  });

  test("output without a requests count is an error, as is a broken done line", () => {
    expect(() => parseWrkOutput("unable to connect to 127.0.0.1:1 Connection refused\n")).toThrow(/requests line/);
    expect(() => parseWrkOutput(`${DONE_MARKER} requests=abc duration_us=1\n`)).toThrow(/requests/);
  });

  test("wrk's time units", () => {
    expect(parseWrkTime("501.23us")).toBeCloseTo(0.50123, 9);
    expect(parseWrkTime("1.52ms")).toBe(1.52);
    expect(parseWrkTime("2.00s")).toBe(2000);
    expect(parseWrkTime("1.50m")).toBe(90_000);
    expect(() => parseWrkTime("12 ms")).toThrow();
  });
});

describe("wrkScript", () => {
  test("sets method, body and headers once, with every byte escaped for Lua", () => {
    const script = wrkScript({
      method: "POST",
      path: "/v1/tokens",
      headers: { "content-type": "application/json", "x-q": 'a"b\\c' },
      body: '{"s":"é\n"}',
    });
    expect(script).toContain('wrk.method = "POST"');
    expect(script).toContain('wrk.body = "{\\"s\\":\\"\\195\\169\\010\\"}"');
    expect(script).toContain('wrk.headers["x-q"] = "a\\"b\\\\c"');
    expect(script).toContain("function done(summary, latency, requests)");
    expect(script).not.toContain("function request"); // no per-request scripting: wrk sends a pre-formatted request
  });

  test("a GET without a body sets no body", () => {
    expect(wrkScript({ method: "GET", path: "/x", headers: {} })).not.toContain("wrk.body");
  });

  test("luaString keeps printable ASCII and escapes the rest as decimal bytes", () => {
    expect(luaString("Bearer abc-_.~")).toBe('"Bearer abc-_.~"');
    expect(luaString("\t\u0000")).toBe('"\\009\\000"');
  });
});
