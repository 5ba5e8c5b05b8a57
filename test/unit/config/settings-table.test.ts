/**
 * docs/operators.md's settings table and `liquidity-gateway --help` are written from the declarations
 * (src/config/settings.ts); the page is generated (tools/generate-settings-table.ts) and fails here when stale.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { settingsOf } from "../../../src/config/read-settings.js";
import { describeDefault } from "../../../src/config/setting.js";
import { settingsHelp, settingsTable } from "../../../src/config/settings-doc.js";
import { SETTINGS } from "../../../src/config/settings.js";
import { OPERATORS_DOC, withSettingsTable } from "../../../tools/generate-settings-table.js";

describe("the settings as people read them", () => {
  it("docs/operators.md carries the table written from the declarations (else: npm run docs:settings)", () => {
    const page = readFileSync(OPERATORS_DOC, "utf8");
    expect(page, "docs/operators.md is stale: run npm run docs:settings").toBe(withSettingsTable(page));
  });

  it("the table has one row per setting, in declaration order, with its variable, flag, default and values", () => {
    const rows = settingsTable().split("\n").slice(2);
    const settings = settingsOf(SETTINGS);
    expect(rows).toHaveLength(settings.length);
    rows.forEach((row, i) => {
      const s = settings[i];
      expect(row.startsWith(`| \`${s.env}\` | \`${s.flag}\` | ${describeDefault(s)} | ${s.type.accepts} | ${s.help}`), s.env).toBe(true);
    });
  });

  it("--help names every flag with its variable, its values and its default, without Markdown", () => {
    const help = settingsHelp();
    for (const s of settingsOf(SETTINGS)) expect(help, s.env).toContain(`  ${s.flag}, ${s.env}\n`);
    expect(help).toContain("  --port, PORT\n      TCP port; 0 picks a free one (logged). [0-65535; default 8080]");
    expect(help).not.toMatch(/`|\]\(/);
  });
});
