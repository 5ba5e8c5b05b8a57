/**
 * Pool statistics over 24h/7d/30d/90d. Windows are cumulative (the 7d volume
 * includes the 24h volume...), yield is the annualized fee return in percent,
 * and the net inflow is a random walk that may be negative.
 */
import type { PeriodStats, PoolStats } from "../../src/api/snapshot-format.js";
import { clamp, significant, usd } from "./numbers.js";
import type { Rng } from "./random.js";

const WINDOWS = [1, 7, 30, 90] as const;

function period(tvl: number, feePercent: number, days: number, volume: number, netInflow: number, liquidityVolume: number): PeriodStats {
  const feesUsd = usd((volume * feePercent) / 100);
  return {
    feesUsd,
    swapVolumeUsd: usd(volume),
    yield: tvl > 0 ? significant((feesUsd / tvl) * (365 / days) * 100, 6) : 0,
    netInflowUsd: usd(netInflow),
    liquidityVolumeUsd: usd(liquidityVolume),
  };
}

export function poolStats(rng: Rng, tvl: number, feePercent: number): PoolStats {
  const active = tvl > 50 || rng.chance(0.2);
  const dailyTurnover = active ? clamp(rng.logNormal(0.04, 1.3), 0, 8) : 0;
  const dailyChurn = clamp(rng.logNormal(0.01, 1), 0, 2);

  let volume = 0;
  let netInflow = 0;
  let liquidityVolume = 0;
  let previousDays = 0;
  const periods: PeriodStats[] = [];
  for (const days of WINDOWS) {
    const span = days - previousDays;
    volume += tvl * dailyTurnover * span * rng.logNormal(1, 0.3);
    const flow = tvl * rng.normal() * 0.02 * Math.sqrt(span);
    netInflow = Math.max(netInflow + flow, -tvl);
    liquidityVolume += Math.abs(flow) + tvl * dailyChurn * span * rng.logNormal(1, 0.3);
    periods.push(period(tvl, feePercent, days, volume, netInflow, liquidityVolume));
    previousDays = days;
  }
  const [stats24h, stats7d, stats30d, stats90d] = periods as [PeriodStats, PeriodStats, PeriodStats, PeriodStats];
  return { stats24h, stats7d, stats30d, stats90d };
}
