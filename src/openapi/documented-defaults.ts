/**
 * The `@default` JSDoc tags of the request types in src/api/wire.ts, as JSON
 * schema `default`s. typia's schema generator carries a JSDoc comment into
 * `description` but drops `@default`; typia's reflection keeps every tag, so
 * the defaults are read from the same types instead of being restated.
 * (`@default` is written on request types only.)
 */
import typia from "typia";
import type {
  PoolSearchRequest,
  SingleChainTokenListRequest,
  SingleChainTokenSearchRequest,
  TokenListRequest,
  TokenSearchRequest,
} from "../api/wire.js";
import type { JsonSchema } from "./json-schema.js";

const REQUEST_METADATA =
  typia.reflect.metadata<
    [TokenListRequest, TokenSearchRequest, SingleChainTokenListRequest, SingleChainTokenSearchRequest, PoolSearchRequest]
  >();

/** `default` on each property of `schemas` whose type declares `@default <JSON value>`. */
export function applyDocumentedDefaults(schemas: Record<string, JsonSchema>): void {
  for (const object of REQUEST_METADATA.components.objects) {
    for (const property of object.properties) {
      const tag = property.jsDocTags.find((t) => t.name === "default");
      if (tag === undefined) continue;
      const name = property.key.constants[0]?.values[0]?.value;
      const text = (tag.text ?? [])
        .map((part) => part.text)
        .join("")
        .trim();
      const target = (schemas[object.name]?.properties as Record<string, JsonSchema> | undefined)?.[String(name)];
      if (target === undefined) throw new Error(`OpenAPI: @default on ${object.name}.${String(name)} has no schema property`);
      try {
        target.default = JSON.parse(text);
      } catch {
        throw new Error(`OpenAPI: @default of ${object.name}.${String(name)} is not a JSON value: ${text}`);
      }
    }
  }
}
