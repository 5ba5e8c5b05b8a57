/**
 * GET /docs (public): the interactive API reference. Swagger UI renders the
 * OpenAPI document (/v1/openapi.json), with "Try it out" requests carrying the
 * key typed into "Authorize"; below it, the stream's AsyncAPI document
 * rendered on the server (src/openapi/asyncapi-html.ts). GET /docs/assets/{file}
 * serves the page's files, bundled at build time from the npm package
 * `swagger-ui-dist` and assets/docs/ into dist/docs-assets/ with their gzip and
 * brotli forms (tools/bundle-docs-assets.mjs): nothing is fetched from another
 * host, so the page works offline. Every answer carries a strong ETag like the
 * documents; the page carries DOCS_CONTENT_SECURITY_POLICY. Each serving thread
 * reads the bundle and builds the page once, on first use.
 * docs/api-reference.md; the choice of Swagger UI: docs/decisions/005-api-reference-page.md.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ApiError } from "../../api/errors.js";
import { renderAsyncApiSection } from "../../openapi/asyncapi-html.js";
import { crc32Continue } from "../../util/crc32.js";
import type { RawReply, Reply } from "../reply.js";
import type { RouteRequest } from "../route.js";
import { ASYNCAPI_DOCUMENT } from "./openapi.js";

/**
 * The page's Content-Security-Policy: the gateway's own origin only. `default-src 'none'` refuses whatever is not
 * named; scripts, stylesheets, fonts and the "Try it out" requests (connect-src) come from 'self' only (no inline
 * script, no eval, no inline style); images from 'self' and `data:` (Swagger UI's icons are data: URIs in its
 * stylesheet: no request); no <base>, no form posts, no framing by another site.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE_HEADERS = { "content-security-policy": DOCS_CONTENT_SECURITY_POLICY, "x-content-type-options": "nosniff" } as const;
const ASSET_HEADERS = { "x-content-type-options": "nosniff" } as const;

/** Where `npm run build` writes the bundle: beside dist/src (running from dist), or under dist/ (running from src, tests). */
const BUNDLE_DIRS = [new URL("../../../docs-assets/", import.meta.url), new URL("../../../dist/docs-assets/", import.meta.url)];

interface ManifestFile {
  readonly name: string;
  readonly contentType: string;
  readonly compressed: boolean;
}

/** The page's HTML around the Swagger UI mount point and the stream section. Relative URLs: it works behind a path prefix. */
function pageHtml(streamSection: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>liquidity-gateway API reference</title>
<link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
<link rel="stylesheet" href="docs/assets/docs.css">
</head>
<body>
<header class="docs-header">
<h1>liquidity-gateway API reference</h1>
<a href="#rest">REST routes</a>
<a href="#stream">Stream (WebSocket, SSE)</a>
<span class="docs-documents"><a href="v1/openapi.json">openapi.json</a> · <a href="v1/asyncapi.json">asyncapi.json</a></span>
</header>
<main>
<div id="rest"><div id="swagger-ui" data-openapi="v1/openapi.json"></div></div>
${streamSection}
</main>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/docs.js"></script>
</body>
</html>
`;
}

/** A body answered as it is, with its CRC-32 computed once. */
function fixedReply(contentType: string, body: Buffer, headers: Readonly<Record<string, string>>, cacheKey: string): RawReply {
  return { kind: "raw", status: 200, contentType, body, crc: crc32Continue(body, 0), headers, cacheKey };
}

class DocsBundle {
  private page: RawReply | null = null;
  private assets: Map<string, RawReply> | null = null;

  /** GET /docs. */
  pageReply(): RawReply {
    if (this.page !== null) return this.page;
    const asyncApi = JSON.parse(ASYNCAPI_DOCUMENT.encoded().toString("utf8")) as Record<string, unknown>;
    this.page = fixedReply("text/html; charset=utf-8", Buffer.from(pageHtml(renderAsyncApiSection(asyncApi))), PAGE_HEADERS, "docs");
    return this.page;
  }

  /** GET /docs/assets/{file}; ROUTE_NOT_FOUND for a name the bundle does not hold. */
  assetReply(name: string): RawReply {
    const reply = (this.assets ??= this.load()).get(name);
    if (reply === undefined) {
      throw new ApiError(
        "ROUTE_NOT_FOUND",
        `No file ${name.slice(0, 200)} in the API reference's bundle.`,
        `Files: ${[...this.assets.keys()].join(", ")}.`,
        { method: "GET" },
      );
    }
    return reply;
  }

  private load(): Map<string, RawReply> {
    const dir = BUNDLE_DIRS.find((d) => existsSync(new URL("manifest.json", d)));
    if (dir === undefined) {
      throw new Error("GET /docs: the page's bundle (dist/docs-assets/manifest.json) is missing: `npm run build` writes it");
    }
    const manifest = JSON.parse(readFileSync(new URL("manifest.json", dir), "utf8")) as { files: ManifestFile[] };
    const read = (name: string) => readFileSync(fileURLToPath(new URL(name, dir)));
    const assets = new Map<string, RawReply>();
    for (const file of manifest.files) {
      const reply = fixedReply(file.contentType, read(file.name), ASSET_HEADERS, `docs/${file.name}`);
      assets.set(
        file.name,
        file.compressed ? { ...reply, compressed: { gzip: read(`${file.name}.gz`), br: read(`${file.name}.br`) } } : reply,
      );
    }
    return assets;
  }
}

const BUNDLE = new DocsBundle();

export function getDocsPage(): Reply {
  return BUNDLE.pageReply();
}

export function getDocsAsset(request: RouteRequest): Reply {
  return BUNDLE.assetReply(request.params[0]);
}
