/**
 * Where a chain task's time went: the milliseconds each named stage took, in the order they ended, logged with
 * the build (snapshot-accepted's `stages`) so an operator sees what a push spent its time on.
 */
export type BuildStages = Readonly<Record<string, number>>;

export class StageClock {
  private last: number;
  private readonly stages: Record<string, number> = {};

  constructor(private readonly now: () => number = () => performance.now()) {
    this.last = now();
  }

  /** Ends the stage running since the last mark (or the start) under `name` (a repeated name adds up). */
  mark(name: string): void {
    const now = this.now();
    this.stages[name] = (this.stages[name] ?? 0) + Math.round(now - this.last);
    this.last = now;
  }

  /** Adds `ms` under `name` without ending the running stage (a part of a stage timed elsewhere: e.g. `finish.orders`). */
  add(name: string, ms: number): void {
    this.stages[name] = (this.stages[name] ?? 0) + Math.round(ms);
  }

  report(): BuildStages {
    return { ...this.stages };
  }
}
