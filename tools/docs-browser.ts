/**
 * Headless Chromium (Debian's `chromium`, driven by puppeteer-core) on the
 * gateway's API reference page: the launch, and what a reader does there
 * (open GET /docs, type a key into "Authorize", "Try it out" on a route). The
 * browser test (test/server/docs-page.test.ts) and the screenshot script
 * (bench/docs-screenshot.ts, `npm run docs:screenshot`: it drives a running gateway, as the benchmarks do) share it.
 */
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

/**
 * Headless, and quiet: without the background-networking flags Chromium asks Google's hosts for updates,
 * safe-browsing lists and field trials (the closed network refuses them, and the test counts every request).
 */
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
] as const;

const CANDIDATES = ["chromium", "/usr/bin/chromium", "chromium-browser", "google-chrome"];

/** The Chromium binary: CHROMIUM_BIN, else the first candidate on PATH; throws how to install it when none is. */
export function chromiumPath(): string {
  const names = process.env.CHROMIUM_BIN ? [process.env.CHROMIUM_BIN] : CANDIDATES;
  for (const name of names) {
    const files = isAbsolute(name)
      ? [name]
      : (process.env.PATH ?? "")
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, name));
    for (const file of files) {
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // next
      }
    }
  }
  throw new Error(
    "Chromium is not installed (the browser test and the screenshot script drive it): `apt-get install -y chromium` as root (npm test's system check does it: tools/check-system.mjs), or set CHROMIUM_BIN",
  );
}

export interface HeadlessChromium {
  readonly browser: Browser;
  /** Closes the browser (ends its processes) and removes its profile directory. */
  close(): Promise<void>;
}

/**
 * Chromium, headless, with a fresh profile directory; talks to puppeteer over a pipe (no debugging port).
 * @param hostAlias a host name Chromium resolves to 127.0.0.1 (e.g. `gateway.test`): the page then runs as on a
 *   real host, where Swagger UI behaves differently than on `localhost`/`127.0.0.1` (e.g. its validator badge)
 */
export async function launchChromium(hostAlias?: string): Promise<HeadlessChromium> {
  const profile = mkdtempSync(join(tmpdir(), "lgw-chromium-"));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath: chromiumPath(),
      headless: true,
      pipe: true,
      args: [
        ...CHROMIUM_FLAGS,
        `--user-data-dir=${profile}`,
        ...(hostAlias === undefined ? [] : [`--host-resolver-rules=MAP ${hostAlias} 127.0.0.1`]),
      ],
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    browser,
    close: async () => {
      const child = browser.process();
      try {
        await browser.close();
      } finally {
        if (child !== null && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        rmSync(profile, { recursive: true, force: true });
      }
    },
  };
}

/** Opens GET /docs and waits until Swagger UI has rendered the OpenAPI document's operations. */
export async function openReference(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/docs`, { waitUntil: "load" });
  await page.waitForSelector("#swagger-ui .opblock", { timeout: 20_000 });
}

/** The DOM id Swagger UI gives an operation: `operations-<tag>-<operationId>`. */
export const operationDomId = (tag: string, operationId: string): string => `operations-${tag}-${operationId}`;

/** Types `key` into "Authorize" (the bearer scheme) and closes the dialog, as a reader does. */
export async function authorize(page: Page, key: string): Promise<void> {
  await page.click(".auth-wrapper .authorize");
  const input = await page.waitForSelector(".modal-ux input[type=text], .modal-ux input[type=password]");
  await input!.type(key);
  await page.click(".modal-ux .auth-btn-wrapper .modal-btn.authorize");
  await page.waitForSelector(".modal-ux .auth-btn-wrapper .modal-btn.btn-done");
  await page.click(".modal-ux .auth-btn-wrapper .modal-btn.btn-done");
  await page.waitForSelector(".modal-ux", { hidden: true });
}

/** What the page shows of a "Try it out" answer: its status and body as Swagger UI prints them. */
export interface TriedAnswer {
  readonly status: number;
  readonly body: string;
}

/** Expands an operation (no parameters to fill), presses "Try it out" then "Execute", and reads the answer off the page. */
export async function tryOperation(page: Page, domId: string): Promise<TriedAnswer> {
  const block = `#${domId}`;
  await page.click(`${block} .opblock-summary-control`);
  await page.waitForSelector(`${block} .try-out__btn`);
  await page.click(`${block} .try-out__btn`);
  await page.waitForSelector(`${block} .execute`);
  await page.click(`${block} .execute`);
  const statusCell = `${block} .live-responses-table tbody .response-col_status`;
  await page.waitForSelector(statusCell, { timeout: 20_000 });
  const status = Number((await page.$eval(statusCell, (cell) => cell.textContent ?? "")).trim());
  const body = await page.$eval(
    `${block} .live-responses-table tbody .response-col_description .highlight-code pre`,
    (pre) => pre.textContent ?? "",
  );
  return { status, body };
}
