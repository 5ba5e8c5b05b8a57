/**
 * The figures of `npm run bench:live` (bench/live/run.ts) and the "live" section of
 * bench/RESULTS.md made from them (pure: no process, no clock).
 */

export interface Percentiles {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** Nearest-rank percentiles. */
export function percentiles(values: readonly number[]): Percentiles {
  if (values.length === 0) return { n: 0, p50: NaN, p99: NaN, max: NaN };
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  return { n: sorted.length, p50: at(50), p99: at(99), max: sorted[sorted.length - 1] };
}

export interface RoundResult {
  readonly round: number;
  /** `full`: changes + 10 pool events per subscriber; `changes-only`: the changes event alone. */
  readonly scenario: "full" | "changes-only";
  /** CPU seconds from the push to the last report: the gateway process, and the subscriber processes together. */
  readonly gatewayCpuS: number;
  readonly clientsCpuS: number;
  readonly latencyMs: Percentiles;
  readonly incomplete: number;
  /** Subscribers that got more events than expected, plus sampled pool events that failed their check (bench/live/client.ts). */
  readonly wrong: number;
  /** Pool events parsed in full and checked (one in 100). */
  readonly sampled: number;
  readonly servedAt: string | null;
  /** Bytes the subscribers received for the push, all of them. */
  readonly bytes: number;
  readonly underWrk: boolean;
}

export interface WrkFigures {
  readonly label: string;
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly errors: number;
  readonly pushes: number;
}

/** The machine a run measured on (bench/shared/entry.ts `benchMachine`; the load average at the end filled in last). */
export interface BenchMachine {
  cores: number;
  cpuModel: string;
  totalMemoryBytes: number;
  node: string;
  platform: string;
  loadAverageStart: number[];
  loadAverageEnd: number[];
}

export interface LiveResults {
  readonly startedAt: string;
  readonly mode: "full" | "quick";
  readonly durationS: number;
  readonly machine: BenchMachine;
  readonly setup: {
    readonly clients: number;
    readonly opened: number;
    readonly failed: number;
    readonly clientProcesses: number;
    readonly servingThreads: number;
    readonly chainId: number;
    readonly chainPools: number;
    readonly changedPerPush: number;
    readonly poolsPerClient: number;
    readonly wrk: { version: string; threads: number; connections: number; durationS: number; path: string };
    readonly ulimitN: string;
  };
  readonly memory: {
    readonly rssBeforeBytes: number;
    readonly rssWithHalfBytes: number;
    readonly halfOpened: number;
    readonly rssWithIdleBytes: number;
    readonly perConnectionBytes: number;
    /** (RSS with all − RSS with the first half) / the second half: one-time costs of the first streams left out. */
    readonly perConnectionSecondHalfBytes: number;
    readonly clientRssBytes: number[];
  };
  /** The first push with subscribers (cold), left out of `idle`. */
  readonly coldRound: RoundResult;
  readonly rounds: RoundResult[];
  /** Gateway CPU seconds of a push without subscribers (to served, plus 1 s). */
  readonly swapAloneCpuS: number[];
  readonly idle: Percentiles;
  /** Idle pushes once every subscriber follows `changes` alone. */
  readonly changesOnly: Percentiles;
  readonly underLoad: Percentiles;
  readonly wrk: {
    readonly baseline: WrkFigures;
    readonly swapsOnly: WrkFigures;
    readonly fanOut: WrkFigures;
    readonly baselineAfter: WrkFigures;
  };
}

/** The id of the section of bench/RESULTS.md this suite writes. */
export const SECTION_ID = "live";

export const fmt = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : "n/a");
export const fmtBytes = (b: number) => (b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(1)} MiB` : `${(b / 1024).toFixed(1)} KiB`);

export function renderSection(r: LiveResults, jsonPath: string): string {
  const m = r.machine;
  const machine = `${m.cores} cores, ${m.cpuModel}`;
  const perConnKiB = r.memory.perConnectionBytes / 1024;
  const fanOutRatio = r.wrk.fanOut.p99Ms / r.wrk.baseline.p99Ms;
  const verdict = (ok: boolean) => (ok ? "**met**" : "**missed**");
  const perClientBytes = r.rounds.length > 0 ? r.rounds[0].bytes / Math.max(1, r.rounds[0].latencyMs.n) : NaN;
  const idleFull = r.rounds.filter((x) => x.scenario === "full" && !x.underWrk);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const gatewayCpu = mean(idleFull.map((x) => x.gatewayCpuS));
  const clientsCpu = mean(idleFull.map((x) => x.clientsCpuS));
  return [
    "## Live data: stream fan-out (`npm run bench:live`)",
    "",
    `From the ${r.mode} run of ${r.startedAt} (${Math.round(r.durationS)} s); raw figures in [${jsonPath}](${jsonPath}).`,
    "",
    `**Machine: ${machine}** (${(m.totalMemoryBytes / 2 ** 30).toFixed(2)} GiB RAM, ${m.platform}), Node ${m.node}; load average ${m.loadAverageStart.join(" ")} at the start, ${m.loadAverageEnd.join(" ")} at the end (the machine is shared: the gateway, the subscriber processes and wrk all run on these cores).`,
    "",
    "### Targets (issue 21)",
    "",
    `| target | measured on ${machine} | result |`,
    "|---|---|---|",
    `| swap → last subscriber holding its events, p99 <= 250 ms (${r.setup.opened.toLocaleString("en-US")} subscribers, idle, ${fmtBytes(perClientBytes)} each per push) | p99 ${fmt(r.idle.p99)} ms, p50 ${fmt(r.idle.p50)} ms, max ${fmt(r.idle.max)} ms | ${verdict(r.idle.p99 <= 250)} |`,
    `| (the same, subscribers on \`changes\` alone: one event per push) | p99 ${fmt(r.changesOnly.p99)} ms, p50 ${fmt(r.changesOnly.p50)} ms, max ${fmt(r.changesOnly.max)} ms | ${verdict(r.changesOnly.p99 <= 250)} |`,
    `| server memory per idle connection <= 4 KiB | ${fmt(perConnKiB, 2)} KiB | ${verdict(perConnKiB <= 4)} |`,
    `| pool route p99 during the fan-out <= 1.5x without subscribers | ${fmt(fanOutRatio, 2)}x (${fmt(r.wrk.fanOut.p99Ms, 2)} ms vs ${fmt(r.wrk.baseline.p99Ms, 2)} ms; ${fmt(r.wrk.fanOut.p99Ms / r.wrk.baselineAfter.p99Ms, 2)}x against the run without subscribers at the end, ${fmt(r.wrk.baselineAfter.p99Ms, 2)} ms) | ${verdict(fanOutRatio <= 1.5)} |`,
    "",
    "### Setup",
    "",
    `- Gateway: ${r.setup.servingThreads} serving threads, auth and rate limiting on, LOG_LEVEL warn, \`STREAM_MAX_CONNECTIONS_PER_KEY\` raised to hold every subscriber on one key; data: the bundled sample (\`snapshots/\`), the largest chain ${r.setup.chainId} (${r.setup.chainPools.toLocaleString("en-US")} pools).`,
    `- Subscribers: ${r.setup.opened.toLocaleString("en-US")} WebSockets opened (${r.setup.failed} failed) by ${r.setup.clientProcesses} other processes (the \`ws\` client, bench/live/client.ts; \`ulimit -n\` ${r.setup.ulimitN}), each subscribed to \`changes\` and ${r.setup.poolsPerClient} \`pool:${r.setup.chainId}:…\` topics, all among the ${r.setup.changedPerPush} pools each push changes: every push sends each subscriber one \`changes\` event (${r.setup.changedPerPush} upserted addresses) and ${r.setup.poolsPerClient} \`pool\` events (${fmtBytes(perClientBytes)} per subscriber, ${fmtBytes(r.rounds[0]?.bytes ?? NaN)} in all).`,
    `- A push: the largest chain's file with ${r.setup.changedPerPush} pools' 24 h swap volume changed and a later \`generatedAt\`, written aside and renamed over the live name. **Swap time** = the change set's \`servedAt\` (the supervisor's clock as it publishes the new snapshot to the serving threads, just before its \`snapshot-swapped\` log line; so the threads' own swaps and the wait for their confirmations are inside the figure); **receipt** = the subscriber's clock (same machine) when it holds the \`changes\` event and its ${r.setup.poolsPerClient} \`pool\` events.`,
    `- wrk ${r.setup.wrk.version}: 1 thread, ${r.setup.wrk.connections} connections, ${r.setup.wrk.durationS} s per run, \`GET ${r.setup.wrk.path}\` (a pool of the pushed chain) with the bearer key.`,
    "",
    "### Figures",
    "",
    "| measurement | figure |",
    "|---|---|",
    `| gateway RSS before the subscribers | ${fmtBytes(r.memory.rssBeforeBytes)} |`,
    `| gateway RSS with ${r.setup.opened.toLocaleString("en-US")} idle subscribers | ${fmtBytes(r.memory.rssWithIdleBytes)} |`,
    `| gateway RSS with the first ${r.memory.halfOpened.toLocaleString("en-US")} | ${fmtBytes(r.memory.rssWithHalfBytes)} |`,
    `| per idle connection (all / second half only) | ${fmt(r.memory.perConnectionBytes, 0)} bytes (${fmt(perConnKiB, 2)} KiB) / ${fmt(r.memory.perConnectionSecondHalfBytes, 0)} bytes |`,
    `| first push with subscribers (cold; left out below): swap → last event | p50 ${fmt(r.coldRound.latencyMs.p50)} ms, p99 ${fmt(r.coldRound.latencyMs.p99)} ms, max ${fmt(r.coldRound.latencyMs.max)} ms |`,
    ...r.rounds.map(
      (x) =>
        `| push ${x.round}${x.underWrk ? " (during wrk)" : ""}${x.scenario === "full" ? "" : ` (\`changes\` only, ${fmtBytes(x.bytes / Math.max(1, x.latencyMs.n))} per subscriber)`}: swap → last event over ${x.latencyMs.n.toLocaleString("en-US")} subscribers | p50 ${fmt(x.latencyMs.p50)} ms, p99 ${fmt(x.latencyMs.p99)} ms, max ${fmt(x.latencyMs.max)} ms${x.incomplete > 0 ? `, ${x.incomplete} incomplete` : ""}${x.wrong > 0 ? `, ${x.wrong} WRONG` : ""}; CPU gateway ${fmt(x.gatewayCpuS, 2)} s, subscriber processes ${fmt(x.clientsCpuS, 2)} s |`,
    ),
    `| all idle pushes with \`changes\` only together | p50 ${fmt(r.changesOnly.p50)} ms, p99 ${fmt(r.changesOnly.p99)} ms, max ${fmt(r.changesOnly.max)} ms |`,
    `| all idle pushes together | p50 ${fmt(r.idle.p50)} ms, p99 ${fmt(r.idle.p99)} ms, max ${fmt(r.idle.max)} ms |`,
    `| all pushes during wrk together | p50 ${fmt(r.underLoad.p50)} ms, p99 ${fmt(r.underLoad.p99)} ms, max ${fmt(r.underLoad.max)} ms |`,
    ...[r.wrk.baseline, r.wrk.fanOut, r.wrk.swapsOnly, r.wrk.baselineAfter].map(
      (w) =>
        `| pool route, ${w.label} | ${Math.round(w.rps).toLocaleString("en-US")} req/s, p50 ${fmt(w.p50Ms, 2)} ms, p99 ${fmt(w.p99Ms, 2)} ms, max ${fmt(w.maxMs, 2)} ms${w.errors > 0 ? `, ${w.errors} errors` : ""} |`,
    ),
    "",
    `Where the time goes: an idle push to every subscriber (${fmtBytes(r.rounds[0]?.bytes ?? NaN)} of events) took ${fmt(gatewayCpu, 2)} s of gateway CPU (its swap included: a push without subscribers took ${r.swapAloneCpuS.map((x) => fmt(x, 2)).join(" and ")} s) and ${fmt(clientsCpu, 2)} s of the subscriber processes' CPU on average, on ${m.cores} cores shared with each other (and with the other work on the machine: see the load average). The subscribers' receiving (\`ws\` framing; events recognised by their first bytes, one \`pool\` event in 100 parsed and checked in full, every event counted per subscriber) competes with the gateway's sending, so on this machine the fan-out figures are bounded by both; the gateway's part alone is its CPU figure. Each serving thread sends a push's events in slices of about 1 MiB of bytes × holders, one per turn of its event loop (src/stream/stream-hub.ts), answering requests between them.`,
  ].join("\n");
}
