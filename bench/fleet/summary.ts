/**
 * The figures of `npm run bench:fleet` (bench/fleet/run.ts) and the "fleet" section of bench/RESULTS.md made
 * from them (pure: no process, no clock). The targets are the (29, Performance).
 */
import { fmt, fmtBytes, percentiles, type BenchMachine, type Percentiles } from "../live/summary.js";

/** The targets. */
export const TARGETS = {
  /** publish → every instance serving, with the poke: p99 ≤ this + the local push's factor × its p99. */
  pokeSlackMs: 2000,
  localFactor: 1.2,
  /** What pulling may add to an instance's peak RSS. */
  rssAddedBytes: 64 * 2 ** 20,
} as const;

/** One generation published: when each instance served it, from the start of the publish. */
export interface GenerationRun {
  readonly generation: number;
  readonly poke: boolean;
  /** The publish itself (hashing, uploads, manifest), ms. */
  readonly publishMs: number;
  /** Per instance, publish start → its /ready version changed, ms. */
  readonly servedMs: readonly number[];
  /** Whether every instance then served the same snapshot version. */
  readonly sameVersion: boolean;
}

export interface IdleInstance {
  /** Polls in the idle window by result (gateway_origin_polls_total). */
  readonly polls: Readonly<Record<string, number>>;
  /** Body bytes received in the window (gateway_origin_bytes_total). */
  readonly bytes: number;
}

export interface FleetResults {
  readonly startedAt: string;
  readonly durationS: number;
  readonly machine: BenchMachine;
  readonly setup: {
    readonly instances: number;
    readonly threadsPerInstance: number;
    readonly chainId: number;
    readonly chainFileBytes: number;
    readonly chainPools: number;
    readonly changedPoolsPerGeneration: number;
    readonly pollMinS: number;
    readonly pollMaxS: number;
    readonly nginx: string;
    readonly redis: string;
  };
  /** The same files pushed into one gateway's directory (1 thread): rename → /ready version changed, ms. */
  readonly localPushMs: readonly number[];
  readonly generations: readonly GenerationRun[];
  readonly idle: { readonly windowS: number; readonly instances: readonly IdleInstance[] };
  readonly memory: {
    /** Peak RSS growth (VmHWM after the runs − RSS before them) of the local-push gateway. */
    readonly localPeakGrowthBytes: number;
    /** The same of each pulling instance. */
    readonly instancePeakGrowthBytes: readonly number[];
  };
}

/** Every instance serving a generation: the slowest instance's time. */
export const lastServed = (g: GenerationRun) => Math.max(...g.servedMs);

export interface FleetVerdicts {
  readonly local: Percentiles;
  readonly poked: Percentiles;
  readonly unpoked: Percentiles;
  readonly pokeTargetMs: number;
  readonly unpokedTargetMs: number;
  readonly rssAddedBytes: number;
  readonly idlePollsAllowed: number;
  readonly idleWorstPolls: number;
  readonly idleOnly304: boolean;
}

export function verdicts(r: FleetResults): FleetVerdicts {
  const local = percentiles(r.localPushMs);
  const poked = percentiles(r.generations.filter((g) => g.poke).map(lastServed));
  const unpoked = percentiles(r.generations.filter((g) => !g.poke).map(lastServed));
  const growth = [...r.memory.instancePeakGrowthBytes].sort((a, b) => a - b);
  const counts = r.idle.instances.map((i) => Object.values(i.polls).reduce((a, b) => a + b, 0));
  return {
    local,
    poked,
    unpoked,
    pokeTargetMs: TARGETS.pokeSlackMs + TARGETS.localFactor * local.p99,
    unpokedTargetMs: r.setup.pollMaxS * 1000 + TARGETS.localFactor * local.p99,
    rssAddedBytes: (growth.at(-1) ?? NaN) - r.memory.localPeakGrowthBytes,
    idlePollsAllowed: Math.floor(r.idle.windowS / r.setup.pollMinS) + 1,
    idleWorstPolls: Math.max(...counts),
    idleOnly304: r.idle.instances.every((i) => Object.entries(i.polls).every(([result, n]) => result === "not_modified" || n === 0)),
  };
}

/** The id of the section of bench/RESULTS.md this suite writes. */
export const SECTION_ID = "fleet";

const ms = (v: number) => `${fmt(v, 0)} ms`;
const pct = (p: Percentiles) => `p50 ${ms(p.p50)}, p99 ${ms(p.p99)}, max ${ms(p.max)} (n=${p.n})`;
const verdict = (ok: boolean) => (ok ? "**met**" : "**missed**");
const signedBytes = (b: number) => (b < 0 ? `−${fmtBytes(-b)}` : fmtBytes(b));

