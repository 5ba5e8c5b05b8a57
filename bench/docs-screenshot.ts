/**
 * `npm run docs:screenshot`: docs/images/api-reference.png, the API reference page (GET /docs) as a reader sees it
 * after "Try it out" on GET /v1/protocols with the sandbox key. It starts the built gateway on the bundled sample
 * snapshots and keys file (127.0.0.1, a free port), drives headless Chromium (tools/docs-browser.ts), and stops both.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startGateway } from "./targets/gateway.js";
import { PROJECT_ROOT, SAMPLE_KEYS_FILE } from "../src/config/config.js";
import { authorize, launchChromium, openReference, operationDomId, tryOperation } from "../tools/docs-browser.js";

const SANDBOX_KEY = "lgw_sandbox_0123456789abcdef";
const OUTPUT = join(PROJECT_ROOT, "docs", "images", "api-reference.png");
/** Chromium resolves this name to 127.0.0.1: the page shows a host name, not a loopback address. */
const HOST = "gateway.localhost";

async function main(): Promise<void> {
  const gateway = await startGateway({ snapshotDir: join(PROJECT_ROOT, "snapshots"), keysFile: SAMPLE_KEYS_FILE, timeoutMs: 60_000 });
  try {
    const chromium = await launchChromium(HOST);
    try {
      const page = await chromium.browser.newPage();
      await page.setViewport({ width: 1280, height: 1400 });
      await openReference(page, `http://${HOST}:${gateway.port}`);
      await authorize(page, SANDBOX_KEY);
      const id = operationDomId("protocols", "listProtocols");
      const answer = await tryOperation(page, id);
      if (answer.status !== 200) throw new Error(`Try it out on GET /v1/protocols answered ${answer.status}: ${answer.body.slice(0, 500)}`);
      // The operation at the top of the picture, with its answer below it.
      await page.$eval(`#${id}`, (block) => block.scrollIntoView({ block: "start" }));
      mkdirSync(join(PROJECT_ROOT, "docs", "images"), { recursive: true });
      await page.screenshot({ path: OUTPUT as `${string}.png` });
      console.log(`wrote ${OUTPUT}`);
    } finally {
      await chromium.close();
    }
  } finally {
    await gateway.child.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
