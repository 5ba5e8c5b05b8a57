/**
 * Whether a manifest may be taken (fleet.md §17, "Monotonic"): generations only go up. A manifest whose
 * generation is lower than the last accepted one (a rollback), equal to it with other bytes (a reused
 * generation), or whose `expires` has passed (a freeze; allowance ORIGIN_MAX_SKEW_S) is refused; the same
 * generation with the same bytes is nothing new. A deliberate rollback is a new, higher generation naming
 * older files. Pure: the last accepted generation and the clock are passed in.
 */
import type { OriginManifest } from "./manifest.js";

export interface AcceptedGeneration {
  readonly generation: number;
  /** SHA-256 of the accepted manifest's bytes. */
  readonly manifestSha256: string;
}

export type GenerationProblem = "rollback" | "generation-reused" | "expired";

export type GenerationVerdict =
  | { readonly kind: "new" }
  | { readonly kind: "same" }
  | { readonly kind: "refused"; readonly code: GenerationProblem; readonly message: string };

export function judgeGeneration(
  manifest: OriginManifest,
  manifestSha256: string,
  last: AcceptedGeneration | null,
  nowMs: number,
  maxSkewMs: number,
): GenerationVerdict {
  if (last !== null && manifest.generation === last.generation && manifestSha256 === last.manifestSha256) return { kind: "same" };
  const expired = expiry(manifest, nowMs, maxSkewMs);
  if (expired !== null) return { kind: "refused", code: "expired", message: expired };
  if (last === null || manifest.generation > last.generation) return { kind: "new" };
  if (manifest.generation < last.generation)
    return {
      kind: "refused",
      code: "rollback",
      message: `generation ${manifest.generation} is lower than the last accepted ${last.generation} (a rollback is a new, higher generation)`,
    };
  return {
    kind: "refused",
    code: "generation-reused",
    message: `generation ${manifest.generation} was accepted before with other bytes (a generation is never rewritten)`,
  };
}

/** Why the manifest counts as expired now (its `expires` plus the allowance has passed), or null. */
export function expiry(manifest: OriginManifest, nowMs: number, maxSkewMs: number): string | null {
  if (manifest.expires === undefined) return null;
  const expiresMs = Date.parse(manifest.expires);
  if (nowMs <= expiresMs + maxSkewMs) return null;
  return `generation ${manifest.generation} expired at ${manifest.expires} (the origin may be frozen: no newer manifest was published)`;
}
