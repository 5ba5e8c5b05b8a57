/** Whether a header is on every response of a kind, on some, or on none. */
export type Presence = "always" | "sometimes" | "never";

/** The combined presence of a header over several kinds of response under one status. */
export function combinedPresence(presences: readonly Presence[]): Presence {
  if (presences.every((p) => p === "always")) return "always";
  if (presences.every((p) => p === "never")) return "never";
  return "sometimes";
}
