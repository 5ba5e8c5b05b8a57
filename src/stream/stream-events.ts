/**
 * The events of GET /v1/stream (live.md §13; one wire type each in
 * src/api/wire.ts: ChangesEvent, PoolEvent, TokenEvent, ResyncEvent,
 * SubscribedEvent, ErrorEvent), encoded as the JSON text every transport
 * sends: a WebSocket text message, or the `data` line of an SSE event. Keys
 * in the order of the wire types. An event is encoded once per swap and
 * thread, whatever the number of connections that get it; pool and token
 * records are the pre-encoded bytes the REST routes answer.
 */
import { versionHex } from "../api/snapshot-version.js";
import type { ChainId } from "../chains/chains.js";
import type { ChangeSetRecord } from "../tables/change-sets.js";
import type { StringColumn } from "../tables/shared-columns.js";

/** Stream transports (the gauge of open streams). */
export const STREAM_TRANSPORTS = ["websocket", "sse"] as const;
export type StreamTransport = (typeof STREAM_TRANSPORTS)[number];

/** Event types (the `type` of every event; the counter of events sent). */
export const STREAM_EVENT_TYPES = ["subscribed", "changes", "pool", "token", "resync", "error"] as const;
export type StreamEventType = (typeof STREAM_EVENT_TYPES)[number];

const QUOTE = 0x22;
const COMMA = 0x2c;

/** A column of lowercase addresses as a JSON array of strings (no character of theirs needs escaping). */
export function addressArrayJson(column: StringColumn): Buffer {
  const n = column.offsets.length - 1;
  const bytes = column.bytes;
  const start = column.offsets[0];
  const size = column.offsets[n] - start + 3 * n + 2 - (n > 0 ? 1 : 0);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  out[at++] = 0x5b;
  for (let i = 0; i < n; i++) {
    if (i > 0) out[at++] = COMMA;
    out[at++] = QUOTE;
    const from = column.offsets[i];
    const to = column.offsets[i + 1];
    out.set(bytes.subarray(from, to), at);
    at += to - from;
    out[at++] = QUOTE;
  }
  out[at++] = 0x5d;
  return out;
}

const EMPTY_LISTS = Buffer.from('{"upserted":[],"removed":[]}');

/**
 * A `changes` event. When a list is longer than `maxAddresses`, every list is
 * sent empty, with the four counts and `truncated: true` (GET /v1/changes
 * pages through the addresses).
 */
export function changesEventJson(set: ChangeSetRecord, position: string, maxAddresses: number): Buffer {
  const c = set.counts;
  const truncated =
    c.poolsUpserted > maxAddresses || c.poolsRemoved > maxAddresses || c.tokensUpserted > maxAddresses || c.tokensRemoved > maxAddresses;
  const head =
    `{"type":"changes","position":${JSON.stringify(position)},"chainId":${set.chainId},"id":${JSON.stringify(set.id)}` +
    `,"previous":${JSON.stringify(set.previous)},"generatedAt":${set.generatedAt},"blockNumber":${JSON.stringify(set.blockNumber)}` +
    `,"servedAt":${JSON.stringify(set.servedAt)},"snapshotVersion":"${versionHex(set.snapshotVersion)}","pools":`;
  if (truncated) {
    return Buffer.concat([
      Buffer.from(head),
      EMPTY_LISTS,
      Buffer.from(
        `,"tokens":{"upserted":[],"removed":[]},"poolsUpserted":${c.poolsUpserted},"poolsRemoved":${c.poolsRemoved}` +
          `,"tokensUpserted":${c.tokensUpserted},"tokensRemoved":${c.tokensRemoved},"truncated":true}`,
      ),
    ]);
  }
  return Buffer.concat([
    Buffer.from(head),
    UPSERTED,
    addressArrayJson(set.poolsUpserted),
    REMOVED,
    addressArrayJson(set.poolsRemoved),
    TOKENS_UPSERTED,
    addressArrayJson(set.tokensUpserted),
    REMOVED,
    addressArrayJson(set.tokensRemoved),
    NOT_TRUNCATED,
  ]);
}

const UPSERTED = Buffer.from('{"upserted":');
const REMOVED = Buffer.from(',"removed":');
const TOKENS_UPSERTED = Buffer.from('},"tokens":{"upserted":');
const NOT_TRUNCATED = Buffer.from('},"truncated":false}');

/**
 * A `pool` or `token` event: `record` is the record's JSON as the REST route
 * answers it (`data.pool` of GET /v1/pools/…, `data.token` of GET
 * /v1/tokens/{chainId}/…), in pieces; null when the record is removed.
 */
export function recordEventJson(
  kind: "pool" | "token",
  position: string,
  chainId: ChainId,
  address: string,
  record: readonly Uint8Array[] | null,
): Buffer {
  const head = Buffer.from(
    `{"type":"${kind}","position":${JSON.stringify(position)},"chainId":${chainId},"address":"${address}","${kind}":`,
  );
  if (record === null) return Buffer.concat([head, REMOVED_RECORD]);
  return Buffer.concat([head, ...record, UPSERTED_RECORD]);
}

const REMOVED_RECORD = Buffer.from('null,"removed":true}');
const UPSERTED_RECORD = Buffer.from(',"removed":false}');

export function resyncEventJson(chainId: ChainId, position: string): string {
  return `{"type":"resync","chainId":${chainId},"position":${JSON.stringify(position)}}`;
}

export function subscribedEventJson(topics: readonly string[], position: string): string {
  return `{"type":"subscribed","topics":${JSON.stringify(topics)},"position":${JSON.stringify(position)}}`;
}

/** An `error` event around the usual error object (built by the HTTP edge: bounded echoes). */
export function errorEventJson(error: object): string {
  return `{"type":"error","error":${JSON.stringify(error)}}`;
}
