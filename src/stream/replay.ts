/**
 * What a stream opening with `since` missed (live.md §13, `since` and
 * `Last-Event-ID`): per chain it holds (chains ascending), the `changes` events
 * after the position, or `resync`; then one event with the current state of
 * each held pool or token that changed (all of a resync chain's). Pure, like
 * src/query/resume.ts, whose rules it applies chain by chain: the same
 * snapshot, topics and position give the same events. Bounded by the
 * connection's topics times the retained sets.
 */
import type { ChainId } from "../chains/chains.js";
import { encodePosition, type Position } from "../query/positions.js";
import { resumeChain } from "../query/resume.js";
import type { ChangeSetRecord } from "../tables/change-sets.js";
import { listIncludes } from "./address-lists.js";
import { changesEventJson, recordEventJson, resyncEventJson, type StreamEventType } from "./stream-events.js";
import { recordJson, type SwappedSnapshot } from "./swapped-snapshot.js";
import type { Topic } from "./topics.js";

/** One event for one connection: its type, the position after it (null: none), its JSON. */
export interface StreamEvent {
  readonly type: StreamEventType;
  readonly position: string | null;
  readonly json: Buffer | string;
}

/**
 * The events a connection holding `held` (its uWS topics: `changes:<c>`, `pool:…`, `token:…`) missed since
 * `since`, from the published snapshot `published`, in the order they are sent.
 */
export function replayEvents(published: SwappedSnapshot, held: readonly Topic[], since: Position, maxAddresses: number): StreamEvent[] {
  const events: StreamEvent[] = [];
  const changeChains = new Set<ChainId>();
  const records = new Map<ChainId, Topic[]>();
  for (const topic of held) {
    const chainId = topic.chainId!;
    if (topic.kind === "changes") changeChains.add(chainId);
    else {
      let list = records.get(chainId);
      if (list === undefined) records.set(chainId, (list = []));
      list.push(topic);
    }
  }
  const running = new Map(since);
  const resumed = new Map<ChainId, readonly ChangeSetRecord[] | null>();
  for (const [chainId, sets] of published.snapshot.changes.history) {
    if (!changeChains.has(chainId) && !records.has(chainId)) continue;
    const found = resumeChain(sets, since.get(chainId));
    resumed.set(chainId, found);
    if (found === null) {
      running.set(chainId, sets[sets.length - 1].id);
      if (changeChains.has(chainId)) {
        const position = encodePosition(running);
        events.push({ type: "resync", position, json: resyncEventJson(chainId, position) });
      }
      continue;
    }
    for (const set of found) {
      running.set(chainId, set.id);
      if (!changeChains.has(chainId)) continue;
      const position = encodePosition(running);
      events.push({ type: "changes", position, json: changesEventJson(set, position, maxAddresses) });
    }
  }
  if (records.size === 0) return events;
  const position = encodePosition(running);
  for (const [chainId, topics] of records) {
    const found = resumed.get(chainId);
    if (found === undefined) continue; // the chain is not served here: nothing is known of it
    for (const topic of topics) {
      const kind = topic.kind as "pool" | "token";
      const address = topic.address!;
      if (found !== null && !found.some((set) => touches(set, kind, address))) continue;
      const record = recordJson(published, kind, chainId, address);
      events.push({ type: kind, position, json: recordEventJson(kind, position, chainId, address, record) });
    }
  }
  return events;
}

/** Whether the set upserted or removed the pool (or token) at `address`. */
function touches(set: ChangeSetRecord, kind: "pool" | "token", address: string): boolean {
  return kind === "pool"
    ? listIncludes(set.poolsUpserted, address) || listIncludes(set.poolsRemoved, address)
    : listIncludes(set.tokensUpserted, address) || listIncludes(set.tokensRemoved, address);
}
