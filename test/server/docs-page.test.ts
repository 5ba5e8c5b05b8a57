/**
 * GET /docs, the interactive API reference, on the real gateway: over HTTP (headers, ETag, the bundled files and
 * their compressed forms), then in a real browser (Debian's headless Chromium through puppeteer-core): every
 * operation of the OpenAPI document and every part of the AsyncAPI document is on the page, "Try it out" on
 * GET /v1/protocols with the sandbox key shows the 200 answer, and the page logs no console error, breaks no
 * Content-Security-Policy rule and sends no request to another host.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { get } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { HTTPRequest, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, launchChromium, openReference, operationDomId, tryOperation, type HeadlessChromium } from "../../tools/docs-browser.js";
import { poolsFixture, writeSnapshotDir } from "../support/fixtures.js";
import { expectError, PROJECT_ROOT, request, startGateway, type Gateway } from "../support/gateway-process.js";

const SANDBOX_KEY = "lgw_sandbox_0123456789abcdef";
const HOST_ALIAS = "gateway.test";

/** The page's policy (src/http/handlers/docs.ts, docs/api-reference.md): the gateway's own origin only. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

let gw: Gateway;

beforeAll(async () => {
  // No API_KEYS_FILE: the bundled sample keys file, whose sandbox key the reference's readers try first.
  gw = await startGateway({ snapshotDir: writeSnapshotDir(poolsFixture()), keysFile: undefined });
});

afterAll(async () => {
  await gw?.stop();
});

interface ManifestFile {
  name: string;
  contentType: string;
  compressed: boolean;
  sha256: string;
}

const manifest = (): { files: ManifestFile[] } =>
  JSON.parse(readFileSync(`${PROJECT_ROOT}/dist/docs-assets/manifest.json`, "utf8")) as { files: ManifestFile[] };

async function bytesOf(path: string, headers: Record<string, string> = {}): Promise<{ res: Response; body: Buffer }> {
  const res = await fetch(gw.baseUrl + path, { headers });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

describe("GET /docs over HTTP", () => {
  it("answers the page, public, with the Content-Security-Policy of the gateway's own origin and an ETag", async () => {
    const res = await request(gw.baseUrl, "/docs", { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe(CSP);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+(-gzip|-br)?"$/);
    expect((await request(gw.baseUrl, "/docs", { key: null, headers: { "If-None-Match": etag } })).status).toBe(304);
    // Every script and stylesheet is a file of the gateway; no inline script, no inline style.
    const html = res.text;
    expect([...html.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script src="docs/assets/swagger-ui-bundle.js">',
      '<script src="docs/assets/docs.js">',
    ]);
    expect(html).not.toMatch(/<script>|<style|style="|\son[a-z]+=/i);
    for (const [, url] of html.matchAll(/(?:src|href)="([^"]*)"/g)) expect(url).toMatch(/^(#|docs\/assets\/|v1\/)/);
  });

  it("serves every bundled file with its type and ETag; the gzip and br forms hold the same bytes", async () => {
    const files = manifest().files;
    expect(files.map((f) => f.name).sort()).toEqual(["docs.css", "docs.js", "favicon-32x32.png", "swagger-ui-bundle.js", "swagger-ui.css"]);
    for (const file of files) {
      const { res, body } = await bytesOf(`/docs/assets/${file.name}`, { "Accept-Encoding": "identity" });
      expect(res.status, file.name).toBe(200);
      expect(res.headers.get("content-type")).toBe(file.contentType);
      expect(res.headers.get("content-encoding")).toBeNull();
      expect(createHash("sha256").update(body).digest("hex"), file.name).toBe(file.sha256);
      const etag = res.headers.get("etag")!;
      expect((await bytesOf(`/docs/assets/${file.name}`, { "If-None-Match": etag })).res.status, file.name).toBe(304);
      if (!file.compressed) continue;
      // Node's fetch decodes what it accepts: ask through the raw headers instead.
      for (const coding of ["gzip", "br"] as const) {
        const raw = await rawGet(`/docs/assets/${file.name}`, coding);
        expect(raw.headers["content-encoding"], `${file.name} ${coding}`).toBe(coding);
        expect(raw.headers.etag).toBe(`${etag.slice(0, -1)}-${coding}"`);
        const plain = coding === "gzip" ? gunzipSync(raw.body) : brotliDecompressSync(raw.body);
        expect(plain.equals(body), `${file.name} ${coding}`).toBe(true);
      }
    }
  });

  it("a name the bundle does not hold is 404 ROUTE_NOT_FOUND", async () => {
    expectError(await request(gw.baseUrl, "/docs/assets/nope.js", { key: null }), 404, "ROUTE_NOT_FOUND");
    expectError(await request(gw.baseUrl, "/docs/assets/manifest.json", { key: null }), 404, "ROUTE_NOT_FOUND");
    expectError(await request(gw.baseUrl, "/docs/assets/..%2Fmanifest.json", { key: null }), 404, "ROUTE_NOT_FOUND");
  });
});

/** A GET through node:http, which leaves the content coding alone. */
async function rawGet(path: string, coding: string): Promise<{ headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(gw.baseUrl + path, { headers: { "Accept-Encoding": coding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ headers: res.headers as Record<string, string>, body: Buffer.concat(chunks) }));
    }).on("error", reject);
  });
}

