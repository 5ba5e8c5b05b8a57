/**
 * The command-line rules every program of the gateway shares (the gateway's setting flags, the keys
 * and snapshots commands), on node:util's parseArgs: options anywhere, as `--name value` or
 * `--name=value`; a separate value may start with a dash (`--name -odd-`; a program may require
 * `--name=--value` for one that starts with two); a switch takes no value; `--` is no option of ours. parseArgs splits argv into tokens; this applies the rules to them and leaves
 * the wording of each problem to the program (CommandLineError says which rule and which option).
 */
import { parseArgs } from "node:util";

/** An option: a value (`string`) or a switch (`boolean`), with an optional one-letter alias. */
export interface OptionSpec {
  readonly type: "string" | "boolean";
  readonly short?: string;
}

export interface CommandLineRules {
  /** Whether arguments that are not options are taken (else `unexpected-argument`). */
  readonly positionals: boolean;
  /** An option given twice: the last one counts, or `repeated`. */
  readonly repeated: "last-wins" | "error";
  /**
   * Whether a separate value may start with `--` (`--id --name` then sets id to "--name"), or only
   * an inline one (`--name=--value`; `--id --name` is an `--id` without its value).
   */
  readonly doubleDashValues: "allowed" | "inline-only";
}

export type CommandLineProblem = "unknown-option" | "unexpected-argument" | "missing-value" | "value-on-switch" | "repeated";

export class CommandLineError extends Error {
  override name = "CommandLineError";
  constructor(
    readonly problem: CommandLineProblem,
    /** The option's name as written (`--port`, `-x`), or the unexpected argument. */
    readonly option: string,
    /** The whole argument it is in (`--port=80`, `-xy`). */
    readonly argument: string = option,
  ) {
    super(`${problem}: ${option}`);
  }
}

export interface CommandLine<Name extends string> {
  /** The value of each value option given (the last one where `repeated` is `last-wins`). */
  readonly values: ReadonlyMap<Name, string>;
  /** The switches given. */
  readonly switches: ReadonlySet<Name>;
  readonly positionals: readonly string[];
}

/** Reads argv by `options` (keyed by long name, without the dashes); throws CommandLineError at the first problem. */
export function readCommandLine<Name extends string>(
  argv: readonly string[],
  options: Readonly<Record<Name, OptionSpec>>,
  rules: CommandLineRules,
): CommandLine<Name> {
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const values = new Map<Name, string>();
  const switches = new Set<Name>();
  const positionals: string[] = [];
  const known = (name: string): name is Name => Object.hasOwn(options, name);
  for (const token of tokens) {
    if (token.kind === "option-terminator") throw new CommandLineError("unknown-option", "--");
    if (token.kind === "positional") {
      if (!rules.positionals) throw new CommandLineError("unexpected-argument", token.value);
      positionals.push(token.value);
      continue;
    }
    const { name, rawName, value, inlineValue } = token;
    const argument = argv[token.index];
    if (!known(name)) throw new CommandLineError("unknown-option", rawName, argument);
    if (options[name].type === "boolean") {
      if (value !== undefined) throw new CommandLineError("value-on-switch", rawName, argument);
      switches.add(name);
      continue;
    }
    if (value === undefined || (rules.doubleDashValues === "inline-only" && !inlineValue && value.startsWith("--")))
      throw new CommandLineError("missing-value", rawName, argument);
    if (values.has(name) && rules.repeated === "error") throw new CommandLineError("repeated", rawName, argument);
    values.set(name, value);
  }
  return { values, switches, positionals };
}
