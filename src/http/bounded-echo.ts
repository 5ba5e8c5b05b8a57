/**
 * Values a client sent, made safe to echo in error metadata: the value itself
 * when it is small and shallow, else a short summary string. Measuring never
 * recurses and stops at the budget, so echoing any parsed body costs O(budget)
 * and the error body can always be serialised.
 */

/** Deepest nesting echoed as is. */
export const ECHO_MAX_DEPTH = 16;
/** Largest echo, in (approximate) JSON characters. */
export const ECHO_MAX_CHARS = 8192;
/** Characters of a long string kept in its summary. */
const STRING_PREFIX_CHARS = 200;

/** The value, or a summary when it is deeper than ECHO_MAX_DEPTH or longer than ECHO_MAX_CHARS as JSON. */
export function boundedEcho(value: unknown): unknown {
  if (value === null || typeof value === "number" || typeof value === "boolean" || value === undefined) return value;
  if (typeof value === "string") return value.length <= ECHO_MAX_CHARS ? value : summariseString(value);
  if (typeof value !== "object") return String(value);
  return fitsBudget(value) ? value : summarise(value);
}

function summariseString(text: string): string {
  return `${text.slice(0, STRING_PREFIX_CHARS)}… (${text.length} characters, not shown in full)`;
}

function summarise(value: object): string {
  if (Array.isArray(value)) return `[an array of ${value.length} items, too large or too deep to show]`;
  let keys = 0;
  for (const _ in value) if (++keys > 100_000) break;
  return `{an object of ${keys} properties, too large or too deep to show}`;
}

/** Walks the value with an explicit stack, stopping as soon as the depth or size budget is spent. */
function fitsBudget(root: object): boolean {
  let chars = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== "object") {
      chars += typeof value === "string" ? value.length + 2 : 8;
    } else {
      if (depth > ECHO_MAX_DEPTH) return false;
      chars += 2;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          if (++chars > ECHO_MAX_CHARS) return false;
          stack.push({ value: value[i], depth: depth + 1 });
        }
      } else {
        for (const key in value) {
          chars += key.length + 4;
          if (chars > ECHO_MAX_CHARS) return false;
          stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
        }
      }
    }
    if (chars > ECHO_MAX_CHARS) return false;
  }
  return true;
}
