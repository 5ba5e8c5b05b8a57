#!/usr/bin/env node
// The static files of GET /docs, bundled at build time (`npm run build` runs this after the compiler): Swagger UI's
// browser bundle and stylesheet from the npm package `swagger-ui-dist` (docs/decisions/001-api-reference-page.md) and
// the page's own script and stylesheet (assets/docs/), written to dist/docs-assets/ with their gzip and brotli forms
// (compressed once here, at the highest levels, so a serving thread never compresses them) and a manifest the gateway
// reads (src/http/handlers/docs.ts). Nothing is fetched: the files come from node_modules and this repository, so the
// page works offline. Plain JavaScript: it runs right after the compiler, with no other build step.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "dist", "docs-assets");
const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve("swagger-ui-dist/package.json"));
const swaggerVersion = JSON.parse(readFileSync(join(swaggerDir, "package.json"), "utf8")).version;

const TYPES = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
};

/** A source map is not served: its reference (the file's last comment) would make DevTools ask for a file that is not there. */
const withoutSourceMap = (bytes) =>
  Buffer.from(
    bytes
      .toString("utf8")
      .replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n")
      .replace(/\n?\/\*# sourceMappingURL=\S+ ?\*\/\s*$/, "\n"),
  );

/** Served name, where it comes from, and how it is prepared. */
const FILES = [
  { name: "swagger-ui-bundle.js", from: join(swaggerDir, "swagger-ui-bundle.js"), prepare: withoutSourceMap },
  { name: "swagger-ui.css", from: join(swaggerDir, "swagger-ui.css"), prepare: withoutSourceMap },
  { name: "favicon-32x32.png", from: join(swaggerDir, "favicon-32x32.png") },
  { name: "docs.js", from: join(ROOT, "assets", "docs", "docs.js") },
  { name: "docs.css", from: join(ROOT, "assets", "docs", "docs.css") },
];

const sources = FILES.map((file) => ({ ...file, raw: readFileSync(file.from) }));
/** Names the inputs (and this script): an unchanged bundle is not written again (brotli at level 11 takes seconds). */
const inputs = createHash("sha256");
for (const file of [...sources, { name: "bundle-docs-assets.mjs", raw: readFileSync(fileURLToPath(import.meta.url)) }]) {
  inputs.update(file.name).update("\0").update(file.raw).update("\0");
}
const inputsHash = inputs.digest("hex");
if (existsSync(join(OUT, "manifest.json")) && JSON.parse(readFileSync(join(OUT, "manifest.json"), "utf8")).inputs === inputsHash)
  process.exit(0);

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const manifest = { swaggerUiDist: swaggerVersion, inputs: inputsHash, files: [] };
for (const file of sources) {
  const raw = file.raw;
  const body = file.prepare ? file.prepare(raw) : raw;
  const type = TYPES[file.name.slice(file.name.lastIndexOf("."))];
  if (type === undefined) throw new Error(`bundle-docs-assets: no content type for ${file.name}`);
  writeFileSync(join(OUT, file.name), body);
  const compressible = !type.startsWith("image/");
  if (compressible) {
    writeFileSync(join(OUT, `${file.name}.gz`), gzipSync(body, { level: 9 }));
    writeFileSync(
      join(OUT, `${file.name}.br`),
      brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    );
  }
  manifest.files.push({
    name: file.name,
    contentType: type,
    bytes: body.length,
    compressed: compressible,
    sha256: createHash("sha256").update(body).digest("hex"),
  });
}
writeFileSync(join(OUT, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