export function renderSection(r: FleetResults, jsonPath: string): string {
  const m = r.machine;
  const machine = `${m.cores} cores, ${m.cpuModel}`;
  const v = verdicts(r);
  const s = r.setup;
  return [
    "## A fleet pulling from an origin (`npm run bench:fleet`)",
    "",
    `From the run of ${r.startedAt} (${Math.round(r.durationS)} s); raw figures in [${jsonPath}](${jsonPath}).`,
    "",
    `**Machine: ${machine}** (${(m.totalMemoryBytes / 2 ** 30).toFixed(2)} GiB RAM, ${m.platform}), Node ${m.node}; load average ${m.loadAverageStart.join(" ")} at the start, ${m.loadAverageEnd.join(" ")} at the end (the instances, nginx, Redis and the harness share these cores).`,
    "",
    "### Targets (issue 29)",
    "",
    `| target | measured on ${machine} | result |`,
    "|---|---|---|",
    `| publish → every instance serving, with the poke: p99 ≤ 2 s + 1.2 × the local push → served p99 (${ms(v.local.p99)}) = ${ms(v.pokeTargetMs)} | ${pct(v.poked)} | ${verdict(v.poked.p99 <= v.pokeTargetMs)} |`,
    `| the same without the poke: ≤ \`ORIGIN_POLL_MAX_S\` (${s.pollMaxS} s) + 1.2 × the local p99 = ${ms(v.unpokedTargetMs)} | ${pct(v.unpoked)} | ${verdict(v.unpoked.max <= v.unpokedTargetMs)} |`,
    `| pulling adds ≤ ${fmtBytes(TARGETS.rssAddedBytes)} to an instance's peak RSS | ${signedBytes(v.rssAddedBytes)} (largest instance growth ${fmtBytes(Math.max(...r.memory.instancePeakGrowthBytes))} − local push growth ${fmtBytes(r.memory.localPeakGrowthBytes)}; each instance: ${r.memory.instancePeakGrowthBytes.map(fmtBytes).join(", ")}) | ${verdict(v.rssAddedBytes <= TARGETS.rssAddedBytes)} |`,
    `| an idle fleet: at most one request per instance per \`ORIGIN_POLL_MIN_S\` (${s.pollMinS} s), each answered 304 | at most ${v.idleWorstPolls} polls per instance in ${r.idle.windowS} s (allowed ${v.idlePollsAllowed}: one per ${s.pollMinS} s, plus one at the window's edge); ${v.idleOnly304 ? "every one 304" : "not all 304"}, ${r.idle.instances.map((i) => i.bytes).join("/")} body bytes | ${verdict(v.idleWorstPolls <= v.idlePollsAllowed && v.idleOnly304)} |`,
    "",
    "### Setup",
    "",
    `- ${s.instances} instances (the built gateway, \`GATEWAY_THREADS=${s.threadsPerInstance}\`, \`QUOTA_STORE=redis\`, \`ORIGIN_POLL_MIN_S=${s.pollMinS}\`, \`ORIGIN_POLL_MAX_S=${s.pollMaxS}\`, each its own empty \`SNAPSHOT_DIR\`), an nginx origin (${s.nginx.replace(/^nginx version: /, "")}, a static root with its ETags, over HTTP on loopback), ${s.redis} for the poke.`,
    `- Each generation changes the largest sample chain (${s.chainId}: ${s.chainPools.toLocaleString("en-US")} pools, ${fmtBytes(s.chainFileBytes)}): a later \`generatedAt\` and ${s.changedPoolsPerGeneration} pools' 24 h volume. It is published with \`publish\` (in-process, to the nginx root as \`file:\`), with the poke through Redis or without it; the time runs from the start of the publish to the last instance whose \`/ready\` version changed (polled every 20 ms).`,
    `- Local push: the same files renamed into a single gateway's directory (1 thread, no origin), rename → its \`/ready\` version changed.`,
    `- Peak RSS: each process's VmHWM after the generations minus its RSS before them (reset with \`clear_refs\`).`,
    "- Idle: no publish for the window; polls and body bytes from each instance's `gateway_origin_polls_total` and `gateway_origin_bytes_total`.",
    "",
    "### Figures",
    "",
    `- Local push → served: ${pct(v.local)}. With ${v.poked.n} generations, p99 is the slowest one.`,
    `- With the poke: ${pct(v.poked)}; publishing itself p50 ${ms(percentiles(r.generations.filter((g) => g.poke).map((g) => g.publishMs)).p50)}. Each instance polls a uniform 0-2 s after the poke (so a fleet does not hit the origin at once), then fetches the changed file and builds it like a local push; the three instances build on the same 2 cores at once.`,
    `- Without it: ${pct(v.unpoked)}: the next poll, uniform in [${s.pollMinS}, ${s.pollMaxS}] s after the last.`,
    `- Every instance served the same snapshot version after each generation: ${r.generations.every((g) => g.sameVersion) ? "yes" : "**no**"}.`,
    "",
    "| generation | poke | publish | instances serving it (ms after the publish started) |",
    "|---|---|---|---|",
    ...r.generations.map(
      (g) => `| ${g.generation} | ${g.poke ? "yes" : "no"} | ${ms(g.publishMs)} | ${g.servedMs.map((x) => fmt(x, 0)).join(", ")} |`,
    ),
  ].join("\n");
}