describe("GET /docs in headless Chromium", () => {
  let chromium: HeadlessChromium;
  let page: Page;
  const consoleErrors: string[] = [];
  const foreignRequests: string[] = [];
  const sent: HTTPRequest[] = [];

  // The page is opened on a host name, as partners do: Swagger UI treats localhost and 127.0.0.1 differently.
  let pageBase: string;

  beforeAll(async () => {
    chromium = await launchChromium(HOST_ALIAS);
    page = await chromium.browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    pageBase = `http://${HOST_ALIAS}:${gw.port}`;
    const origin = new URL(pageBase).origin;
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(`page error: ${error instanceof Error ? error.message : String(error)}`));
    page.on("request", (req) => {
      sent.push(req);
      const url = new URL(req.url());
      if (url.protocol !== "data:" && url.origin !== origin) foreignRequests.push(req.url());
    });
    // Content-Security-Policy violations, as the page itself sees them (Chromium also logs each as a console error).
    await page.evaluateOnNewDocument(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await openReference(page, pageBase);
  });

  afterAll(async () => {
    await chromium?.close();
  });

  it("shows every operation of the OpenAPI document", async () => {
    const document = (await request(gw.baseUrl, "/v1/openapi.json", { key: null })).body;
    const wanted: string[] = [];
    for (const operations of Object.values(document.paths) as Record<string, { tags: string[]; operationId: string }>[]) {
      for (const operation of Object.values(operations)) wanted.push(operationDomId(operation.tags[0], operation.operationId));
    }
    expect(wanted.length).toBeGreaterThan(20);
    expect(wanted).toContain(operationDomId("protocols", "listProtocols"));
    expect(wanted).toContain(operationDomId("operations", "getApiReferencePage"));
    const shown = await page.$$eval("#swagger-ui .opblock", (blocks) => blocks.map((b) => b.id));
    expect(shown.sort()).toEqual(wanted.sort());
  });

  it("shows every channel, operation, message and schema of the AsyncAPI document", async () => {
    const document = (await request(gw.baseUrl, "/v1/asyncapi.json", { key: null })).body;
    const ids = (kind: string, names: string[]) => names.map((n) => `stream-${kind}-${n}`);
    const wanted = [
      ...ids("channel", Object.keys(document.channels)),
      ...ids("operation", Object.keys(document.operations)),
      ...ids("message", Object.keys(document.components.messages)),
      ...ids("schema", Object.keys(document.components.schemas)),
    ];
    const shown = await page.$$eval("#stream [id^=stream-]", (elements) => elements.map((e) => e.id));
    expect(shown.sort()).toEqual(wanted.sort());
  });

  it('"Try it out" on GET /v1/protocols with the sandbox key shows the 200 answer', async () => {
    await authorize(page, SANDBOX_KEY);
    const answer = await tryOperation(page, operationDomId("protocols", "listProtocols"));
    expect(answer.status).toBe(200);
    const direct = (await request(gw.baseUrl, "/v1/protocols", { key: SANDBOX_KEY })).body;
    expect(JSON.parse(answer.body).data).toEqual(direct.data);
    expect(direct.data.protocols.length).toBeGreaterThan(0);
    const call = sent.find((r) => new URL(r.url()).pathname === "/v1/protocols");
    expect(call?.headers().authorization).toBe(`Bearer ${SANDBOX_KEY}`);
  });

  it("logs no console error, breaks no CSP rule and sends no request to another host", async () => {
    const violations = await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
    expect(violations).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
    // What it did load: the page, its files and the document, all from the gateway.
    const paths = new Set(sent.filter((r) => !r.url().startsWith("data:")).map((r) => new URL(r.url()).pathname));
    for (const path of ["/docs", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/docs.js", "/v1/openapi.json"])
      expect(paths).toContain(path);
  });
});
