/**
 * What an instance knows of its origin (fleet.md §20): the puller keeps an OriginStatusRecord (plain
 * data, times as epoch ms: the supervisor posts it to the serving threads), and originStatus turns it
 * into the `origin` of GET /v1/status at the moment of a request (stale seconds grow between polls).
 */
import type { OriginError, OriginStatus } from "../api/wire.js";

export interface OriginErrorRecord {
  readonly code: string;
  readonly message: string;
  readonly atMs: number;
}

export interface OriginStatusRecord {
  readonly kind: OriginStatus["kind"];
  readonly url: string;
  readonly generation: number | null;
  readonly manifestSha256: string | null;
  readonly etag: string | null;
  readonly publishedAt: string | null;
  readonly startedAtMs: number;
  readonly lastPollAtMs: number | null;
  readonly lastSuccessAtMs: number | null;
  readonly lastChangeAtMs: number | null;
  readonly nextPollAtMs: number | null;
  readonly consecutiveFailures: number;
  readonly lastError: OriginErrorRecord | null;
  /** The last poll found the origin's newest manifest refused, or the served one expired. */
  readonly refused: boolean;
  readonly clockSkewMs: number | null;
  readonly signature: { readonly keyId: string } | null;
  readonly partial: readonly { readonly file: string; readonly reason: string }[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function originErrorWire(error: OriginErrorRecord | null): OriginError | null {
  return error === null ? null : { code: error.code, message: error.message, at: new Date(error.atMs).toISOString() };
}

/** Whether the instance cannot say it serves the origin's newest generation. */
export function isStale(record: OriginStatusRecord): boolean {
  return record.lastSuccessAtMs === null || record.consecutiveFailures > 0 || record.refused;
}

/** Seconds the instance has been stale (0 when it is not). */
export function staleSeconds(record: OriginStatusRecord, nowMs: number): number {
  if (!isStale(record)) return 0;
  return Math.max(0, Math.floor((nowMs - (record.lastSuccessAtMs ?? record.startedAtMs)) / 1000));
}

export function originStatus(record: OriginStatusRecord, nowMs: number): OriginStatus {
  return {
    kind: record.kind,
    url: record.url,
    generation: record.generation,
    manifestSha256: record.manifestSha256,
    etag: record.etag,
    publishedAt: record.publishedAt,
    lastPollAt: iso(record.lastPollAtMs),
    lastSuccessAt: iso(record.lastSuccessAtMs),
    lastChangeAt: iso(record.lastChangeAtMs),
    nextPollAt: iso(record.nextPollAtMs),
    consecutiveFailures: record.consecutiveFailures,
    lastError: originErrorWire(record.lastError),
    stale: isStale(record),
    staleSeconds: staleSeconds(record, nowMs),
    clockSkewMs: record.clockSkewMs,
    signature: record.signature === null ? null : { keyId: record.signature.keyId },
    partial: record.partial.map((p) => ({ file: p.file, reason: p.reason })),
  };
}
