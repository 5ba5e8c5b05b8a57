/**
 * The keys file's poll backstop (issue 15: one keys file shared by several
 * instances, e.g. on a network file system where watching sees no writes from
 * other hosts): a changed file is applied by the poll alone.
 */
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { KeysFile } from "../../../src/access/keys-file.js";
import { KeysReloader } from "../../../src/access/keys-reloader.js";
import { standardKeys, tempDir, writeKeysFile } from "../../support/fixtures.js";

describe("KeysReloader poll", () => {
  it("applies a changed file within the poll interval even when the watch path would wait far longer", async () => {
    const dir = tempDir("lgw-keys-poll-");
    const file = writeKeysFile(standardKeys(), dir);
    const applied: KeysFile[] = [];
    // The watch path is debounced for 60 s: only the poll (every 50 ms) can apply the change within the test.
    const reloader = new KeysReloader(file, (keys) => applied.push(keys), pino({ level: "silent" }), { debounceMs: 60_000, pollMs: 50 });
    reloader.start();
    try {
      const next = writeKeysFile(standardKeys().slice(0, 3), tempDir("lgw-keys-next-"));
      renameSync(next, join(dir, "incoming.json"));
      renameSync(join(dir, "incoming.json"), file);
      const deadline = Date.now() + 3000;
      while (applied.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(applied.map((k) => k.keys.length)).toEqual([3]);
      // Unchanged since: nothing more is applied.
      await new Promise((r) => setTimeout(r, 200));
      expect(applied).toHaveLength(1);
      writeFileSync(file, "{ not json");
      await new Promise((r) => setTimeout(r, 200));
      expect(applied).toHaveLength(1);
    } finally {
      reloader.stop();
    }
  });
});
