/**
 * `npm run bench`'s section of bench/RESULTS.md and its console summary,
 * rendered from the results. Every figure is quoted with the machine.
 */
import type { Cell, HttpCpuResults, Machine, Ratio, Verdict } from "./results.js";
import type { Spread } from "../shared/stats.js";

export const SECTION_ID = "http-cpu";

const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "n/a");
const fmt = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : "n/a");
const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

function range(s: Spread, digits: number): string {
  if (s.n <= 1) return fmt(s.median, digits);
  return `${fmt(s.median, digits)} (${fmt(s.min, digits)}-${fmt(s.max, digits)})`;
}

export function machineLine(m: Machine): string {
  return `${m.cpuModel}, ${m.cores} cores, ${gib(m.memoryBytes)} RAM, Linux ${m.kernel} ${m.arch}, Node ${m.node}`;
}

function table(headings: string[], rows: Array<Array<string | number>>): string {
  return [`| ${headings.join(" | ")} |`, `|${headings.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

function labels(results: HttpCpuResults) {
  const server = (id: string) => results.servers.find((s) => s.id === id)?.label ?? id;
  const target = (name: string) => results.targets.find((t) => t.name === name)?.label ?? name;
  return { server, target };
}

function verdictRows(results: HttpCpuResults): Array<Array<string>> {
  const l = labels(results);
  return results.verdicts.map((v: Verdict) => [
    `${l.target(v.goal.target)}: ${l.server(v.goal.server)} / ${l.server(v.goal.against)} <= ${v.goal.maxRatio}x`,
    v.ratio && v.ratio.n > 0 ? `${range(v.ratio, 2)}x` : "n/a",
    v.status === "met" || v.status === "missed" ? `**${v.status}**` : v.status,
  ]);
}

function ratioText(ratios: readonly Ratio[], cell: Cell, against: string): string {
  const r = ratios.find((x) => x.target === cell.target && x.server === cell.server && x.against === against);
  return r && r.cpuPerRequest.n > 0 ? `${range(r.cpuPerRequest, 2)}x` : "";
}

function cellRows(results: HttpCpuResults): Array<Array<string | number>> {
  const l = labels(results);
  const bare = results.servers.find((s) => s.kind === "bare")?.id ?? "";
  const floor = results.servers.find((s) => s.kind === "floor")?.id ?? "";
  return results.cells.map((c) => [
    l.target(c.target),
    l.server(c.server),
    range({ ...c.rps, median: Math.round(c.rps.median), min: Math.round(c.rps.min), max: Math.round(c.rps.max) }, 0),
    `**${fmt(c.cpuUsPerRequest.median, 1)}**${c.rounds > 1 ? ` (${fmt(c.cpuUsPerRequest.min, 1)}-${fmt(c.cpuUsPerRequest.max, 1)})` : ""}`,
    ratioText(results.ratios, c, bare),
    ratioText(results.ratios, c, floor),
    fmt(c.serverCpuPercent.median, 0),
    fmt(c.wrkCpuPercent.median, 0),
    fmt(c.otherCpuPercent.median, 0),
    fmt(c.p50Ms, 2),
    fmt(c.p99Ms, 2),
    c.non2xx + c.socketErrors,
  ]);
}

const CELL_HEADINGS = [
  "target",
  "server",
  "req/s median (min-max)",
  "server CPU µs/req median (min-max)",
  "CPU/req vs bare uWS",
  "CPU/req vs floor",
  "server CPU %",
  "wrk CPU %",
  "other processes CPU %",
  "p50 ms",
  "p99 ms",
  "non-2xx + socket errors",
];

function settingsText(results: HttpCpuResults): string {
  const s = results.settings;
  const order = results.servers.map((x) => x.id).join(", ");
  const pin =
    s.serverCpus === null
      ? "Nothing pinned (servers and wrk share every core)."
      : `Pinned with taskset: every server on CPU ${s.serverCpus}, wrk on CPU ${s.wrk.cpus ?? "any"}.`;
  return (
    `wrk: ${s.wrk.version}, ${s.wrk.threads} thread(s), ${s.wrk.connections} connections, ${s.keepAlive}, --timeout ${s.wrk.timeoutS}s; ` +
    `${s.durationS} s per run after a ${s.warmupS} s warm-up of each server on each target; ${s.rounds} round(s) per target, interleaved (${order}, then again). ` +
    `${pin} Data: \`${s.dataDir}\`. Server CPU is utime + stime of the whole server process (every thread) from /proc/<pid>/stat over the wrk run, ` +
    `divided by the requests wrk completed; wrk's CPU is its own /proc/self/stat at its end.`
  );
}

