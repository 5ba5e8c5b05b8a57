/**
 * Decides which pools exist on a chain: pairs between the major assets, one
 * pool for every minor token, then more pools for the most liquid minor
 * tokens until the scale's target is reached, and at least one pool per
 * protocol deployment.
 */
import type { ChainContext } from "./chain-context.js";
import type { ProtocolDeployment } from "./protocol-catalog.js";
import type { Rng } from "./random.js";
import type { TokenEntry } from "./token-record.js";

export interface PoolPlan {
  readonly deployment: ProtocolDeployment;
  readonly a: TokenEntry;
  readonly b: TokenEntry;
  /** The minor token whose liquidity this pool holds a share of; null for pairs of majors. */
  readonly subject: TokenEntry | null;
  /** The subject's relative share across its pools (Pareto: a few pools hold most of it). */
  readonly weight: number;
}

class PlanBook {
  readonly plans: PoolPlan[] = [];
  private readonly v2Pairs = new Set<string>();

  constructor(private readonly deployments: readonly ProtocolDeployment[]) {}

  /** Adds a plan; a V2 factory has one pool per pair, so duplicates move to another protocol. */
  add(rng: Rng, plan: PoolPlan): boolean {
    let deployment = plan.deployment;
    if (deployment.type === "V2") {
      const key = `${deployment.protocolId}|${Math.min(plan.a.index, plan.b.index)}|${Math.max(plan.a.index, plan.b.index)}`;
      if (this.v2Pairs.has(key)) {
        const others = this.deployments.filter((d) => d.type !== "V2");
        if (others.length === 0) return false;
        deployment = rng.weighted(others, (d) => d.weight);
      } else {
        this.v2Pairs.add(key);
      }
    }
    this.plans.push(deployment === plan.deployment ? plan : { ...plan, deployment });
    return true;
  }
}

function pickDeployment(rng: Rng, deployments: readonly ProtocolDeployment[]): ProtocolDeployment {
  return rng.weighted(deployments, (d) => d.weight);
}

function pairProbability(a: TokenEntry, b: TokenEntry): number {
  if (a.quoteWeight > 0 && b.quoteWeight > 0) return 1;
  const quote = Math.max(a.quoteWeight, b.quoteWeight);
  return quote > 0 ? Math.min(1, 0.3 + 0.12 * quote) : 0.08;
}

function planMajorPairs(rng: Rng, book: PlanBook, deployments: readonly ProtocolDeployment[], cores: readonly TokenEntry[]): void {
  for (let i = 0; i < cores.length; i++) {
    for (let j = i + 1; j < cores.length; j++) {
      const a = cores[i] as TokenEntry;
      const b = cores[j] as TokenEntry;
      if (!rng.chance(pairProbability(a, b))) continue;
      const count = rng.int(1, a.quoteWeight > 0 && b.quoteWeight > 0 ? 4 : 2);
      for (let k = 0; k < count; k++) book.add(rng, { deployment: pickDeployment(rng, deployments), a, b, subject: null, weight: 1 });
    }
  }
}

/** Cumulative weights for O(log n) weighted picks over many subjects. */
function cumulative(subjects: readonly TokenEntry[]): Float64Array {
  const sums = new Float64Array(subjects.length);
  let total = 0;
  for (let i = 0; i < subjects.length; i++) {
    total += Math.sqrt((subjects[i] as TokenEntry).record.trackedTotalValuePooledUsd + 1);
    sums[i] = total;
  }
  return sums;
}

function pickCumulative<T>(rng: Rng, items: readonly T[], sums: Float64Array): T {
  const target = rng.next() * (sums[sums.length - 1] as number);
  let lo = 0;
  let hi = sums.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sums[mid] as number) > target) hi = mid;
    else lo = mid + 1;
  }
  return items[lo] as T;
}

function subjectPlan(
  rng: Rng,
  deployments: readonly ProtocolDeployment[],
  quotes: readonly TokenEntry[],
  subject: TokenEntry,
  other: TokenEntry | null,
): PoolPlan {
  const counterpart = other ?? rng.weighted(quotes, (q) => q.quoteWeight);
  return { deployment: pickDeployment(rng, deployments), a: subject, b: counterpart, subject, weight: Math.min(rng.pareto(1, 1.1), 1_000) };
}

export function planPools(ctx: ChainContext, tokens: readonly TokenEntry[]): PoolPlan[] {
  const rng = ctx.rng.fork("plans");
  const deployments = ctx.profile.deployments;
  const book = new PlanBook(deployments);
  const cores = tokens.filter((t) => t.role === "wrapped-native" || t.role === "major");
  const quotes = tokens.filter((t) => t.quoteWeight > 0);
  const subjects = tokens.filter((t) => t.role === "special" || t.role === "shared" || t.role === "tail");

  planMajorPairs(rng, book, deployments, cores);
  for (const subject of subjects) book.add(rng, subjectPlan(rng, deployments, quotes, subject, null));

  const sums = cumulative(subjects);
  const target = ctx.scale.chains[ctx.chainId].pools;
  for (let attempts = 0; book.plans.length < target && attempts < target * 2; attempts++) {
    const subject = pickCumulative(rng, subjects, sums);
    let other: TokenEntry | null = null;
    if (rng.chance(0.15)) {
      const candidate = rng.pick(subjects);
      if (candidate !== subject) other = candidate;
    }
    book.add(rng, subjectPlan(rng, deployments, quotes, subject, other));
  }

  ensureEveryDeployment(book, deployments, cores);
  return book.plans;
}

/** Every protocol listed in the snapshot must have at least one pool. */
function ensureEveryDeployment(book: PlanBook, deployments: readonly ProtocolDeployment[], cores: readonly TokenEntry[]): void {
  const used = new Set(book.plans.map((p) => p.deployment.protocolId));
  const [first, second] = [...cores].sort((x, y) => y.quoteWeight - x.quoteWeight);
  if (!first || !second) throw new Error("a chain needs at least two core assets");
  for (const deployment of deployments) {
    if (!used.has(deployment.protocolId)) book.plans.push({ deployment, a: first, b: second, subject: null, weight: 1 });
  }
}
