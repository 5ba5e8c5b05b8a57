/**
 * The documented mitigation (docs/reverse-proxy.md): Debian's nginx with the
 * repository's config/nginx.conf.example in front of the real gateway. Every
 * raw-socket edge case of issue 10 items 6-9, the parser limitations
 * included, gets a correct answer through it. nginx must be installed (npm test
 * installs it); without it this suite fails, it does not skip.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicFixture, KEYS } from "../support/fixtures.js";
import { startWithFixtures, type Gateway } from "../support/gateway-process.js";
import { EDGE_CASES, expectOutcome, HEADER_LIMIT } from "../support/http-edge-cases.js";
import { startNginx, type Nginx } from "../support/nginx-process.js";
import { exchangeInPieces } from "../support/raw-pieces.js";

let gw: Gateway;
let nginx: Nginx;

beforeAll(async () => {
  gw = await startWithFixtures(basicFixture(), undefined, { MAX_HEADER_BYTES: String(HEADER_LIMIT) });
  nginx = await startNginx(gw.port);
});

afterAll(async () => {
  await nginx?.stop();
  await gw?.stop();
});

describe.concurrent("through nginx with config/nginx.conf.example", () => {
  for (const c of EDGE_CASES) {
    it(c.name, async () => {
      await expectOutcome(nginx.port, c, c.proxied);
    });
  }
});

describe("what reaches the gateway through nginx", () => {
  it("a JSON body sent chunked with an extension arrives whole, and the API answers as usual", async () => {
    const body = JSON.stringify({ config: { limit: 1 } });
    const chunked = `${body.length.toString(16)};ext=1\r\n${body}\r\n0\r\n\r\n`;
    const result = await exchangeInPieces(
      nginx.port,
      [
        `POST /v1/tokens HTTP/1.1\r\nHost: g\r\nAuthorization: Bearer ${KEYS.active}\r\nContent-Type: application/json\r\nX-Trace-Id: edge-proxy-1\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}`,
      ],
      { expectResponses: 1 },
    );
    const [res] = result.responses;
    expect(res.status, result.raw.toString("latin1")).toBe(200);
    const envelope = JSON.parse(res.body.toString("utf8"));
    expect(envelope.traceId).toBe("edge-proxy-1");
    expect(envelope.data.tokens.length).toBe(1);
    expect(res.header("ratelimit-limit")).toBeDefined();
  });

  it("HTTP/1.0 clients (nginx's own default upstream protocol) are served", async () => {
    const result = await exchangeInPieces(nginx.port, [`GET /v1/protocols HTTP/1.0\r\nAuthorization: Bearer ${KEYS.active}\r\n\r\n`]);
    expect(result.responses.map((r) => r.status)).toEqual([200]);
    expect(JSON.parse(result.responses[0].body.toString("utf8")).data.protocols.length).toBeGreaterThan(0);
  });

  it("no serving thread died and none was replaced", async () => {
    const metrics = await fetch(`${gw.baseUrl}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^gateway_serving_thread_restarts_total 0$/m);
    expect(gw.logs().filter((l) => l.event === "serving-thread-fatal" || l.event === "serving-thread-exited")).toEqual([]);
  });
});
