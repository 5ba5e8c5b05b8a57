/** Rounding helpers so that generated values look like indexer output. */

/** Rounds a USD value to cents. */
export function usd(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Rounds to `digits` significant digits (0 stays 0). */
export function significant(value: number, digits = 6): number {
  if (value === 0 || !Number.isFinite(value)) return 0;
  return Number(value.toPrecision(digits));
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

export const DAY = 86_400;
