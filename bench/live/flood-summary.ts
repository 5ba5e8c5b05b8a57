/**
 * The figures of `npm run bench:flood` (bench/live/flood.ts) and the "flood"
 * section of bench/RESULTS.md made from them (pure: no process, no clock).
 */
import type { FloodReport } from "./flood-client.js";
import { fmt, type BenchMachine, type WrkFigures } from "./summary.js";

/** The issue's target: the pool route's p99 during the flood at most this many times its p99 without it. */
export const P99_RATIO_TARGET = 2;

/** A wrk run on the pool route (live-summary's figures, without pushes), with the gateway's CPU over it. */
export interface WrkRun extends Omit<WrkFigures, "pushes"> {
  /** Gateway CPU seconds over the run (every thread), and per wrk request in µs (the flood's work included). */
  readonly gatewayCpuS: number;
  readonly cpuUsPerRequest: number;
}

/** One round: the pool route quiet, then during the flood. */
export interface Round {
  readonly quiet: WrkRun;
  readonly flooded: WrkRun;
  readonly flood: FloodReport;
}

/** One gateway configuration, its rounds in order. */
export interface Variant {
  readonly name: string;
  /** The message-rate settings it ran with (none: the defaults). */
  readonly env: Readonly<Record<string, string>>;
  readonly rounds: readonly Round[];
}

export interface FloodResults {
  readonly startedAt: string;
  readonly mode: "full" | "quick";
  readonly durationS: number;
  readonly machine: BenchMachine;
  readonly setup: {
    readonly servingThreads: number;
    readonly connections: number;
    readonly messages: number;
    readonly rounds: number;
    readonly wrk: { version: string; threads: number; connections: number; durationS: number; path: string };
  };
  readonly variants: readonly Variant[];
}

/** The flooded p99 over the quiet p99 of one round (the two runs side by side). */
export function roundRatio(r: Round): number {
  return r.flooded.p99Ms / r.quiet.p99Ms;
}

