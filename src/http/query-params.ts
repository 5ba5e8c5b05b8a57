/**
 * Query strings of GET routes (api-extended.md §7, §11): one parser for every
 * route, validated by typia from the route's carrier type (src/api/wire.ts).
 *
 * List parameters accept `a=1,2`, `a=1&a=2` (the SDK's form) and `a[]=1`,
 * mixed as well; items of number lists that read as JSON numbers become
 * numbers, everything else stays text, so the carrier's rules report them.
 * An unknown parameter is a VALIDATION_ERROR (`whitelist`, `property` = its
 * name); a scalar parameter given twice is a list, which its rule refuses.
 * Failures name the first offending parameter in the order of the query string.
 */
import type { IValidation } from "typia";
import { validated } from "./validation-error.js";

/**
 * The parameters of a carrier that are not plain text: lists (`numbers`, `strings`: the type of their items)
 * and scalar numbers (`number`: a value that reads as a JSON number becomes a number, else stays text).
 */
export type QueryLists = Readonly<Record<string, "numbers" | "strings" | "number">>;

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/** The carrier object of a raw query string (without `?`), validated. */
export function parseQuery<T>(query: string, lists: QueryLists, validate: (input: unknown) => IValidation<T>): T {
  const entries = new Map<string, unknown>();
  if (query !== "") {
    for (const [raw, value] of new URLSearchParams(query)) {
      const name = raw.endsWith("[]") ? raw.slice(0, -2) : raw;
      const kind = Object.hasOwn(lists, name) ? lists[name] : undefined;
      if (kind === "numbers" || kind === "strings") {
        let items = entries.get(name) as unknown[] | undefined;
        if (items === undefined) entries.set(name, (items = []));
        for (const item of value.split(",")) items.push(kind === "numbers" && JSON_NUMBER.test(item) ? Number(item) : item);
      } else {
        // A scalar given twice becomes a list, which its rule refuses.
        const item = kind === "number" && JSON_NUMBER.test(value) ? Number(value) : value;
        const seen = entries.get(name);
        entries.set(name, seen === undefined ? item : [...(Array.isArray(seen) ? seen : [seen]), item]);
      }
    }
  }
  // Own properties only (a parameter named __proto__ is an unknown parameter, not a prototype).
  return validated(validate, Object.fromEntries(entries));
}
