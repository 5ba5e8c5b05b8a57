/**
 * Reads a tree of setting declarations (settings.ts) from the command line and the environment, the
 * same way for each: the flag when given, else the variable (empty counts as unset), else the
 * default; the text is read by the setting's value type. The values come back in the tree's shape.
 */
import { CommandLineError, readCommandLine, type OptionSpec } from "./command-line.js";
import { Computed, ConfigError, exampleOf, isSetting, satisfies, whatSatisfies, type Setting } from "./setting.js";

/** Environment variables (process.env, or a test's). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Settings, and groups of settings (which become objects of values). */
export interface SettingTree {
  readonly [key: string]: Setting<unknown> | SettingTree;
}

/** The values of a tree, in its shape. */
export type ValuesOf<Tree> = { readonly [K in keyof Tree]: Tree[K] extends Setting<infer T> ? T : ValuesOf<Tree[K]> };

export interface SettingsRead<Tree extends SettingTree> {
  readonly values: ValuesOf<Tree>;
  /** The name a setting was given by (its flag when the flag was given, else its variable): messages use it. */
  nameOf(setting: Setting<unknown>): string;
  /** Whether the operator gave the setting (flag or non-empty variable). */
  given(setting: Setting<unknown>): boolean;
}

/** Every setting of a tree, in declaration order. */
export function settingsOf(tree: SettingTree): Setting<unknown>[] {
  return Object.values(tree).flatMap((node) => (isSetting(node) ? [node] : settingsOf(node)));
}

interface Reading {
  readonly value: unknown;
  readonly name: string;
  readonly given: boolean;
}

/**
 * Reads every setting of `tree` in declaration order. A bad flag, a bad value, or a setting given
 * while the one it depends on (OnlyWith) has another value throws ConfigError naming the setting.
 */
export function readSettings<Tree extends SettingTree>(tree: Tree, argv: readonly string[], env: Environment): SettingsRead<Tree> {
  const all = settingsOf(tree);
  const flags = readFlags(argv, all);
  const readings = new Map<Setting<unknown>, Reading>();
  const reading = (setting: Setting<unknown>): Reading => {
    const found = readings.get(setting);
    if (found === undefined) throw new Error(`${setting.env} is read before it is declared`);
    return found;
  };
  for (const setting of all) {
    const flagText = flags.get(setting.flag);
    const text = flagText ?? readEnvironment(setting, env);
    const name = flagText === undefined ? setting.env : setting.flag;
    const only = setting.onlyWith;
    const other = only === undefined || text === undefined ? undefined : reading(only.setting);
    if (only !== undefined && other !== undefined && !satisfies(only, other.value)) {
      throw new ConfigError(
        `${name} is set but ${describeReading(only.setting, other)}: ${whatSatisfies(only)} ${only.purpose}, or unset ${name}.`,
      );
    }
    const value = valueOf(setting, text, name);
    readings.set(setting, { value, name, given: text !== undefined });
  }
  const valuesOf = (node: SettingTree): unknown =>
    Object.fromEntries(Object.entries(node).map(([key, child]) => [key, isSetting(child) ? reading(child).value : valuesOf(child)]));
  return {
    values: valuesOf(tree) as ValuesOf<Tree>,
    nameOf: (setting) => reading(setting).name,
    given: (setting) => reading(setting).given,
  };
}

/**
 * One setting from the environment alone (what the keys CLI shares with the gateway), read as
 * readSettings reads it when its flag is not given.
 */
export function readFromEnvironment<T>(setting: Setting<T>, env: Environment): T {
  return valueOf(setting, readEnvironment(setting, env), setting.env);
}

/** "QUOTA_STORE is memory", "SNAPSHOT_ORIGIN is not set": a value as its type writes it (never the raw text: it may hold credentials). */
function describeReading(setting: Setting<unknown>, reading: Reading): string {
  if (reading.value === undefined) return `${reading.name} is not set`;
  const format = setting.type.format;
  return `${reading.name} is ${format === undefined ? String(reading.value) : format(reading.value)}`;
}

function readEnvironment(setting: Setting<unknown>, env: Environment): string | undefined {
  const text = env[setting.env];
  return text === "" ? undefined : text;
}

/** The operator's text read by the setting's type, or (not given) its default. */
function valueOf<T>(setting: Setting<T>, text: string | undefined, name: string): T {
  if (text !== undefined) return setting.type.parse(text, { name, example: exampleOf(setting) });
  const fallback = setting.default;
  if (fallback instanceof Computed) return fallback.compute();
  if (typeof fallback === "string") return setting.type.parse(fallback, { name, example: fallback });
  return fallback;
}

/** The setting flags given (`--flag value` or `--flag=value`; the last of a repeated flag counts). */
function readFlags(argv: readonly string[], settings: readonly Setting<unknown>[]): Map<string, string> {
  const options: Record<string, OptionSpec> = Object.fromEntries(settings.map((s) => [s.flag.slice(2), { type: "string" }]));
  try {
    const { values } = readCommandLine(argv, options, { positionals: false, repeated: "last-wins", doubleDashValues: "allowed" });
    return new Map([...values].map(([name, value]) => [`--${name}`, value]));
  } catch (error) {
    if (!(error instanceof CommandLineError)) throw error;
    if (error.problem === "missing-value") throw new ConfigError(`Flag ${error.option} needs a value.`);
    throw new ConfigError(`Unknown argument "${error.argument}". Known flags: ${settings.map((s) => s.flag).join(", ")}.`);
  }
}
