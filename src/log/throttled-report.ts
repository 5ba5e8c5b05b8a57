/**
 * Reports a recurring failure without one log line per occurrence: the first
 * occurrence is reported at once, later ones at most once per `everyMs` with
 * how many were not reported in between. Pure (time is passed in); the caller
 * logs what `occurred` returns.
 */
export class ThrottledReport {
  private reportedAt = -Infinity;
  private unreported = 0;

  constructor(private readonly everyMs: number) {}

  /** Counts one occurrence; returns the number of earlier occurrences not reported when this one is to be reported, else null. */
  occurred(nowMs: number): number | null {
    if (nowMs - this.reportedAt < this.everyMs) {
      this.unreported++;
      return null;
    }
    const skipped = this.unreported;
    this.reportedAt = nowMs;
    this.unreported = 0;
    return skipped;
  }

  /** The failure ended: the next occurrence is reported at once. Returns the occurrences not reported. */
  reset(): number {
    const skipped = this.unreported;
    this.reportedAt = -Infinity;
    this.unreported = 0;
    return skipped;
  }
}
