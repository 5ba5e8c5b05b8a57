/**
 * The figures of `npm run bench:history` (bench/history/run.ts) and the "history" section of bench/RESULTS.md
 * made from them (pure: no process, no clock). The targets are the issue's (32, Performance).
 */
import { fmt, fmtBytes, type BenchMachine } from "../live/summary.js";
import { summarise, type Spread } from "../shared/stats.js";

/** The issue's targets. */
export const TARGETS = {
  /** What ingestion may add to a chain's push → served time. */
  pushAdded: 0.05,
  /** Bytes on disk per stored observation. */
  bytesPerObservation: 24,
  /** A history request's server CPU against a pool-details request's. */
  cpuVsPoolDetails: 3,
} as const;

/** One round of one churn: the same file pushed into the gateway with history on and the one with it off. */
export interface PushRound {
  /** Rename → /ready version changed, ms. */
  readonly onMs: number;
  readonly offMs: number;
  /** Rename → the history thread has written the file's observations (gateway_history_files_observed_total), ms. */
  readonly observedMs: number;
  /** Observations the file wrote. */
  readonly records: number;
}

export interface PoolLoad {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
}

export interface ChurnRun {
  readonly churn: number;
  readonly rounds: readonly PushRound[];
  /** The pool route under wrk for a fixed window starting with the push, history on and off, per round. */
  readonly load: ReadonlyArray<{ readonly on: PoolLoad; readonly off: PoolLoad }>;
}

/** Push → served on the large set's chain file (--large): pushes only, no load rounds. */
export interface LargeRun {
  readonly dir: string;
  readonly fileBytes: number;
  /** Each gateway's resident memory after the pushes. */
  readonly rssBytes: { readonly on: number; readonly off: number };
  readonly pushes: readonly ChurnRun[];
}

/** A `history rebuild` into an empty store. */
export interface Rebuild {
  readonly files: number;
  readonly seconds: number;
  readonly peakRssBytes: number;
  readonly records: number;
  /** The store's files on disk (sizes, as gateway_history_disk_bytes). */
  readonly bytes: number;
}

/** What an LMDB store's pages hold (lmdb's statistics of each database). */
export interface StoreProfile {
  readonly pageSize: number;
  /** Pages of the data file (the last page number + 1): the databases', free pages and lmdb's own. */
  readonly filePages: number;
  readonly dbs: ReadonlyArray<{
    readonly name: string;
    readonly entries: number;
    readonly keyBytes: number;
    readonly valueBytes: number;
    /** Branch, leaf and overflow pages. */
    readonly pages: number;
  }>;
}

export interface DiskRun {
  readonly churn: number;
  /** The base file and `files` files after it at this churn. */
  readonly files: number;
  readonly rebuild: Rebuild;
}

export interface CpuRound {
  readonly rps: number;
  readonly cpuUsPerRequest: number;
  readonly p99Ms: number;
  readonly non2xx: number;
}

export interface CpuTarget {
  readonly name: string;
  readonly path: string;
  /** Bytes of one answer. */
  readonly answerBytes: number;
  readonly rounds: readonly CpuRound[];
  /**
   * Measured on a gateway that keeps no answers (HISTORY_ANSWER_CACHE_MB=0): every request makes its answer from
   * the store, what the first request of a page after each file of its chain costs. Reported, not the target's.
   */
  readonly made?: boolean;
}

export interface HistoryResults {
  readonly startedAt: string;
  readonly durationS: number;
  readonly machine: BenchMachine;
  readonly setup: {
    readonly chainId: number;
    readonly pools: number;
    readonly tokens: number;
    readonly fileBytes: number;
    readonly everySeconds: number;
    readonly gatewayThreads: number;
    readonly wrk: { readonly version: string; readonly connections: number; readonly durationS: number; readonly loadWindowS: number };
    /** How pushes were timed (runs before 2026-11-28T05Z had none: default build-worker lifetime, no quiet wait). */
    readonly pushMethod?: {
      readonly buildWorkerIdleS: number;
      readonly settleMs: number;
      readonly quietWindowMs: number;
      readonly quietCpuS: number;
    };
    /** Why this size (the issue's large set, or a stated smaller one). */
    readonly sizeNote: string;
    /** The hourly series that fills the pool rows' store. */
    readonly hourly: { readonly chainId: number; readonly pools: number; readonly files: number; readonly days: number };
  };
  readonly pushes: readonly ChurnRun[];
  /** The large set's chain file, history on and off (bench:history --large). */
  readonly large?: LargeRun;
  /** The base file alone, rebuilt: what every churn's store starts from. */
  readonly diskBase: Rebuild;
  readonly disk: readonly DiskRun[];
  /** A day of files at one a minute at each churn (runs before 2026-11-28 05:00Z have only `rebuildDay`). */
  readonly days?: readonly DiskRun[];
  /** One day of files at one a minute (5 % churn) of the chain. */
  readonly rebuildDay: Rebuild;
  /** The day's store, right after its rebuild. */
  readonly dayProfile: StoreProfile;
  /** The hourly series added to the same store. */
  readonly rebuildHourly: Rebuild;
  /** Side by side, rounds interleaved; the first is the pool-details request. */
  readonly cpu: readonly CpuTarget[];
}

