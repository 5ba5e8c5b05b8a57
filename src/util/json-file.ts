/**
 * What every operator-edited JSON file (the keys file, the baskets file) needs
 * for clear rejections: parsing with the line and column of a syntax error,
 * typia paths as the operator reads them (`keys[2].sha256`), and short previews of
 * offending values. Reading the file is util/operator-file.ts.
 */

/** An operator's file that cannot be used. `message` names the file and, when there is one, the offending path. */
export class JsonFileError extends Error {
  constructor(
    /** The file name or path as given to the parser. */
    readonly source: string,
    /** The offending path inside the document (`keys[2].sha256`), or null for file-level problems. */
    readonly path: string | null,
    /** The problem without the source and path prefix. */
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`${source}: ${path === null ? "" : `${path}: `}${problem}`, options);
  }
}

/** ` (N more problems after this one)` when a validation found more than the one reported. */
export function moreProblems(errors: readonly unknown[]): string {
  return errors.length > 1 ? ` (${errors.length - 1} more problem${errors.length > 2 ? "s" : ""} after this one)` : "";
}

/** Parses JSON text (a leading byte-order mark is ignored); throws `problem(message)` with the position of a syntax error. */
export function parseJsonText(text: string, problem: (message: string, cause: unknown) => Error): unknown {
  // Editors on some systems prepend a byte-order mark; JSON.parse rejects it.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    throw problem(`invalid JSON: ${describeJsonError(error, body)}`, error);
  }
}

/** `$input.keys[2].sha256` → `keys[2].sha256`; `$input` → `(root)`. */
export function displayPath(typiaPath: string): string {
  if (typiaPath === "$input") return "(root)";
  return typiaPath.startsWith("$input.") ? typiaPath.slice("$input.".length) : typiaPath.replace(/^\$input/, "");
}

/** Splits a display path into property names and indices: `keys[2].routes[0]` → ["keys", 2, "routes", 0]. */
export function displayPathSegments(path: string): (string | number)[] {
  if (path === "(root)") return [];
  const out: (string | number)[] = [];
  const re = /\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|\.?([^.[\]]+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(JSON.parse(`"${m[2]}"`) as string);
    else if (m[3] !== undefined) out.push(m[3]);
  }
  return out;
}

/** A short rendering of an offending value for a message. */
export function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function describeJsonError(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(message);
  if (position === null || /line \d+/.test(message)) return message;
  const offset = Number(position[1]);
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `${message} (line ${line}, column ${column})`;
}
