/**
 * A full garbage collection of this thread's heap, on demand, when it costs
 * nobody a wait.
 *
 * Snapshot columns live in SharedArrayBuffers shared by every thread; their
 * memory returns to the system only once every thread has collected its
 * handles to them. A thread that retires a snapshot version allocates little
 * afterwards when it is idle, so V8 may not collect for minutes and the old
 * version's hundreds of megabytes stay resident. The threads that drop a
 * version ask for one collection instead (debounced: several drops in a row
 * cost one).
 *
 * A forced collection stops the thread for as long as marking its heap takes
 * (several milliseconds on a serving thread), and every request it holds
 * waits that long. So it runs at once only when the thread is idle. A busy
 * thread collects anyway, on its own, every second or so (the requests
 * allocate): once two full collections have begun since the drop (the second
 * necessarily marked after it), the handles are gone and nothing is forced.
 * Only when neither happens within MAX_DEFER_MS is the collection forced.
 *
 * V8's `gc` function is installed only in contexts created after the
 * `--expose-gc` flag is set; setting it at run time and taking `gc` from a
 * new context leaves the process's own flags and globals unchanged.
 */
import { constants, performance, PerformanceObserver, type EventLoopUtilization } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** How often the thread's load is looked at (also the debounce of several drops in a row). */
const CHECK_MS = 200;
/** Event-loop utilization over the last check below which the thread counts as idle. */
const IDLE_UTILIZATION = 0.2;
/** Longest a drop waits for the thread to be idle or to collect on its own. */
export const MAX_DEFER_MS = 3000;

let gc: (() => void) | null | undefined;
/** The thread's own full collections (mark-compact) so far, counted once something asked for a collection. */
let majorCollections = 0;
let observer: PerformanceObserver | null = null;
let pending: NodeJS.Timeout | null = null;

function gcFunction(): (() => void) | null {
  if (gc === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      const found: unknown = runInNewContext("typeof gc === 'function' ? gc : null");
      gc = typeof found === "function" ? (found as () => void) : null;
    } catch {
      gc = null;
    }
  }
  return gc;
}

function countMajorCollections(): void {
  if (observer !== null) return;
  observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorCollections++;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
}

export type CollectionStep = "collected" | "collect" | "wait";

/**
 * What a check decides: `collected` when the thread has begun two full collections of its own since the
 * last drop, `collect` (force one) when it was idle since the last check or the first drop has waited
 * MAX_DEFER_MS, else `wait`.
 */
export function collectionStep(majorsSinceDrop: number, utilization: number, waitedMs: number): CollectionStep {
  if (majorsSinceDrop >= 2) return "collected";
  if (utilization < IDLE_UTILIZATION || waitedMs >= MAX_DEFER_MS) return "collect";
  return "wait";
}

/** A full collection now (a thread with no one waiting on it: an idle build worker); false when this runtime cannot. */
export function collectGarbageNow(): boolean {
  const collect = gcFunction();
  if (collect === null) return false;
  collect();
  return true;
}

/** Full collections counted when the latest drop asked. */
let majorsAtDrop = 0;
let firstAskedAt = 0;

/** Collects garbage soon (see above: at once when idle, else when the thread has not); false when this runtime cannot. */
export function collectGarbageSoon(): boolean {
  const collect = gcFunction();
  if (collect === null) return false;
  countMajorCollections();
  // Every drop counts the thread's own collections from itself; the deadline runs from the first.
  majorsAtDrop = majorCollections;
  if (pending !== null) return true;
  firstAskedAt = performance.now();
  let since: EventLoopUtilization = performance.eventLoopUtilization();
  const check = () => {
    const load = performance.eventLoopUtilization(since);
    since = performance.eventLoopUtilization();
    const step = collectionStep(majorCollections - majorsAtDrop, load.utilization, performance.now() - firstAskedAt);
    if (step === "wait") {
      pending = setTimeout(check, CHECK_MS).unref();
      return;
    }
    pending = null;
    if (step === "collect") collect();
  };
  pending = setTimeout(check, CHECK_MS).unref();
  return true;
}
