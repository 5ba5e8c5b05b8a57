/**
 * What a handler answers. The app writes every reply (and every error) in one
 * place (response-writer.ts), so handlers never touch the uWS response.
 */

import type { HttpResponse } from "./uws.js";

/** A piece of a body: bytes, or text written as UTF-8. */
export type Chunk = Uint8Array | string;

/** A 200 success: `data` (its JSON, in pieces) inside the success envelope. */
export interface DataReply {
  readonly kind: "data";
  readonly data: readonly Chunk[];
  /** The snapshot that answered (`x-snapshot-version`); the current one when absent. */
  readonly snapshotVersion?: string;
  /**
   * A checksum that changes whenever the data bytes do (within one snapshot), when known beforehand (e.g. the
   * CRC-32 of a pool's JSON, computed at build): spares reading the data for the ETag. Absent: CRC-32 of the data.
   */
  readonly dataCrc?: number;
  /**
   * Names these data bytes within the snapshot (the same key always gives the same bytes), so their
   * compressed form is kept and reused: e.g. `pools.get:8453:<address>`. Absent: compressed per response.
   */
  readonly cacheKey?: string;
  /** `x-data-generated-at` of an answer about one chain: that chain's generatedAt as text (ServingSnapshot.dataGeneratedAt). */
  readonly dataGeneratedAt?: string;
  /**
   * How long caches may keep it without asking (absent: they revalidate): `immutable` for an answer that
   * never changes (closed history buckets), `short` for one that changes within seconds.
   */
  readonly cache?: "immutable" | "short";
}

/** A body sent as it is (operations endpoints: health, readiness, metrics, the OpenAPI document). */
export interface RawReply {
  readonly kind: "raw";
  readonly status: number;
  readonly contentType: string;
  readonly body: Chunk;
  /** Names these exact bytes (they never change while the process runs), so their compressed forms are kept. */
  readonly cacheKey?: string;
  /** The body compressed beforehand (GET /docs's bundled files, compressed at build): sent as is instead of compressing it. */
  readonly compressed?: { readonly gzip: Uint8Array; readonly br: Uint8Array };
  /** CRC-32 of the body, when known beforehand: spares reading a large body for its ETag on every request. */
  readonly crc?: number;
  /** Headers of this answer besides the common ones (e.g. GET /docs's Content-Security-Policy). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A response that stays open (GET /v1/stream over SSE): the writer writes the
 * status line and headers, then hands the response to `start`, which writes
 * the events until it calls `ended` (or the client goes away: the writer then
 * calls `aborted` on what `start` returned). `cancel` when it never starts
 * (HEAD, or the client left first).
 */
export interface EventStreamReply {
  readonly kind: "events";
  start(res: HttpResponse, ended: () => void): { aborted(): void };
  cancel(): void;
}

export type Reply = DataReply | RawReply | EventStreamReply;

export function dataReply(
  data: readonly Chunk[],
  snapshotVersion?: string,
  cacheKey?: string,
  dataCrc?: number,
  dataGeneratedAt?: string,
  cache?: DataReply["cache"],
): DataReply {
  // One object shape for every data reply (monomorphic on the hot path).
  return { kind: "data", data, snapshotVersion, dataCrc, cacheKey, dataGeneratedAt, cache };
}

export const EVENT_STREAM_CONTENT_TYPE = "text/event-stream";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

export function rawJson(status: number, body: Chunk): RawReply {
  return { kind: "raw", status, contentType: JSON_CONTENT_TYPE, body };
}