export function renderSection(results: HttpCpuResults, files: { json: string; svg: string | null }): string {
  const m = results.machine;
  const l = labels(results);
  const out: string[] = [];
  out.push(`## HTTP: server CPU per request (\`npm run bench\`)`, "");
  out.push(
    `From the ${results.mode} run of ${results.startedAt} (${fmt(results.wallSeconds, 0)} s); raw figures in [${files.json}](${files.json}).`,
    "",
    `**Machine:** ${machineLine(m)}; load average ${m.loadAverageStart.join(" ")} at the start, ${m.loadAverageEnd.join(" ")} at the end. Every figure in this section is from this machine and this run.`,
    "",
    settingsText(results),
    "",
  );
  out.push(
    table(
      ["server", "serving threads", "what it does"],
      results.servers.map((s) => [
        `${s.label} (\`${s.id}\`)`,
        s.threads,
        s.kind === "gateway"
          ? `the real gateway as in production: auth and quotas on (a bench key with a quota no run exhausts), LOG_LEVEL warn${
              Object.keys(s.env).length
                ? `; env ${Object.entries(s.env)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(" ")}`
                : ""
            }`
          : s.kind === "bare"
            ? "uWS answering the gateway's captured bytes and headers verbatim (no work beyond finding the target)"
            : "uWS doing only the unavoidable work: bearer header, Map lookup, Atomics counter in a SharedArrayBuffer, random UUID trace id, ISO timestamp (once per ms), the same headers and body",
      ]),
    ),
    "",
  );
  out.push(`### Goals (issue 14: server CPU per request, ${m.cpuModel}, ${m.cores} cores)`, "");
  out.push(table(["goal", "measured: median of the paired rounds (min-max)", "result"], verdictRows(results)), "");
  const missed = results.verdicts.filter((v) => v.status === "missed" || v.status === "invalid");
  if (missed.length > 0) {
    out.push("What limits each missed goal:", "");
    for (const v of missed)
      out.push(`- **${l.target(v.goal.target)}, ${l.server(v.goal.server)} / ${l.server(v.goal.against)}**: ${v.limit}`);
    out.push("");
  }
  out.push(`### Per target (${m.cpuModel}, ${m.cores} cores)`, "");
  out.push(table(CELL_HEADINGS, cellRows(results)), "");
  if (files.svg) out.push(`![server CPU per request of every target and server](${files.svg})`, "");
  out.push(
    'Reading the table: "server CPU µs/req" is what a request costs the server, whatever the load generator manages; it is the figure the goals compare. ' +
      "The ratios are per round (each server against the other in the same round, so background load falls on both), then the median over the rounds. " +
      "CPU % are of one core. A server below ~90 % of the CPU it may use was not saturated: then its req/s says little and its CPU per request includes wake-up costs. " +
      "\"Other processes\" is the machine's busy time minus the server's and wrk's: anything above a few % means the machine was shared during the run.",
    "",
  );
  for (const note of results.notes) out.push(`- ${note}`);
  if (results.notes.length > 0) out.push("");
  out.push(`Target requests (every request also carries \`Authorization: Bearer <bench key>\`):`, "");
  out.push(
    table(
      ["target", "request", "response bytes", "response headers"],
      results.targets.map((t) => [
        `${t.label} (\`${t.name}\`)`,
        `\`${t.method} ${t.path.length > 60 ? `${t.path.slice(0, 57)}...` : t.path}${t.body !== null ? ` ${t.body}` : ""}\``,
        int(t.responseBytes),
        t.responseHeaders.join(", "),
      ]),
    ),
  );
  return out.join("\n");
}

/** A few lines for the console at the end of a run. */
export function renderBrief(results: HttpCpuResults): string {
  const l = labels(results);
  const out = [
    `${results.mode} run on ${machineLine(results.machine)}; load average ${results.machine.loadAverageStart.join(" ")} → ${results.machine.loadAverageEnd.join(" ")}`,
  ];
  out.push(table(CELL_HEADINGS, cellRows(results)));
  out.push("");
  out.push(table(["goal", "measured", "result"], verdictRows(results)));
  for (const v of results.verdicts.filter((x) => x.status === "missed" || x.status === "invalid"))
    out.push(`- ${l.target(v.goal.target)} vs ${l.server(v.goal.against)}: ${v.limit}`);
  return out.join("\n");
}
