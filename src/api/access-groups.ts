/**
 * Access groups: every authenticated route belongs to one, and a key's `routes`
 * allow-list (keys-file.md) names groups. The route table (src/http/route-table.ts)
 * assigns each route its group; this is the one list of the names operators write.
 * `stream` holds the live routes (live.md): GET /v1/stream, GET /v1/changes, GET /v1/status; `history` the
 * history routes (history.md §24).
 */
export const ACCESS_GROUPS = ["tokens", "pools", "protocols", "stream", "history"] as const;

export type AccessGroup = (typeof ACCESS_GROUPS)[number];
