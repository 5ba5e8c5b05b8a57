/**
 * A full garbage collection of this thread's heap, on demand.
 *
 * Snapshot columns live in SharedArrayBuffers shared by every thread; their
 * memory returns to the system only once every thread has collected its
 * handles to them. A thread that retires a snapshot version allocates little
 * afterwards, so V8 may not collect for minutes and the old version's
 * hundreds of megabytes stay resident. The threads that drop a version ask
 * for one collection instead (debounced: several drops in a row cost one).
 *
 * V8's `gc` function is installed only in contexts created after the
 * `--expose-gc` flag is set; setting it at run time and taking `gc` from a
 * new context leaves the process's own flags and globals unchanged.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const DEBOUNCE_MS = 200;

let gc: (() => void) | null | undefined;
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

/** Collects garbage soon (once for every request made within DEBOUNCE_MS); false when this runtime cannot. */
export function collectGarbageSoon(): boolean {
  const collect = gcFunction();
  if (collect === null) return false;
  if (pending === null) {
    pending = setTimeout(() => {
      pending = null;
      collect();
    }, DEBOUNCE_MS);
    pending.unref();
  }
  return true;
}
