/**
 * `liquidity-gateway snapshots <command>`: operator actions on the snapshot
 * directory of a running gateway (no restart needed).
 *
 * - `allow-older <chainId>`: the next accepted file of that chain may be older
 *   than the one served (a deliberate rollback); see allow-older-marker.ts.
 *
 * The directory: `--snapshot-dir DIR`, else SNAPSHOT_DIR, else the gateway's
 * default. Exit codes: 0 done, 1 the operation failed (I/O), 2 usage error.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { isSupportedChainId, SUPPORTED_CHAIN_IDS_ASCENDING } from "../chains/chains.js";
import { DEFAULT_SNAPSHOT_DIR, SETTINGS } from "../config/config.js";
import { CommandLineError, readCommandLine } from "../config/command-line.js";
import { writeAllowOlderMarker } from "../snapshot/allow-older-marker.js";

export interface SnapshotsCliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

const PROGRAM = "liquidity-gateway snapshots";

const OPTIONS = { "snapshot-dir": { type: "string" }, help: { type: "boolean", short: "h" } } as const;

const HELP = `Usage: ${PROGRAM} <command> [--snapshot-dir DIR]

Commands:
  allow-older <chainId>   Let the next accepted chain-<chainId>.msgpack be older than the one served
                          (a deliberate rollback, without a restart). Writes chain-<chainId>.allow-older
                          into the snapshot directory; the gateway removes it once a file of that chain
                          is accepted. Push the older file before or after running this.

Options:
  --snapshot-dir DIR      The gateway's snapshot directory (default: SNAPSHOT_DIR, else ${DEFAULT_SNAPSHOT_DIR}).
  --help                  This help.
`;

class UsageError extends Error {}

/** The options (readCommandLine's rules); a problem is a usage error. */
function readLine(argv: readonly string[]) {
  try {
    return readCommandLine(argv, OPTIONS, { positionals: true, repeated: "last-wins", doubleDashValues: "allowed" });
  } catch (error) {
    if (!(error instanceof CommandLineError)) throw error;
    if (error.problem === "missing-value") throw new UsageError(`${error.option} needs a directory`);
    if (error.problem === "value-on-switch") throw new UsageError(`${error.option} takes no value`);
    throw new UsageError(`unknown option ${JSON.stringify(error.option)}`);
  }
}

export function runSnapshotsCli(argv: readonly string[], io: Partial<SnapshotsCliIo> = {}): number {
  const out = io.stdout ?? ((t: string) => void process.stdout.write(t));
  const err = io.stderr ?? ((t: string) => void process.stderr.write(t));
  const env = io.env ?? process.env;
  const cwd = io.cwd ?? process.cwd();
  try {
    const line = readLine(argv);
    if (line.switches.has("help")) {
      out(HELP);
      return 0;
    }
    const dirFlag = line.values.get("snapshot-dir");
    if (dirFlag === "") throw new UsageError("--snapshot-dir needs a directory");
    const [command, ...rest] = line.positionals;
    if (command === undefined) {
      err(HELP);
      return 2;
    }
    if (command !== "allow-older") throw new UsageError(`unknown command ${JSON.stringify(command)}; the commands are: allow-older`);
    if (rest.length !== 1) throw new UsageError("allow-older takes one chain id, e.g. allow-older 8453");
    const text = rest[0]!;
    const chainId = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : NaN;
    if (!isSupportedChainId(chainId)) {
      throw new UsageError(`${JSON.stringify(text)} is not a supported chain id (supported: ${SUPPORTED_CHAIN_IDS_ASCENDING.join(", ")})`);
    }
    const dir = resolve(cwd, dirFlag ?? (env[SETTINGS.snapshotDir.env] || DEFAULT_SNAPSHOT_DIR));
    if (!isDirectory(dir)) throw new UsageError(`the snapshot directory ${dir} does not exist`);
    let path: string;
    try {
      path = writeAllowOlderMarker(dir, chainId);
    } catch (error) {
      err(
        `${PROGRAM} allow-older: cannot write the marker in ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.\n`,
      );
      return 1;
    }
    out(`${path}\n`);
    err(`The next accepted chain-${chainId}.msgpack may be older than the one served; the gateway removes the marker then.\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`${PROGRAM}: ${error.message}.\n`);
    return 2;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
