/**
 * Two rules of the TypeScript contract that typia's JSON schemas do not state
 * by themselves; applied to the generated schemas, never written by hand.
 */
import { componentName, forEachSubschema, type JsonSchema } from "./json-schema.js";

/**
 * typia writes a TypeScript union as `oneOf`, which requires exactly one
 * branch to match. TypeScript object types are open, so branches can overlap
 * (a V4 pool `metadata` also satisfies ConcentratedMetadata and V2Metadata):
 * the union means "at least one", which is `anyOf`.
 */
export function unionsAsAnyOf(schemas: Record<string, JsonSchema>): void {
  for (const name in schemas) {
    forEachSubschema(schemas[name], (schema) => {
      if (schema.oneOf === undefined) return;
      schema.anyOf = schema.oneOf;
      delete schema.oneOf;
    });
  }
}

/**
 * Request bodies are checked with typia's `validateEquals` (routes/tokens.ts):
 * an unknown property at any depth is a VALIDATION_ERROR (`whitelist`). Every
 * object schema reachable from `root` gets `additionalProperties: false`.
 */
export function closeObjectsReachableFrom(schemas: Record<string, JsonSchema>, root: string): void {
  const pending = [root];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const schema = schemas[name];
    if (schema === undefined) throw new Error(`OpenAPI: no component schema ${name}`);
    forEachSubschema(schema, (subschema) => {
      const referenced = componentName(subschema.$ref);
      if (referenced !== undefined) pending.push(referenced);
      if (subschema.type === "object" && subschema.additionalProperties === undefined) subschema.additionalProperties = false;
    });
  }
}
