/**
 * Summaries of repeated measurements (pure): the median of the rounds with
 * their spread, and ratios of paired rounds (server A against server B in the
 * same round, so drifting background load on a shared machine falls on both).
 */

export interface Spread {
  /** Number of rounds. */
  readonly n: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** (max − min) / median, in %; 0 for one round, NaN when the median is 0. */
  readonly spreadPercent: number;
}

/** The median (the mean of the two middle values for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median, range and relative spread of the finite values (rounds that failed to measure are NaN and left out). */
export function summarise(values: readonly number[]): Spread {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { n: 0, median: NaN, min: NaN, max: NaN, spreadPercent: NaN };
  const m = median(finite);
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  return { n: finite.length, median: m, min, max, spreadPercent: m === 0 ? NaN : ((max - min) / m) * 100 };
}

/**
 * a[i] / b[i] for every round i both measured, summarised. The arrays are the
 * same rounds of two servers; rounds missing on either side are left out.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): Spread {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (Number.isFinite(a[i]) && Number.isFinite(b[i]) && b[i] > 0) ratios.push(a[i] / b[i]);
  }
  return summarise(ratios);
}

/** Server CPU per completed request, µs; NaN without requests or a CPU reading. */
export function cpuMicrosPerRequest(cpuSeconds: number, requests: number): number {
  return requests > 0 && Number.isFinite(cpuSeconds) ? (cpuSeconds / requests) * 1e6 : NaN;
}

/** Latency percentiles of a run, in milliseconds (NaN where a load generator gave no figure). */
export interface LatencySummary {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly mean: number;
}
