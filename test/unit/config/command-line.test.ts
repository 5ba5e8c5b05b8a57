/** The command-line rules every program shares (src/config/command-line.ts), on node:util's parseArgs. */
import { describe, expect, it } from "vitest";
import { CommandLineError, readCommandLine, type CommandLineRules } from "../../../src/config/command-line.js";

const OPTIONS = {
  name: { type: "string" },
  dir: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;
const STRICT: CommandLineRules = { positionals: true, repeated: "error", doubleDashValues: "inline-only" };
const LOOSE: CommandLineRules = { positionals: false, repeated: "last-wins", doubleDashValues: "allowed" };

const problem = (argv: string[], rules: CommandLineRules) => {
  try {
    readCommandLine(argv, OPTIONS, rules);
  } catch (error) {
    expect(error).toBeInstanceOf(CommandLineError);
    const { problem, option, argument } = error as CommandLineError;
    return { problem, option, argument };
  }
  throw new Error(`accepted ${argv.join(" ")}`);
};

describe("readCommandLine", () => {
  it("takes options anywhere, as --name value or --name=value; -h is its long option", () => {
    const line = readCommandLine(["add", "--name", "a b", "x", "--dir=/d", "-h", "--json"], OPTIONS, STRICT);
    expect(Object.fromEntries(line.values)).toEqual({ name: "a b", dir: "/d" });
    expect([...line.switches].sort()).toEqual(["help", "json"]);
    expect(line.positionals).toEqual(["add", "x"]);
  });

  it("takes a separate value that starts with one dash; one with two only inline, unless the program allows it", () => {
    expect(readCommandLine(["--name", "-odd-"], OPTIONS, STRICT).values.get("name")).toBe("-odd-");
    expect(readCommandLine(["--name=--x"], OPTIONS, STRICT).values.get("name")).toBe("--x");
    expect(problem(["--name", "--dir", "d"], STRICT)).toEqual({ problem: "missing-value", option: "--name", argument: "--name" });
    expect(readCommandLine(["--name", "--x"], OPTIONS, LOOSE).values.get("name")).toBe("--x");
    expect(readCommandLine(["--name="], OPTIONS, LOOSE).values.get("name")).toBe("");
  });

  it("says which rule an argument breaks, with the option and the whole argument", () => {
    expect(problem(["--nope=1"], STRICT)).toEqual({ problem: "unknown-option", option: "--nope", argument: "--nope=1" });
    expect(problem(["-x"], STRICT)).toEqual({ problem: "unknown-option", option: "-x", argument: "-x" });
    expect(problem(["a", "--", "b"], STRICT)).toEqual({ problem: "unknown-option", option: "--", argument: "--" });
    expect(problem(["--name"], LOOSE)).toEqual({ problem: "missing-value", option: "--name", argument: "--name" });
    expect(problem(["--json=yes"], LOOSE)).toEqual({ problem: "value-on-switch", option: "--json", argument: "--json=yes" });
    expect(problem(["--name", "a", "--name=b"], STRICT)).toEqual({ problem: "repeated", option: "--name", argument: "--name=b" });
    expect(problem(["stray"], LOOSE)).toEqual({ problem: "unexpected-argument", option: "stray", argument: "stray" });
  });

  it("keeps the last of a repeated option where the program says so", () => {
    expect(readCommandLine(["--name", "a", "--name=b"], OPTIONS, LOOSE).values.get("name")).toBe("b");
  });
});