/** ratio of each round's pair (a/b), summarised. */
function ratios(pairs: ReadonlyArray<readonly [number, number]>): Spread {
  return summarise(pairs.filter(([, b]) => b > 0).map(([a, b]) => a / b));
}

export interface ChurnVerdict {
  readonly churn: number;
  /** Per round on/off push → served, summarised. */
  readonly pushRatio: Spread;
  readonly on: Spread;
  readonly off: Spread;
  readonly observed: Spread;
  readonly records: Spread;
  /** Per round pool p99 on/off. */
  readonly p99Ratio: Spread;
  readonly p99On: Spread;
  readonly p99Off: Spread;
  /**
   * The same gateway's pool p99 from one load round to the next (on/on and off/off): how far p99s move with no
   * difference at all, the yardstick of "measurable".
   */
  readonly p99Same: Spread;
}

export interface DiskVerdict {
  readonly churn: number;
  /** (bytes − base bytes) / (records − base records). */
  readonly bytesPerObservation: number;
  /** The whole store's bytes / its records (the base file's full pass included). */
  readonly wholeStorePerObservation: number;
  readonly observationsPerFile: number;
  readonly bytesPerDay: number;
}

export interface HistoryVerdicts {
  readonly churns: readonly ChurnVerdict[];
  readonly large: readonly ChurnVerdict[] | null;
  readonly disk: readonly DiskVerdict[];
  /** The days measured (each churn's; the day at 5 % alone in runs without `days`). */
  readonly days: readonly DiskVerdict[];
  readonly dayBytesPerObservation: number;
  readonly cpu: ReadonlyArray<{ readonly name: string; readonly cpuUs: Spread; readonly rps: Spread; readonly ratio: Spread | null }>;
}

/** Each round's value over the next round's, of one side. */
const consecutive = (values: readonly number[]) => values.slice(1).map((v, i) => [values[i], v] as const);

/** Per churn: push ratios per round, and the pool p99s under load with the same side's round-to-round spread. */
export function churnVerdicts(pushes: readonly ChurnRun[]): ChurnVerdict[] {
  return pushes.map((c) => ({
    churn: c.churn,
    pushRatio: ratios(c.rounds.map((x) => [x.onMs, x.offMs] as const)),
    on: summarise(c.rounds.map((x) => x.onMs)),
    off: summarise(c.rounds.map((x) => x.offMs)),
    observed: summarise(c.rounds.map((x) => x.observedMs)),
    records: summarise(c.rounds.map((x) => x.records)),
    p99Ratio: ratios(c.load.map((x) => [x.on.p99Ms, x.off.p99Ms] as const)),
    p99On: summarise(c.load.map((x) => x.on.p99Ms)),
    p99Off: summarise(c.load.map((x) => x.off.p99Ms)),
    p99Same: ratios([...consecutive(c.load.map((x) => x.on.p99Ms)), ...consecutive(c.load.map((x) => x.off.p99Ms))]),
  }));
}

/**
 * "Nothing measurable": the median on/off p99 ratio lies within the range the same gateway's p99 moves between
 * its own rounds; null (not judged) with fewer than two load rounds.
 */
export function p99Unmeasurable(c: ChurnVerdict): boolean | null {
  if (c.p99Same.n === 0 || c.p99Ratio.n === 0) return null;
  return c.p99Ratio.median >= c.p99Same.min && c.p99Ratio.median <= c.p99Same.max;
}
/** The days a run measured: each churn's, or (runs without `days`) the day at 5 % alone. */
const dayRuns = (r: HistoryResults): readonly DiskRun[] =>
  r.days ?? [{ churn: 0.05, files: r.rebuildDay.files - 1, rebuild: r.rebuildDay }];