/** The median of `values` (the upper middle one of an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/** A variant's round ratios: their median, lowest and highest. */
export function p99Ratio(v: Variant): { median: number; min: number; max: number } {
  const ratios = v.rounds.map(roundRatio);
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

const count = (n: number) => Math.round(n).toLocaleString("en-US");

function ratioText(v: Variant): string {
  const r = p99Ratio(v);
  return v.rounds.length > 1
    ? `${fmt(r.median, 2)}x (median of ${v.rounds.length} rounds; ${fmt(r.min, 2)}-${fmt(r.max, 2)}x)`
    : `${fmt(r.median, 2)}x`;
}

function settingsText(v: Variant): string {
  const entries = Object.entries(v.env);
  return entries.length === 0 ? "the default message rates" : entries.map(([k, x]) => `\`${k}=${x}\``).join(", ");
}

function closesText(f: FloodReport): string {
  return (
    Object.entries(f.closes)
      .map(([code, n]) => `${code} ×${count(n)}`)
      .join(", ") || "none"
  );
}

function runText(w: WrkRun, withMax: boolean): string {
  return `${count(w.rps)} req/s, p50 ${fmt(w.p50Ms, 2)} ms, p99 ${fmt(w.p99Ms, 2)} ms${withMax ? `, max ${fmt(w.maxMs, 1)} ms` : ""}, ${fmt(w.cpuUsPerRequest, 1)} µs gateway CPU/req${w.errors > 0 ? `, ${w.errors} errors` : ""}`;
}

function floodText(f: FloodReport): string {
  return `${count(f.floods)} floods (${count(f.sent)} messages sent; ${count(f.subscribed)} answered \`subscribed\`, ${count(f.errors)} \`error\`; the first ${fmt(f.firstRoundMs, 0)} ms); closes: ${closesText(f)}${f.refusedOpens > 0 ? `; ${count(f.refusedOpens)} openings refused (${f.firstRefusal})` : ""}`;
}

/** The id of the "flood" section of bench/RESULTS.md. */
export const SECTION_ID = "flood";

export function renderSection(r: FloodResults, jsonPath: string): string {
  const m = r.machine;
  const machine = `${m.cores} cores, ${m.cpuModel}`;
  const limited = r.variants.find((v) => v.name === "defaults");
  const target =
    limited === undefined
      ? `| pool route p99 during the flood <= ${P99_RATIO_TARGET}x its p99 without it | not measured | n/a |`
      : `| pool route p99 during the flood <= ${P99_RATIO_TARGET}x its p99 without it (default message rates) | ${ratioText(limited)}; median p99 ${fmt(median(limited.rounds.map((x) => x.flooded.p99Ms)), 2)} ms during, ${fmt(median(limited.rounds.map((x) => x.quiet.p99Ms)), 2)} ms quiet | ${p99Ratio(limited).median <= P99_RATIO_TARGET ? "**met**" : "**missed**"} |`;
  return [
    "## Stream message flood (`npm run bench:flood`)",
    "",
    `From the ${r.mode} run of ${r.startedAt} (${Math.round(r.durationS)} s); raw figures in [${jsonPath}](${jsonPath}).`,
    "",
    `**Machine: ${machine}** (${(m.totalMemoryBytes / 2 ** 30).toFixed(2)} GiB RAM, ${m.platform}), Node ${m.node}; load average ${m.loadAverageStart.join(" ")} at the start, ${m.loadAverageEnd.join(" ")} at the end (the gateway, the flooder and wrk share these cores).`,
    "",
    "### Target (issue 27)",
    "",
    `| target | measured on ${machine} | result |`,
    "|---|---|---|",
    target,
    "",
    "### Setup",
    "",
    `- Gateway: ${r.setup.servingThreads} serving threads, auth and rate limiting on, LOG_LEVEL warn, the bundled sample (\`snapshots/\`); one gateway per variant.`,
    `- Flood: ${r.setup.connections} WebSockets of one key (another process, bench/live/flood-client.ts: raw sockets, the masked frames built once and written in one go, so the flooder itself costs next to no CPU), each sending ${count(r.setup.messages)} subscribe/unsubscribe messages (alternately, one topic) pipelined, then reading every answer or the close. A socket that is done connects again and floods again, at most once a second (at once when a flood took longer), until the run ends: a flooder that keeps at it for the whole run, without making the run one of connection churn (which the key's quota bounds: each opening is a request).`,
    `- wrk ${r.setup.wrk.version}: 1 thread, ${r.setup.wrk.connections} connections, ${r.setup.wrk.durationS} s per run, \`GET ${r.setup.wrk.path}\` with another key (the other partners). Each round: a quiet run, then a run with the flood started 0.5 s into it; the ratio is taken per round (the two runs side by side), then the median over the rounds.`,
    "",
    "### Figures",
    "",
    "| variant, round | pool route quiet | pool route during the flood | p99 ratio | flood |",
    "|---|---|---|---|---|",
    ...r.variants.flatMap((v) =>
      v.rounds.map(
        (x, i) =>
          `| ${v.name}${v.rounds.length > 1 ? `, ${i + 1}` : ""} | ${runText(x.quiet, false)} | ${runText(x.flooded, true)} | ${fmt(roundRatio(x), 2)}x | ${floodText(x.flood)} |`,
      ),
    ),
    "",
    ...r.variants.map((v) => `- ${v.name} (${settingsText(v)}): p99 ratio ${ratioText(v)}.`),
    "",
    "`limits off` sets both message rates to their maximum: the gateway as it was before issue 27 (every message processed). With the defaults (`STREAM_MAX_MESSAGES_PER_SECOND=20`, `STREAM_MAX_KEY_MESSAGES_PER_SECOND=100`) a flooding socket gets at most 20 answers, then `error` events (`RATE_LIMIT_EXCEEDED`), and the close (1008 `message rate exceeded`) within its first 41 messages; uWS discards whatever else it reads from a socket it is closing, so the rest of that socket's flood costs the gateway kernel reads and no JavaScript. The key's bucket on each serving thread outlives its sockets, so reconnecting does not refill it. Gateway CPU per wrk request counts all of the gateway's CPU over the run, the flood's included.",
  ].join("\n");
}
