/**
 * Plain JSON-schema objects as the document builder handles them, and a walk
 * over every subschema of the keywords typia emits.
 */
export type JsonSchema = { [keyword: string]: unknown };

const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;
const SCHEMA_VALUES = ["items", "additionalProperties", "not"] as const;

/** Calls `visit` on `schema` and every subschema in it (post-order). */
export function forEachSubschema(schema: JsonSchema, visit: (subschema: JsonSchema) => void): void {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties !== undefined) for (const name in properties) forEachSubschema(properties[name], visit);
  for (const keyword of SCHEMA_LISTS) {
    const list = schema[keyword] as JsonSchema[] | undefined;
    if (list !== undefined) for (const item of list) forEachSubschema(item, visit);
  }
  for (const keyword of SCHEMA_VALUES) {
    const value = schema[keyword];
    if (value !== null && typeof value === "object") forEachSubschema(value as JsonSchema, visit);
  }
  visit(schema);
}

/** `#/components/schemas/Name` → `Name`; undefined for any other reference. */
export function componentName(ref: unknown): string | undefined {
  const prefix = "#/components/schemas/";
  return typeof ref === "string" && ref.startsWith(prefix) ? ref.slice(prefix.length) : undefined;
}

export function componentRef(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}
