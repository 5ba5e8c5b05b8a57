/**
 * Runs the tinybench micro-benchmarks (`node dist/bench/micro/run.js --dir D --time MS`)
 * as a subprocess and keeps what they print: the raw text, and the table's
 * rows parsed from console.table's box drawing (or from `--json`, if
 * micro.js ever offers it).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/config/config.js";
import { startNode } from "../shared/child.js";

export const MICRO_JS = join(PROJECT_ROOT, "dist/bench/micro/run.js");

export interface MicroResult {
  readonly command: string;
  readonly exitCode: number;
  readonly durationMs: number;
  /** Everything micro.js printed on stdout. */
  readonly raw: string;
  /** Lines before the table (machine, data, notes). */
  readonly notes: string[];
  /** One object per task, keyed by the table's column headings. */
  readonly rows: Array<Record<string, string>>;
  /** Parsed `--json` output, when micro.js supports it. */
  readonly json?: unknown;
}

/** console.table's rows: `│ a │ 'b' │ c │` → { heading: value }. */
export function parseConsoleTable(text: string): Array<Record<string, string>> {
  const rows = text
    .split("\n")
    .filter((line) => line.startsWith("│"))
    .map((line) =>
      line
        .split("│")
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/^'(.*)'$/, "$1")),
    );
  const [header, ...body] = rows;
  if (!header) return [];
  return body.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ""])));
}

function supportsJson(): boolean {
  try {
    return readFileSync(MICRO_JS, "utf8").includes('"--json"');
  } catch {
    return false;
  }
}

export async function runMicro(dir: string, timeMs: number, timeoutMs: number): Promise<MicroResult> {
  const json = supportsJson();
  const args = [MICRO_JS, "--dir", dir, "--time", String(timeMs), ...(json ? ["--json"] : [])];
  const started = performance.now();
  const child = startNode("micro", args, { cwd: PROJECT_ROOT, env: { ...process.env, FORCE_COLOR: "0" } });
  let raw = "";
  child.process.stdout!.on("data", (chunk: string) => (raw += chunk));
  const timer = setTimeout(() => void child.stop(), timeoutMs); // stop() resolves with the code `exited` gives below
  const exitCode = await child.exited;
  clearTimeout(timer);
  if (exitCode !== 0) throw new Error(`micro.js exited with code ${exitCode}\n${child.tails()}`);
  let parsed: unknown;
  if (json) {
    const last = raw
      .trim()
      .split("\n")
      .reverse()
      .find((l) => l.startsWith("{") || l.startsWith("["));
    try {
      parsed = last ? JSON.parse(last) : undefined;
    } catch {
      parsed = undefined;
    }
  }
  return {
    command: `node ${args.map((a) => a.replace(PROJECT_ROOT + "/", "")).join(" ")}`,
    exitCode,
    durationMs: Math.round(performance.now() - started),
    raw,
    notes: raw.split("\n").filter((l) => l.trim() && !/^[│┌├└]/.test(l)),
    rows: parseConsoleTable(raw),
    ...(parsed !== undefined ? { json: parsed } : {}),
  };
}