export function verdicts(r: HistoryResults): HistoryVerdicts {
  const perDay = 86_400 / r.setup.everySeconds;
  const base = r.diskBase;
  const diskVerdict = (d: DiskRun): DiskVerdict => ({
    churn: d.churn,
    bytesPerObservation: (d.rebuild.bytes - base.bytes) / (d.rebuild.records - base.records),
    wholeStorePerObservation: d.rebuild.bytes / d.rebuild.records,
    observationsPerFile: (d.rebuild.records - base.records) / d.files,
    bytesPerDay: ((d.rebuild.bytes - base.bytes) / d.files) * perDay,
  });
  const pool = r.cpu[0];
  return {
    churns: churnVerdicts(r.pushes),
    large: r.large === undefined ? null : churnVerdicts(r.large.pushes),
    disk: r.disk.map(diskVerdict),
    days: dayRuns(r).map(diskVerdict),
    dayBytesPerObservation: (r.rebuildDay.bytes - base.bytes) / (r.rebuildDay.records - base.records),
    cpu: r.cpu.map((t, i) => ({
      name: t.name,
      cpuUs: summarise(t.rounds.map((x) => x.cpuUsPerRequest)),
      rps: summarise(t.rounds.map((x) => x.rps)),
      ratio: i === 0 ? null : ratios(t.rounds.map((x, k) => [x.cpuUsPerRequest, pool.rounds[k]?.cpuUsPerRequest ?? NaN] as const)),
    })),
  };
}

/** The id of the section of bench/RESULTS.md this suite writes. */
export const SECTION_ID = "history";

const pc = (v: number) => `${v >= 0 ? "+" : "−"}${fmt(Math.abs(v) * 100, 1)} %`;
const ms = (v: number) => `${fmt(v, 0)} ms`;
const spreadX = (s: Spread) => `${fmt(s.median, 2)}x (median of ${s.n}; ${fmt(s.min, 2)}-${fmt(s.max, 2)}x)`;
const verdict = (ok: boolean) => (ok ? "**met**" : "**missed**");
const churnPc = (c: number) => `${fmt(c * 100, 0)} %`;

function pushMethodNote(m: HistoryResults["setup"]["pushMethod"]): string {
  if (m === undefined) return "";
  return ` Both gateways keep their build workers through the run (\`BUILD_WORKER_IDLE_S=${m.buildWorkerIdleS}\`: with the default 10 s, whichever side's pushes lay further apart lost its worker and built the next files on cold code, 20-60 % slower for a few pushes), and each push starts only once both gateways are quiet: ${m.settleMs} ms after the last push (past the build worker's idle collection), then both processes under ${fmt(m.quietCpuS * 1000, 0)} ms of CPU over ${m.quietWindowMs} ms. What it measures is what history adds to a push when nothing else runs.`;
}

function largeLines(l: LargeRun, v: readonly ChurnVerdict[]): string[] {
  return [
    "",
    `On the large set (\`--large\`): chain 8453's file of the large data set (${fmtBytes(l.fileBytes)}), the rest of the set served beside it, two gateways as above; the series generated from that file, rounds interleaved the same way, no load rounds. RSS after the pushes: history on ${fmtBytes(l.rssBytes.on)}, off ${fmtBytes(l.rssBytes.off)}.`,
    "",
    "| churn | served, on | served, off | on/off per round | push → observed (on) | observations a file |",
    "|---|---|---|---|---|---|",
    ...v.map(
      (c) =>
        `| ${churnPc(c.churn)} | ${ms(c.on.median)} | ${ms(c.off.median)} | ${spreadX(c.pushRatio)} | ${ms(c.observed.median)} | ${fmt(c.records.median, 0)} |`,
    ),
  ];
}

