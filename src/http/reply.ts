/**
 * What a handler answers. The app writes every reply (and every error) in one
 * place (response-writer.ts), so handlers never touch the uWS response.
 */

/** A piece of a body: bytes, or text written as UTF-8. */
export type Chunk = Uint8Array | string;

/** A 200 success: `data` (its JSON, in pieces) inside the success envelope. */
export interface DataReply {
  readonly kind: "data";
  readonly data: readonly Chunk[];
  /** The snapshot that answered (`x-snapshot-version`); the current one when absent. */
  readonly snapshotVersion?: string;
}

/** A body sent as it is (operations endpoints: health, readiness, metrics, the OpenAPI document). */
export interface RawReply {
  readonly kind: "raw";
  readonly status: number;
  readonly contentType: string;
  readonly body: Chunk;
}

export type Reply = DataReply | RawReply;

export function dataReply(data: readonly Chunk[], snapshotVersion?: string): DataReply {
  return { kind: "data", data, snapshotVersion };
}

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

export function rawJson(status: number, body: Chunk): RawReply {
  return { kind: "raw", status, contentType: JSON_CONTENT_TYPE, body };
}
