import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runSnapshotsCli } from "../../../src/cli/snapshots-cli.js";

const dir = mkdtempSync(join(tmpdir(), "lgw-snapshots-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(argv: string[], env: Record<string, string | undefined> = {}) {
  let stdout = "";
  let stderr = "";
  const code = runSnapshotsCli(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, cwd: dir });
  return { code, stdout, stderr };
}

describe("liquidity-gateway snapshots", () => {
  it("allow-older writes the chain's marker in --snapshot-dir and prints its path", () => {
    const r = run(["allow-older", "8453", "--snapshot-dir", dir]);
    expect(r).toMatchObject({ code: 0, stdout: `${join(dir, "chain-8453.allow-older")}\n` });
    expect(r.stderr).toMatch(/next accepted chain-8453\.msgpack may be older/);
    expect(readFileSync(join(dir, "chain-8453.allow-older"), "utf8")).toMatch(/removes this file/);
  });

  it("takes the directory from SNAPSHOT_DIR (relative to the working directory) when no flag names it", () => {
    expect(run(["allow-older", "1"], { SNAPSHOT_DIR: "." }).code).toBe(0);
    expect(existsSync(join(dir, "chain-1.allow-older"))).toBe(true);
  });

  it("usage errors exit 2 with one line on stderr", () => {
    const cases: [string[], RegExp][] = [
      [["allow-older", "5", "--snapshot-dir", dir], /"5" is not a supported chain id \(supported: 1, 130/],
      [["allow-older", "01", "--snapshot-dir", dir], /"01" is not a supported chain id/],
      [["allow-older", "--snapshot-dir", dir], /allow-older takes one chain id/],
      [["allow-older", "1", "8453", "--snapshot-dir", dir], /allow-older takes one chain id/],
      [["rollback", "1"], /unknown command "rollback"/],
      [["allow-older", "1", "--force"], /unknown option "--force"/],
      [["allow-older", "1", "--snapshot-dir", join(dir, "missing")], /does not exist/],
      [["allow-older", "1", "--snapshot-dir"], /--snapshot-dir needs a directory/],
    ];
    for (const [argv, message] of cases) {
      const r = run(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stdout).toBe("");
    }
  });

  it("--help prints the commands; no command prints them on stderr with exit 2", () => {
    expect(run(["--help"])).toMatchObject({ code: 0 });
    expect(run(["--help"]).stdout).toMatch(/allow-older <chainId>/);
    const none = run([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Usage: liquidity-gateway snapshots/);
  });
});
