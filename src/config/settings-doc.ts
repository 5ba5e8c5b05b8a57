/**
 * The settings as people read them, written from their declarations (settings.ts): the gateway's
 * --help, and the settings table of docs/operators.md (tools/generate-settings-table.ts puts it
 * there; a test fails when the page is stale).
 */
import { settingsOf } from "./read-settings.js";
import { describeDefault, type Setting } from "./setting.js";
import { SETTINGS } from "./settings.js";

const PROGRAM = "liquidity-gateway";

/** `liquidity-gateway --help`. */
export function settingsHelp(): string {
  const entries = settingsOf(SETTINGS).map(
    (s) => `  ${s.flag}, ${s.env}\n      ${plain(s.help)} [${plain(s.type.accepts)}; default ${plain(describeDefault(s))}]`,
  );
  return [
    `Usage: ${PROGRAM} [flags]   (also: ${PROGRAM} keys --help, ${PROGRAM} snapshots --help)`,
    "Each setting is a flag (--flag value or --flag=value) or an environment variable; a flag wins over its variable.",
    "More in docs/operators.md.",
    "",
    ...entries,
  ].join("\n");
}

/** The settings table of docs/operators.md (Markdown, one row per setting). */
export function settingsTable(): string {
  const rows = settingsOf(SETTINGS).map((s: Setting<unknown>) =>
    [`\`${s.env}\``, `\`${s.flag}\``, describeDefault(s), s.type.accepts, s.more === undefined ? s.help : `${s.help} ${s.more}`].map(
      (cell) => cell.replaceAll("|", "\\|"),
    ),
  );
  return [
    "| variable | flag | default | values | meaning |",
    "|---|---|---|---|---|",
    ...rows.map((cells) => `| ${cells.join(" | ")} |`),
  ].join("\n");
}

/** Markdown as terminal text: code marks dropped, a link as its text. */
function plain(markdown: string): string {
  return markdown.replaceAll("`", "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
}
