/**
 * GET /v1/changes (live.md §14) and GET /v1/status (§15): the change sets
 * served after a position, in pages, and the freshness of every chain the
 * key may read (and the origin's state, fleet.md §20). Both answer from the served snapshot's change history
 * (src/serving/served-changes.ts).
 */
import typia from "typia";
import type { ChangesQuery } from "../../api/wire.js";
import type { ChainId } from "../../chains/chains.js";
import { changesPage, type ChangesWalk } from "../../query/changes-walk.js";
import { PositionWriter } from "../../query/cursor.js";
import { decodePosition, encodePosition, parsePosition } from "../../query/positions.js";
import { assertPositionComplete, invalidCursor, openCursor } from "../../serving/list-cursor.js";
import type { ServingSnapshot } from "../../serving/serving-snapshot.js";
import type { ChangeSetRecord } from "../../tables/change-sets.js";
import { requireSnapshot } from "../chain-availability.js";
import { parseQuery } from "../query-params.js";
import { dataReply, type Chunk, type Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { resolveChains, searchedChains } from "../token-chains.js";
import { validateNoQuery } from "./token-lookup.js";
import { originStatus } from "../../origin/origin-status.js";

/** Entries of a page when the request names no `limit`. */
export const DEFAULT_CHANGES_LIMIT = 1000;

const validateChangesQuery = typia.createValidateEquals<ChangesQuery>();

export function getChanges(request: KeyedRequest): Reply {
  const params = parseQuery(request.query, { chainIds: "numbers", limit: "number" }, validateChangesQuery);
  const since = parsePosition(params.since);
  const named = [...(params.chainIds ?? [])].sort((a, b) => a - b);
  const current = request.ctx.store.current;
  const scope = resolveChains({ chainIds: named }, request.key, current);
  const snapshot = requireSnapshot(current);
  const chains = searchedChains(scope, snapshot);
  const limit = params.limit ?? DEFAULT_CHANGES_LIMIT;

  const { cursors } = request.ctx;
  const cursorScope = cursors.scope(request.routeName, `${params.since}\n${named.join(",")}`);
  const decoded = openCursor(cursors, cursorScope, params.cursor);
  let from: ChangesWalk | null = null;
  if (decoded !== null) {
    const r = decoded.position;
    const untilText = r.string();
    const untilSeq = r.u32();
    const walkChains = r.u32();
    const chainId = r.u32() as ChainId;
    const seq = r.u32();
    const index = r.u32();
    assertPositionComplete(decoded, params.cursor!);
    const until = decodePosition(untilText);
    if (until === null) throw invalidCursor(params.cursor!, "The cursor was not issued by this gateway or was altered.");
    from = { until, untilSeq, chains: walkChains, chainId, seq, index };
  }

  const page = changesPage(snapshot.changes.history, since, chains, limit, from);
  const data: Chunk[] = ['{"changes":['];
  let head: ChangeSetRecord | null = null;
  let headJson = "";
  page.entries.forEach((entry, k) => {
    if (entry.set !== head) {
      head = entry.set;
      headJson = entryHead(entry.set);
    }
    data.push(`${k > 0 ? "," : ""}${headJson},"kind":"${entry.kind}","address":"${entry.address}","change":"${entry.change}"}`);
  });
  const untilText = encodePosition(page.until);
  let nextCursor: string | null = null;
  if (page.next !== null) {
    const n = page.next;
    const position = new PositionWriter().string(untilText).u32(n.untilSeq).u32(n.chains).u32(n.chainId).u32(n.seq).u32(n.index).bytes();
    nextCursor = cursors.encode(cursorScope, snapshot.version, position);
  }
  data.push(`],"resync":${JSON.stringify(page.resync)},"position":"${untilText}","nextCursor":${JSON.stringify(nextCursor)}}`);
  return dataReply(data, snapshot.versionHex);
}

/** `{"chainId":…,"id":…,"previous":…,"generatedAt":…,"servedAt":…` of a set's entries (ChangeEntry, keys in order). */
function entryHead(set: ChangeSetRecord): string {
  return `{"chainId":${set.chainId},"id":"${set.id}","previous":${set.previous === null ? "null" : `"${set.previous}"`},"generatedAt":${set.generatedAt},"servedAt":"${set.servedAt}"`;
}

export function getStatus(request: KeyedRequest): Reply {
  parseQuery(request.query, {}, validateNoQuery);
  const snapshot = requireSnapshot(request.ctx.store.current);
  const chains = readableChains(request, snapshot);
  const nowSeconds = Date.now() / 1000;
  const entries: string[] = [];
  const position = new Map<ChainId, string>();
  for (const chainId of chains) {
    const latest = snapshot.changes.latest(chainId);
    const info = snapshot.hasPools ? snapshot.chains.get(chainId)?.info : undefined;
    if (latest === undefined || info === undefined) continue;
    position.set(chainId, latest.id);
    const ageSeconds = Math.max(0, Math.floor(nowSeconds - latest.generatedAt));
    entries.push(
      `{"chainId":${chainId},"generatedAt":${latest.generatedAt},"blockNumber":${latest.blockNumber ?? "null"},"servedAt":"${latest.servedAt}","ageSeconds":${ageSeconds},"id":"${latest.id}","pools":${info.poolCount},"tokens":${info.tokenCount}}`,
    );
  }
  const text = encodePosition(position);
  const record = request.ctx.origin;
  const origin = record === null ? "null" : JSON.stringify(originStatus(record, Date.now()));
  return dataReply(
    [`{"position":"${text}","chains":[${entries.join(",")}],"origin":${origin},"history":${historyStatus(request)}}`],
    snapshot.versionHex,
  );
}

/** `history` of the status (HistoryStatus): the history thread's shared cells. */
function historyStatus(request: KeyedRequest): string {
  const history = request.ctx.history;
  if (history === null) return '{"state":"off","lastObservedAt":null,"bytes":0}';
  const { state, lastObservedAt, bytes } = history.status;
  return `{"state":"${state}","lastObservedAt":${lastObservedAt > 0 ? lastObservedAt : "null"},"bytes":${bytes}}`;
}

/** The loaded chains the key may read, ascending. */
function readableChains(request: KeyedRequest, snapshot: ServingSnapshot): ChainId[] {
  const allowed = request.key.chainIds;
  return snapshot.chainIds.filter((chainId) => allowed === null || allowed.has(chainId));
}
