/** CHANGES_RETENTION (live.md §12): `<count>[/<maxAgeSeconds>]`, default 64 without an age limit, count at least 32. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/config.js";

describe("CHANGES_RETENTION", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "lgw-retention-"));
  const load = (env: Record<string, string>, argv: string[] = []) => loadConfig(argv, { SNAPSHOT_DIR: dir, ...env });

  it("defaults to 64 sets per chain and no age limit; takes a count and an optional age; the flag wins", () => {
    expect(load({}).changesRetention).toEqual({ count: 64, maxAgeSeconds: null });
    expect(load({ CHANGES_RETENTION: "32" }).changesRetention).toEqual({ count: 32, maxAgeSeconds: null });
    expect(load({ CHANGES_RETENTION: "500/86400" }).changesRetention).toEqual({ count: 500, maxAgeSeconds: 86400 });
    expect(load({ CHANGES_RETENTION: "40" }, ["--changes-retention", "100/60"]).changesRetention).toEqual({
      count: 100,
      maxAgeSeconds: 60,
    });
  });

  it("refuses a count under 32, a malformed value or an age of zero, naming the setting", () => {
    for (const text of ["31", "0", "abc", "64/", "/60", "64/0", "64/-1", "64/1/2", "064", " 64", "1000000"]) {
      expect(() => load({ CHANGES_RETENTION: text }), text).toThrow(ConfigError);
      expect(() => load({ CHANGES_RETENTION: text }), text).toThrow(/CHANGES_RETENTION must be COUNT or COUNT\/MAX_AGE_SECONDS/);
    }
    expect(() => load({}, ["--changes-retention", "8"])).toThrow(/--changes-retention/);
  });
});