function profileLines(r: HistoryResults): string[] {
  const p = r.dayProfile;
  const used = p.dbs.reduce((a, d) => a + d.pages, 0);
  const kv = p.dbs.reduce((a, d) => a + d.keyBytes + d.valueBytes, 0);
  return [
    `Where the day's store goes (lmdb's statistics right after its rebuild: ${p.filePages.toLocaleString("en-US")} pages of ${p.pageSize} B in the file, ${used.toLocaleString("en-US")} in the databases' trees, the rest free pages (compaction's deleted raw records, reused by later writes) and lmdb's own; keys and values ${fmtBytes(kv)}, ${fmt((kv / (p.pageSize * used)) * 100, 0)} % of the trees' pages):`,
    "",
    "| database | entries | key bytes | value bytes | pages | fill |",
    "|---|---|---|---|---|---|",
    ...p.dbs
      .filter((d) => d.entries > 0)
      .map(
        (d) =>
          `| ${d.name} | ${d.entries.toLocaleString("en-US")} | ${fmtBytes(d.keyBytes)} | ${fmtBytes(d.valueBytes)} | ${d.pages.toLocaleString("en-US")} | ${fmt(((d.keyBytes + d.valueBytes) / (d.pages * p.pageSize)) * 100, 0)} % |`,
      ),
    "",
  ];
}

/** What the rows "made from the store" are (runs before them had none: their sections render as they did). */
const MADE_NOTE =
  ' The serving thread keeps each answer until its chain\'s next file (docs/history.md, "What a serving thread keeps"), so after the warm-up every history request of a run is served from the kept bytes; the rows "made from the store" are a second gateway on a copy of the store with `HISTORY_ANSWER_CACHE_MB=0`, where every request makes its answer (the cost of a page\'s first request after each file), against the first gateway\'s pool details.';

