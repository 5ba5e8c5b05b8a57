/**
 * The page a request asks for, for every cursor-paged list (api-decisions.md
 * §3.6-3.7, api-extended.md §7): the first page, or the page after a cursor —
 * on the cursor's snapshot while it is kept (by offset), else on the current
 * one after the cursor's last sort key — and the cursor of the next page,
 * null exactly at the end.
 */
import { PositionWriter, type CursorCodec } from "../query/cursor.js";
import type { CursorKeyCodec, PagedList } from "../query/paged-list.js";
import { assertPositionComplete, openCursor } from "./list-cursor.js";
import type { ServingSnapshot } from "./serving-snapshot.js";
import type { SnapshotStore } from "./snapshot-store.js";
import { CursorKind } from "./version-retention.js";

/** What paging reads in a serving thread: the snapshots kept for cursors, and the cursor codec. */
export interface Paging {
  readonly store: SnapshotStore;
  readonly cursors: CursorCodec;
}

export interface Page<K> {
  /** The snapshot that answered. */
  readonly snapshot: ServingSnapshot;
  readonly list: PagedList<K>;
  readonly start: number;
  readonly end: number;
  /** JSON of `nextCursor`: a string literal, or `null`. */
  readonly nextCursor: string;
}

/**
 * @param scope the cursor scope of the route and the effective query
 * @param listOn the request's full list on a snapshot
 */
export function findPage<K>(
  ctx: Paging,
  served: ServingSnapshot,
  scope: Buffer,
  cursorText: string | null | undefined,
  limit: number,
  codec: CursorKeyCodec<K>,
  listOn: (snapshot: ServingSnapshot) => PagedList<K>,
): Page<K> {
  let snapshot = served;
  let start = 0;
  const cursor = openCursor(ctx.cursors, scope, cursorText);
  if (cursor !== null) {
    const offset = cursor.position.u32();
    const key = codec.read(cursor.position);
    assertPositionComplete(cursor, cursorText ?? "");
    const kept = ctx.store.version(cursor.version);
    if (kept !== null) {
      snapshot = kept;
      start = Math.min(offset, listOn(kept).count);
    } else {
      start = listOn(served).indexAfter(key);
    }
  }
  const list = listOn(snapshot);
  const end = Math.min(list.count, start + limit);
  let nextCursor = "null";
  if (end < list.count) {
    nextCursor = list.cursors.json(end, scope, () =>
      ctx.cursors.encode(scope, snapshot.version, codec.write(list.keyOf(end - 1), new PositionWriter().u32(end)).bytes()),
    );
    // The version stays kept (its token index) while its cursors are in use.
    ctx.store.cursorIssued(snapshot, CursorKind.Tokens);
  }
  return { snapshot, list, start, end, nextCursor };
}

/** The page's entries as `[e1,e2,…]` pieces appended to `out`. */
export function pushEntries(out: (Uint8Array | string)[], page: Page<unknown>): (Uint8Array | string)[] {
  out.push("[");
  for (let e = page.start; e < page.end; e++) {
    if (e > page.start) out.push(",");
    out.push(page.list.entry(e));
  }
  out.push("]");
  return out;
}
