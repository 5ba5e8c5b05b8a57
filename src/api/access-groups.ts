/**
 * Access groups: every authenticated route belongs to one, and a key's `routes`
 * allow-list (keys-file.md) names groups. The route table (src/http/route-table.ts)
 * assigns each route its group; this is the one list of the names operators write.
 */
export const ACCESS_GROUPS = ["tokens", "pools", "protocols"] as const;

export type AccessGroup = (typeof ACCESS_GROUPS)[number];