export function renderSection(r: HistoryResults, jsonPath: string): string {
  const m = r.machine;
  const machine = `${m.cores} cores, ${m.cpuModel}`;
  const v = verdicts(r);
  const s = r.setup;
  const worstPush = Math.max(...v.churns.map((c) => c.pushRatio.median));
  // Runs before the push method was recorded render as they did (npm run bench:results re-renders them).
  const legacy = s.pushMethod === undefined;
  const p99Verdicts = v.churns.map(p99Unmeasurable);
  const p99Verdict = p99Verdicts.includes(null)
    ? "not judged (fewer than two load rounds)"
    : p99Verdicts.every((x) => x === true)
      ? "**met** (each churn's median on/off within the same gateway's own round-to-round spread)"
      : "**missed** (a churn's median on/off outside the same gateway's round-to-round spread)";
  const large = r.large;
  const worstLarge = v.large === null ? NaN : Math.max(...v.large.map((c) => c.pushRatio.median));
  const worstDisk = Math.max(...v.disk.map((d) => d.bytesPerObservation), ...v.days.map((d) => d.bytesPerObservation));
  const cpuRatios = v.cpu.filter((c, i) => c.ratio !== null && r.cpu[i].made !== true);
  const madeRatios = v.cpu.filter((c, i) => c.ratio !== null && r.cpu[i].made === true);
  const worstCpu = Math.max(...cpuRatios.map((c) => c.ratio!.median));
  const day = r.rebuildDay;
  return [
    "## History: ingestion, disk, history requests, rebuild (`npm run bench:history`)",
    "",
    `From the run of ${r.startedAt} (${Math.round(r.durationS)} s); raw figures in [${jsonPath}](${jsonPath}).`,
    "",
    `**Machine: ${machine}** (${(m.totalMemoryBytes / 2 ** 30).toFixed(2)} GiB RAM, ${m.platform}), Node ${m.node}; load average ${m.loadAverageStart.join(" ")} at the start, ${m.loadAverageEnd.join(" ")} at the end (the gateways, wrk and the harness share these cores).`,
    "",
    `**Size:** ${s.sizeNote}`,
    "",
    "### Targets (issue 32)",
    "",
    `| target | measured on ${machine} | result |`,
    "|---|---|---|",
    `| ingestion adds ≤ 5 % to the chain's push → served time (HISTORY=on / off, per round, rounds interleaved) | ${v.churns.map((c) => `${churnPc(c.churn)}: ${pc(c.pushRatio.median - 1)}`).join("; ")} (medians of the rounds' ratios) | ${verdict(worstPush <= 1 + TARGETS.pushAdded)} |`,
    ...(large === undefined || v.large === null
      ? []
      : [
          `| the same on the large set (chain ${s.chainId}, ${fmtBytes(large.fileBytes)}; \`--large\`) | ${v.large.map((c) => `${churnPc(c.churn)}: ${pc(c.pushRatio.median - 1)}`).join("; ")} (medians of ${v.large[0].pushRatio.n} rounds' ratios) | ${verdict(worstLarge <= 1 + TARGETS.pushAdded)} |`,
        ]),
    legacy
      ? `| nothing measurable on the pool route's p99 during ingestion | p99 on/off ${v.churns.map((c) => `${churnPc(c.churn)}: ${spreadX(c.p99Ratio)}`).join("; ")} | ${v.churns.every((c) => c.p99Ratio.median <= 1.1) ? "**met** (within 10 %, the run-to-run noise)" : "**missed** (over 10 %)"} |`
      : `| nothing measurable on the pool route's p99 during ingestion | p99 on/off ${v.churns.map((c) => `${churnPc(c.churn)}: ${spreadX(c.p99Ratio)}, same gateway round to round ${fmt(c.p99Same.min, 2)}-${fmt(c.p99Same.max, 2)}x`).join("; ")} | ${p99Verdict} |`,
    `| ≤ ${TARGETS.bytesPerObservation} bytes on disk per stored observation | ${v.disk.map((d) => `${churnPc(d.churn)}: ${fmt(d.bytesPerObservation, 1)} B`).join("; ")}; ${r.days === undefined ? `the day at 5 %: ${fmt(v.dayBytesPerObservation, 1)} B` : `a day: ${v.days.map((d) => `${churnPc(d.churn)}: ${fmt(d.bytesPerObservation, 1)} B (whole store ${fmt(d.wholeStorePerObservation, 1)} B)`).join("; ")}`} | ${verdict(worstDisk <= TARGETS.bytesPerObservation)} |`,
    `| 1,000 minute candles of a token and a page of hourly pool rows each ≤ 3x the server CPU of a pool-details request (wrk, side by side) | ${cpuRatios.map((c) => `${c.name}: ${spreadX(c.ratio!)}`).join("; ")}${madeRatios.length === 0 ? "" : ` (answers kept by the serving thread; made from the store, once per file of the chain: ${madeRatios.map((c) => `${c.name}: ${spreadX(c.ratio!)}`).join("; ")})`} | ${verdict(worstCpu <= TARGETS.cpuVsPoolDetails)} |`,
    `| \`history rebuild\` of one day of files at 1 a minute: time and peak memory (report) | ${day.files} files in ${fmt(day.seconds, 1)} s (${fmt((day.seconds / day.files) * 1000, 1)} ms a file), peak RSS ${fmtBytes(day.peakRssBytes)} | reported |`,
    "",
    "### Push → served, history on and off",
    "",
    `Two gateways (\`GATEWAY_THREADS=${s.gatewayThreads}\`, auth on) on copies of the same data, one with \`HISTORY=on\` (its own \`HISTORY_DIR\`), one with \`HISTORY=off\`. Each round renames the same next file of chain ${s.chainId} into both directories, one after the other (which goes first alternates), and times rename → its \`/ready\` version changed; the history gateway's round also waits until its history thread has written the file (\`gateway_history_files_observed_total\`), so no ingestion overlaps the other gateway's push. Files every ${s.everySeconds} s of \`generatedAt\`, from the sample generator's series (tools/samplegen/series.ts).${pushMethodNote(s.pushMethod)}`,
    "",
    `| churn | served, on | served, off | on/off per round | push → observed (on) | observations a file | pool p99 during, on | off | on/off |${legacy ? "" : " same gateway, round to round |"}`,
    `|---|---|---|---|---|---|---|---|---|${legacy ? "" : "---|"}`,
    ...v.churns.map(
      (c) =>
        `| ${churnPc(c.churn)} | ${ms(c.on.median)} | ${ms(c.off.median)} | ${spreadX(c.pushRatio)} | ${ms(c.observed.median)} | ${fmt(c.records.median, 0)} | ${fmt(c.p99On.median, 2)} ms | ${fmt(c.p99Off.median, 2)} ms | ${spreadX(c.p99Ratio)} |` +
        (legacy ? "" : ` ${c.p99Same.n === 0 ? "-" : `${fmt(c.p99Same.min, 2)}-${fmt(c.p99Same.max, 2)}x (${c.p99Same.n})`} |`),
    ),
    "",
    `Pool route during ingestion: wrk (${s.wrk.version}, 1 thread, ${s.wrk.connections} connections) on \`GET /v1/pools/${s.chainId}/{pool}\` for ${s.wrk.loadWindowS} s starting with the push (build, swap and, with history on, the observation all fall in it), on each gateway in turn; medians of the rounds.${legacy ? "" : ` "Same gateway, round to round": each gateway's p99 over its own next round's (on/on and off/off), the spread a p99 shows with nothing changed; "nothing measurable" holds when the median on/off lies within it.`}`,
    ...(large === undefined || v.large === null ? [] : largeLines(large, v.large)),
    "",
    "### Disk",
    "",
    `\`history rebuild\` into an empty store: the base file alone (${fmtBytes(r.diskBase.bytes)}, ${r.diskBase.records.toLocaleString("en-US")} observations: every entity once), then the base file and N files at each churn. Per stored observation: (store − base store) / (observations − the base's); a day: that per file × ${86_400 / s.everySeconds} files. Bytes are the store's file sizes (\`gateway_history_disk_bytes\`); compaction to the hourly tier ran as files closed their hours.`,
    "",
    "| churn | files | observations a file | bytes per observation | whole store per observation | bytes a day (1 file a minute) |",
    "|---|---|---|---|---|---|",
    ...v.disk.map(
      (d, i) =>
        `| ${churnPc(d.churn)} | ${r.disk[i].files} | ${fmt(d.observationsPerFile, 0)} | ${fmt(d.bytesPerObservation, 1)} | ${fmt(d.wholeStorePerObservation, 1)} | ${fmtBytes(d.bytesPerDay)} |`,
    ),
    ...v.days.map(
      (d, i) =>
        `| ${churnPc(d.churn)} (one day, measured) | ${dayRuns(r)[i].files} | ${fmt(d.observationsPerFile, 0)} | ${fmt(d.bytesPerObservation, 1)} | ${fmt(d.wholeStorePerObservation, 1)} | ${fmtBytes(d.bytesPerDay)} |`,
    ),
    "",
    ...profileLines(r),
    "### Server CPU per request (wrk, side by side)",
    "",
    `One gateway (\`GATEWAY_THREADS=1\`) on the store of \`history rebuild\` over one day of chain ${s.chainId} at 1 file a minute and ${s.hourly.days} days of chain ${s.hourly.chainId} (${s.hourly.pools} pools) at 1 file an hour (${s.hourly.files.toLocaleString("en-US")} files); gateway on CPU 0, wrk on CPU 1; ${s.wrk.connections} connections, ${s.wrk.durationS} s a run, rounds interleaved. CPU µs per request: the gateway process's utime + stime (/proc/<pid>/stat) over the run / requests completed. A request's \`limit\` is at most 1,000: 90 days of hourly rows (2,160) are three pages; the row below is one full page of 1,000 hours.${madeRatios.length === 0 ? "" : MADE_NOTE}`,
    "",
    "| request | answer | req/s | server CPU µs/request | vs pool details (per round) |",
    "|---|---|---|---|---|",
    ...v.cpu.map(
      (c, i) =>
        `| ${c.name} (\`${r.cpu[i].path}\`) | ${fmtBytes(r.cpu[i].answerBytes)} | ${fmt(c.rps.median, 0)} | ${fmt(c.cpuUs.median, 1)} (${fmt(c.cpuUs.min, 1)}-${fmt(c.cpuUs.max, 1)}) | ${c.ratio === null ? "1x" : spreadX(c.ratio)} |`,
    ),
    "",
    "### `history rebuild`",
    "",
    `- One day of chain ${s.chainId} at 1 file a minute (${day.files} files, the base file first, 5 % churn): ${fmt(day.seconds, 1)} s, ${fmt((day.seconds / day.files) * 1000, 1)} ms a file (read, validate, compile, diff, observe), peak RSS ${fmtBytes(day.peakRssBytes)}; ${day.records.toLocaleString("en-US")} observations, store ${fmtBytes(day.bytes)}.`,
    ...(r.days ?? [])
      .filter((d) => d.churn !== 0.05) // the day at 5 % is the line above
      .map(
        (d) =>
          `- The day at ${churnPc(d.churn)} churn (${d.rebuild.files} files): ${fmt(d.rebuild.seconds, 1)} s, ${fmt((d.rebuild.seconds / d.rebuild.files) * 1000, 1)} ms a file, peak RSS ${fmtBytes(d.rebuild.peakRssBytes)}; ${d.rebuild.records.toLocaleString("en-US")} observations, store ${fmtBytes(d.rebuild.bytes)}.`,
      ),
    `- Then ${r.rebuildHourly.files.toLocaleString("en-US")} hourly files of chain ${s.hourly.chainId} into the same store: ${fmt(r.rebuildHourly.seconds, 1)} s, peak RSS ${fmtBytes(r.rebuildHourly.peakRssBytes)}.`,
  ].join("\n");
}
