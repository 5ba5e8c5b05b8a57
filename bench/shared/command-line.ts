/**
 * The bench scripts' command lines, on node:util's parseArgs (strict: an unknown option, a missing
 * value or a stray argument stops the script with parseArgs's message); `--help` / `-h` prints the
 * script's usage and exits.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>>["values"];

const HELP = { help: { type: "boolean", short: "h" } } as const;

/** The options of `argv`; with --help, prints `usage` and exits. */
export function readArgs<const O extends Options>(argv: readonly string[], options: O, usage: string): Values<O> {
  const { values } = parseArgs({ args: [...argv], options: { ...options, ...HELP }, strict: true, allowPositionals: false });
  if ((values as { help?: boolean }).help === true) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values as Values<O>;
}

/** An integer option's value (from min to max), or undefined when it is not given. */
export function integerOption(flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const n = /^-?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${flag} must be an integer ${min}-${max}, got '${text}'`);
  return n;
}
