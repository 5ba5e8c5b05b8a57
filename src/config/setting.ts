/**
 * What a setting is: one declaration (settings.ts) holds its environment variable, its flag, the
 * values it takes (a ValueType: the parser and what --help and the docs say it accepts), its
 * default and its help. read-settings.ts reads every declaration the same way; nothing else
 * repeats a name, a range or a default.
 */

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Where a value is read: the name the operator used (the flag when given, else the variable) and the default as written. */
export interface ReadingContext {
  readonly name: string;
  /** The setting's default as an operator would write it (an example for messages), when it has one. */
  readonly example: string | undefined;
}

/** The values a setting takes. */
export interface ValueType<T> {
  /** What the setting accepts, in Markdown, for --help and docs/operators.md ("0-65535", "`memory` or `redis`"). */
  readonly accepts: string;
  /** The operator's text as the value; a bad text throws ConfigError naming `at.name`. */
  parse(text: string, at: ReadingContext): T;
  /** A value as the operator would write it (how a default that is a value is shown). */
  format?(value: T): string;
}

/** A default worked out when the gateway starts (from the host, or random); `text` says what it is. */
export class Computed<T> {
  constructor(
    readonly compute: () => T,
    readonly text: string,
  ) {}
}

export function computed<T>(compute: () => T, text: string): Computed<T> {
  return new Computed(compute, text);
}

/**
 * A setting that means something only while another one has a given value (REDIS_URL with
 * QUOTA_STORE=redis), or a value that passes a test (S3_REGION with an s3:// SNAPSHOT_ORIGIN): given
 * without it, start-up stops and says so, before the value is read.
 */
export interface OnlyWith {
  /** Declared (and so read) before the setting that names it. */
  readonly setting: Setting<unknown>;
  /** The value it needs (compared exactly), or a test of the other setting's value and what passes it in words. */
  readonly value: string | ValueTest;
  /** Completes "set QUOTA_STORE=redis ...": what the other value is for. */
  readonly purpose: string;
}

export interface ValueTest {
  /** Whether the other setting's value (undefined when it is not given and has no default) will do. */
  readonly test: (value: unknown) => boolean;
  /** Completes "set SNAPSHOT_ORIGIN to ...": what will do ("an s3:// URL"). */
  readonly text: string;
}

/** Whether `value` satisfies an OnlyWith. */
export function satisfies(only: OnlyWith, value: unknown): boolean {
  return typeof only.value === "string" ? value === only.value : only.value.test(value);
}

/** "set QUOTA_STORE=redis", "set SNAPSHOT_ORIGIN to an s3:// URL". */
export function whatSatisfies(only: OnlyWith): string {
  return typeof only.value === "string" ? `set ${only.setting.env}=${only.value}` : `set ${only.setting.env} to ${only.value.text}`;
}

export interface Declaration<T> {
  readonly env: string;
  readonly flag: `--${string}`;
  readonly type: ValueType<T>;
  /**
   * The value when neither the flag nor the variable is given (an empty variable counts as not
   * given): a string is the text an operator would write and is read by `type` like theirs (so it
   * is checked too); anything else is the value itself; `computed(...)` is worked out at start.
   */
  readonly default: string | T | Computed<T>;
  /** The default as --help and the docs show it (Markdown), where it is not a value `type` can write. */
  readonly defaultText?: string;
  /** What it does, in Markdown: one or two sentences, shown by --help and in docs/operators.md. */
  readonly help: string;
  /** More for docs/operators.md only (Markdown): consequences, sizes, links. */
  readonly more?: string;
  readonly onlyWith?: OnlyWith;
}

const IS_SETTING: unique symbol = Symbol("setting");

/** A declaration as settings.ts holds it (what tells a setting from a group of settings). */
export type Setting<T> = Declaration<T> & { readonly [IS_SETTING]: true };

export function isSetting(node: object): node is Setting<unknown> {
  return IS_SETTING in node;
}

/** The default as an operator would write it, for messages; undefined when it is computed or has no text. */
export function exampleOf<T>(setting: Setting<T>): string | undefined {
  const fallback = setting.default;
  if (typeof fallback === "string") return fallback;
  if (fallback instanceof Computed || fallback === undefined || setting.type.format === undefined) return undefined;
  return setting.type.format(fallback as T);
}

/** The default as --help and the docs show it (Markdown). */
export function describeDefault<T>(setting: Setting<T>): string {
  if (setting.defaultText !== undefined) return setting.defaultText;
  if (setting.default instanceof Computed) return setting.default.text;
  const example = exampleOf(setting);
  if (example === undefined) throw new Error(`${setting.env}: its default needs a defaultText`);
  return `\`${example}\``;
}

/** One declaration (settings.ts). */
export function setting<T>(declaration: Declaration<T>): Setting<T> {
  return Object.freeze({ ...declaration, [IS_SETTING]: true as const });
}
