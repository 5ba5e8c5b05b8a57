/**
 * Names (key ids, client addresses) known to be refused until a moment, so
 * that a serving thread answers them without asking the shared quota store
 * again until their window turns. Bounded: at most `capacity` names; when
 * full, expired names are swept (at most once per `sweepEveryMs`, so a flood
 * of new names cannot make every request pay a sweep) and a name that still
 * does not fit is simply not remembered (the store is asked again next time).
 * One per serving thread; never shared.
 */
export class RefusalCache {
  private readonly until = new Map<string, number>();
  private sweptAt = -Infinity;

  constructor(
    private readonly capacity: number,
    private readonly sweepEveryMs = 1000,
  ) {}

  /** Milliseconds `name` stays refused at `nowMs` (0: not refused). */
  remainingMs(name: string, nowMs: number): number {
    const until = this.until.get(name);
    if (until === undefined) return 0;
    if (until > nowMs) return until - nowMs;
    this.until.delete(name);
    return 0;
  }

  /** Refuses `name` until `untilMs` (epoch ms of this thread's clock). */
  refuse(name: string, untilMs: number, nowMs: number): void {
    if (untilMs <= nowMs) return;
    if (!this.until.has(name) && this.until.size >= this.capacity) {
      if (nowMs - this.sweptAt < this.sweepEveryMs) return;
      this.sweptAt = nowMs;
      for (const [n, u] of this.until) if (u <= nowMs) this.until.delete(n);
      if (this.until.size >= this.capacity) return;
    }
    this.until.set(name, untilMs);
  }

  /** Forgets every name (e.g. the keys file changed: limits may have too). */
  clear(): void {
    this.until.clear();
  }

  get size(): number {
    return this.until.size;
  }
}
