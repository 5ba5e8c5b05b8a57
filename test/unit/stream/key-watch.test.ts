/**
 * KeyWatch (src/stream/key-watch.ts): which open streams a keys reload checks, and that the expiry of the
 * earliest key holding streams checks that key's streams only, at its time (fake timers).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { KeyStore, type KeyEntry } from "../../../src/access/key-store.js";
import { parseKeysFile, type ApiKeyRecord } from "../../../src/access/keys-file.js";
import { KeyWatch } from "../../../src/stream/key-watch.js";

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);

function storeOf(...records: ApiKeyRecord[]): KeyStore {
  return new KeyStore(parseKeysFile(JSON.stringify({ keys: records }), "keys.json"));
}

function record(id: string, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return { id, name: id, sha256: KeyStore.hashKey(`lgw_watch_${id}_0123456789abcdef`), status: "active", ...extra };
}

interface Stream {
  key: KeyEntry;
  open: boolean;
  name: string;
}

describe("KeyWatch", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());

  function setUp(store: KeyStore) {
    const checked: string[] = [];
    /** Streams of a key named in `refuse` are refused (closed) when checked. */
    const refuse = new Set<string>();
    const watch = new KeyWatch<Stream>(
      store,
      (stream, keys) => {
        checked.push(stream.name);
        if (refuse.has(stream.key.id)) {
          stream.open = false;
          return false;
        }
        stream.key = keys.getById(stream.key.id) ?? stream.key;
        return true;
      },
      (stream) => stream.open,
    );
    return { watch, checked, refuse };
  }

  it("a reload checks every open stream, once; a closed one is no longer watched", () => {
    const store = storeOf(record("a"), record("b"));
    const { watch, checked } = setUp(store);
    const a1 = { key: store.getById("a")!, open: true, name: "a1" };
    const a2 = { key: store.getById("a")!, open: true, name: "a2" };
    const b1 = { key: store.getById("b")!, open: true, name: "b1" };
    for (const s of [a1, a2, b1]) watch.track(s);
    watch.untrack(a2);
    a2.open = false;
    watch.keysChanged(storeOf(record("a"), record("b")), NOW);
    expect(checked.sort()).toEqual(["a1", "b1"]);
  });

  it("at the earliest expiry, only that key's streams are checked; the next expiry is then waited for", () => {
    const soon = new Date(NOW + 60_000).toISOString();
    const later = new Date(NOW + 3_600_000).toISOString();
    const store = storeOf(record("a", { expiresAt: soon }), record("b", { expiresAt: later }), record("c"));
    const { watch, checked, refuse } = setUp(store);
    for (const [id, name] of [
      ["a", "a1"],
      ["b", "b1"],
      ["c", "c1"],
    ])
      watch.track({ key: store.getById(id)!, open: true, name });
    refuse.add("a");
    refuse.add("b");
    vi.advanceTimersByTime(59_999);
    expect(checked).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(checked).toEqual(["a1"]);
    vi.advanceTimersByTime(3_540_000);
    expect(checked).toEqual(["a1", "b1"]);
    // Refused streams are gone; c never expires: nothing more is checked.
    vi.advanceTimersByTime(10 * 3_600_000);
    expect(checked).toEqual(["a1", "b1"]);
  });

  it("after stop, no expiry fires", () => {
    const store = storeOf(record("a", { expiresAt: new Date(NOW + 1000).toISOString() }));
    const { watch, checked } = setUp(store);
    watch.track({ key: store.getById("a")!, open: true, name: "a1" });
    watch.stop();
    vi.advanceTimersByTime(5000);
    expect(checked).toEqual([]);
  });

  it("a stream admitted under an earlier keys file is checked against the current one on the next turn", () => {
    const before = storeOf(record("a"));
    const { watch, checked } = setUp(storeOf(record("a", { chainIds: [1] })));
    watch.track({ key: before.getById("a")!, open: true, name: "a1" });
    expect(checked).toEqual([]);
    vi.runAllTicks();
    vi.advanceTimersByTime(0);
    expect(checked).toEqual(["a1"]);
  });
});
