/**
 * The rules of search bodies that no type states (api-extended.md §8, §11):
 * the term is 1 to 100 characters once trimmed (`isNotEmpty` / `max` on
 * `search`), and `relevance` orders only descending (`isIn` on
 * `config.orderBy.direction`). They compete with the type's rules in document order.
 */
import { MAX_SEARCH_TERM_LENGTH } from "../api/limits.js";
import { constraintError, type RuleFailure } from "./validation-error.js";

export function searchRuleFailures(body: unknown): RuleFailure[] {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return [];
  const failures: RuleFailure[] = [];
  const { search, config } = body as { search?: unknown; config?: { orderBy?: { field?: unknown; direction?: unknown } } };
  if (typeof search === "string") {
    const length = search.trim().length;
    if (length === 0) {
      failures.push({
        path: ["search"],
        error: constraintError(
          "search",
          search,
          "isNotEmpty",
          "search should not be empty",
          "The search term must have 1 to 100 characters once leading and trailing white space is removed.",
        ),
      });
    } else if (length > MAX_SEARCH_TERM_LENGTH) {
      failures.push({
        path: ["search"],
        error: constraintError(
          "search",
          search,
          "max",
          `search must be shorter than or equal to ${MAX_SEARCH_TERM_LENGTH} characters`,
          "The search term must have 1 to 100 characters once leading and trailing white space is removed.",
        ),
      });
    }
  }
  const orderBy = config !== null && typeof config === "object" ? config.orderBy : undefined;
  if (orderBy !== null && typeof orderBy === "object" && orderBy.field === "relevance" && orderBy.direction === "asc") {
    failures.push({
      path: ["config", "orderBy", "direction"],
      error: constraintError(
        "config.orderBy.direction",
        "asc",
        "isIn",
        "direction must be one of the following values: desc (relevance orders best matches first)",
        "With orderBy.field relevance, leave direction out or send desc.",
      ),
    });
  }
  return failures;
}
