/**
 * Reading a generation from the origin (fleet.md §17, §18): the manifest (conditional GET; bounded; its
 * signature checked when ORIGIN_PUBLIC_KEYS is set; parsed strictly), then each object the instance does
 * not hold yet, streamed into a staging file and verified (staging.ts). Every problem is a PollFailure;
 * whatever was staged for a generation that fails is removed.
 */
import { createHash } from "node:crypto";
import { bodyError, readBounded } from "./http-exchange.js";
import {
  MANIFEST_MAX_BYTES,
  MANIFEST_NAME,
  parseManifest,
  SIGNATURE_NAME,
  entryName,
  type KindLimits,
  type ManifestEntry,
  type OriginManifest,
} from "./manifest.js";
import { SIGNATURE_MAX_BYTES, verifyManifest, type TrustedKey } from "./manifest-signature.js";
import type { Conditional, OriginReader, ReadAnswer } from "./origin-reader.js";
import { asPollFailure, refused, statusFailure } from "./poll-failure.js";
import { retryAfterMs } from "./poll-policy.js";
import { discardStaged, type StagedEntry } from "./apply-generation.js";
import { stageObject, type StagedFile } from "./staging.js";

export type ManifestRead =
  | { readonly kind: "not-modified" }
  | {
      readonly kind: "manifest";
      readonly bytes: Buffer;
      readonly signature: Buffer | null;
      readonly manifest: OriginManifest;
      readonly sha256: string;
      readonly etag: string | null;
      readonly lastModified: string | null;
      readonly signedBy: { readonly keyId: string } | null;
    };

export interface FetchContext {
  readonly reader: OriginReader;
  readonly signal: AbortSignal;
  readonly limits: KindLimits;
  /** ORIGIN_PUBLIC_KEYS; null: signatures are not checked. */
  readonly publicKeys: readonly TrustedKey[] | null;
  readonly now: () => number;
  /** Every answer's headers (the clock skew is read from `Date`). */
  answered(headers: ReadAnswer["headers"]): void;
  /** Body bytes received. */
  counted(bytes: number): void;
}

const header = (headers: ReadAnswer["headers"], name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

async function get(context: FetchContext, key: string, conditional: Conditional | null): Promise<ReadAnswer> {
  const answer = await context.reader.get(key, conditional, context.signal);
  context.answered(answer.headers);
  return answer;
}

/** GETs the manifest (and its signature when they are checked); throws PollFailure. */
export async function readManifest(context: FetchContext, conditional: Conditional | null): Promise<ManifestRead> {
  const answer = await get(context, MANIFEST_NAME, conditional);
  if (answer.status === 304) return { kind: "not-modified" };
  if (answer.status !== 200)
    throw statusFailure(
      `GET ${MANIFEST_NAME}`,
      answer.status,
      answer.failure,
      retryAfterMs(header(answer.headers, "retry-after"), context.now()),
    );
  const bytes = await readBounded(answer.body, MANIFEST_MAX_BYTES).catch((error) => {
    throw asPollFailure(bodyError(error, MANIFEST_NAME));
  });
  context.counted(bytes?.length ?? 0);
  if (bytes === null) throw refused("manifest-too-large", `${MANIFEST_NAME} is larger than ${MANIFEST_MAX_BYTES} bytes (1 MiB)`);
  const signature = context.publicKeys === null ? null : await readSignature(context);
  let signedBy: { keyId: string } | null = null;
  try {
    if (context.publicKeys !== null) signedBy = verifyManifest(bytes, signature, context.publicKeys);
    const manifest = parseManifest(bytes, context.limits);
    return {
      kind: "manifest",
      bytes,
      signature,
      manifest,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      etag: header(answer.headers, "etag") ?? null,
      lastModified: header(answer.headers, "last-modified") ?? null,
      signedBy,
    };
  } catch (error) {
    throw asPollFailure(error);
  }
}

async function readSignature(context: FetchContext): Promise<Buffer | null> {
  const answer = await get(context, SIGNATURE_NAME, null);
  if (answer.status === 404) return null;
  if (answer.status !== 200)
    throw statusFailure(
      `GET ${SIGNATURE_NAME}`,
      answer.status,
      answer.failure,
      retryAfterMs(header(answer.headers, "retry-after"), context.now()),
    );
  const bytes = await readBounded(answer.body, SIGNATURE_MAX_BYTES).catch((error) => {
    throw asPollFailure(bodyError(error, SIGNATURE_NAME));
  });
  if (bytes === null) throw refused("bad-signature", `${SIGNATURE_NAME} is larger than ${SIGNATURE_MAX_BYTES} bytes`);
  return bytes;
}

/** An entry to fetch into its live path. */
export interface WantedEntry {
  readonly entry: ManifestEntry;
  readonly livePath: string;
}

/** Streams every wanted object into staging, one at a time; on any failure removes what was staged and throws PollFailure. */
export async function stageGeneration(context: FetchContext, wanted: readonly WantedEntry[]): Promise<StagedEntry[]> {
  const staged: StagedEntry[] = [];
  try {
    for (const { entry, livePath } of wanted) {
      const answer = await get(context, entry.key, null);
      if (answer.status === 404) throw refused("object-missing", `${entryName(entry)}: ${entry.key} is not at the origin (404)`);
      if (answer.status !== 200)
        throw statusFailure(
          `GET ${entry.key}`,
          answer.status,
          answer.failure,
          retryAfterMs(header(answer.headers, "retry-after"), context.now()),
        );
      const file = await stageObject(
        answer.body,
        { livePath, sha256: entry.sha256, size: entry.size, what: `${entryName(entry)} (${entry.key})` },
        (n) => context.counted(n),
      );
      staged.push({ entry, staged: file });
    }
    return staged;
  } catch (error) {
    await discardStaged(staged.map((s): StagedFile => s.staged));
    throw asPollFailure(error);
  }
}
