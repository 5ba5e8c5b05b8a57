/**
 * Access groups: every authenticated route belongs to one, and a key's `routes`
 * allow-list (keys-file.md) names groups. The route table (src/http/route-table.ts)
 * assigns each route its group; this is the one list of the names operators write.
 * `stream` holds the live routes (live.md): GET /v1/stream, GET /v1/changes, GET /v1/status; `history` the
 * history routes (history.md §24).
 * `fleet` (GET /v1/status/fleet, fleet.md §20) is an operator's group: only a key whose
 * `routes` lists it has it.
 */

/** The groups of a key whose record names no `routes`. */
export const DEFAULT_ACCESS_GROUPS = ["tokens", "pools", "protocols", "stream", "history"] as const;

/** Groups only a key that lists them has. */
export const OPERATOR_ACCESS_GROUPS = ["fleet"] as const;

export const ACCESS_GROUPS = [...DEFAULT_ACCESS_GROUPS, ...OPERATOR_ACCESS_GROUPS] as const;

export type AccessGroup = (typeof ACCESS_GROUPS)[number];

/** Whether a key with these `routes` (null: none named) may use `group`. */
export function groupAllowed(routes: ReadonlySet<AccessGroup> | null, group: AccessGroup): boolean {
  return routes === null ? (DEFAULT_ACCESS_GROUPS as readonly AccessGroup[]).includes(group) : routes.has(group);
}
