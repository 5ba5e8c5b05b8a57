/**
 * Writes the settings table of docs/operators.md from the settings' declarations
 * (src/config/settings.ts), between its two markers; `--check` only says whether the page is stale
 * (exit 1). test/unit/config/settings-table.test.ts fails when it is. Run: npm run docs:settings.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { PROJECT_ROOT } from "../src/config/paths.js";
import { settingsTable } from "../src/config/settings-doc.js";

export const OPERATORS_DOC = resolve(PROJECT_ROOT, "docs/operators.md");

const BEGIN =
  "<!-- settings table: written by `npm run docs:settings` from src/config/settings.ts; edit the declarations, not the table -->";
const END = "<!-- end of settings table -->";

/** `page` with the table between its markers written afresh. */
export function withSettingsTable(page: string): string {
  const begin = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (begin === -1 || end < begin) throw new Error(`docs/operators.md has lost its settings table markers:\n${BEGIN}\n${END}`);
  return `${page.slice(0, begin + BEGIN.length)}\n\n${settingsTable()}\n\n${page.slice(end)}`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { check: { type: "boolean" } } });
  const page = readFileSync(OPERATORS_DOC, "utf8");
  const fresh = withSettingsTable(page);
  if (values.check) {
    console.log(fresh === page ? "docs/operators.md is up to date" : "docs/operators.md is stale: run npm run docs:settings");
    process.exitCode = fresh === page ? 0 : 1;
  } else {
    writeFileSync(OPERATORS_DOC, fresh);
    console.log(`wrote the settings table of ${OPERATORS_DOC}`);
  }
}
