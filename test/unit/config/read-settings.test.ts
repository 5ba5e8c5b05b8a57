/** The loop that reads every declaration the same way (src/config/read-settings.ts), on a small tree of its own. */
import { describe, expect, it } from "vitest";
import { readFromEnvironment, readSettings, settingsOf } from "../../../src/config/read-settings.js";
import { computed, ConfigError, setting } from "../../../src/config/setting.js";
import { integer, oneOf, optional, requestsPerWindow } from "../../../src/config/value-types.js";

const mode = setting({ env: "MODE", flag: "--mode", type: oneOf(["plain", "fancy"]), default: "plain", help: "Mode." });
let computedCalls = 0;
const TREE = {
  size: setting({ env: "SIZE", flag: "--size", type: integer(1, 10), default: 5, help: "Size." }),
  rate: setting({ env: "RATE", flag: "--rate", type: requestsPerWindow, default: "600/60", help: "Rate." }),
  workers: setting({
    env: "WORKERS",
    flag: "--workers",
    type: integer(1, 8),
    default: computed(() => ++computedCalls, "one more each start"),
    help: "Workers.",
  }),
  fancy: {
    mode,
    colour: setting({
      env: "COLOUR",
      flag: "--colour",
      type: optional(oneOf(["red", "blue"])),
      default: undefined,
      defaultText: "none",
      help: "Colour.",
      onlyWith: { setting: mode, value: "fancy", purpose: "to colour things" },
    }),
  },
};

describe("readSettings", () => {
  it("gives the defaults in the tree's shape: a written default read by its type, a computed one worked out", () => {
    const before = computedCalls;
    const { values } = readSettings(TREE, [], {});
    expect(values).toEqual({
      size: 5,
      rate: { requests: 600, windowSeconds: 60 },
      workers: before + 1,
      fancy: { mode: "plain", colour: undefined },
    });
  });

  it("reads the variable, or the flag (either form), and the flag wins; an empty variable counts as unset", () => {
    expect(readSettings(TREE, [], { SIZE: "7" }).values.size).toBe(7);
    expect(readSettings(TREE, ["--size", "8"], { SIZE: "7" }).values.size).toBe(8);
    expect(readSettings(TREE, ["--size=9"], { SIZE: "7" }).values.size).toBe(9);
    expect(readSettings(TREE, [], { SIZE: "" }).values.size).toBe(5);
    expect(readSettings(TREE, ["--size", "2", "--size", "3"], {}).values.size).toBe(3);
  });

  it("names a setting as it was given, in its error and by nameOf; given() says whether it was", () => {
    expect(() => readSettings(TREE, [], { SIZE: "11" })).toThrow(new ConfigError('SIZE must be an integer from 1 to 10; got "11".'));
    expect(() => readSettings(TREE, ["--size=0"], { SIZE: "7" })).toThrow(
      new ConfigError('--size must be an integer from 1 to 10; got "0".'),
    );
    expect(() => readSettings(TREE, ["--size="], {})).toThrow(/^--size must be an integer from 1 to 10; got ""\.$/);
    const read = readSettings(TREE, ["--rate", "5/1"], { SIZE: "7" });
    expect([read.nameOf(TREE.size), read.nameOf(TREE.rate), read.nameOf(TREE.workers)]).toEqual(["SIZE", "--rate", "WORKERS"]);
    expect([read.given(TREE.size), read.given(TREE.rate), read.given(TREE.workers)]).toEqual([true, true, false]);
  });

  it("gives a type's message the setting's written default as its example", () => {
    expect(() => readSettings(TREE, [], { RATE: "fast" })).toThrow(
      'RATE must be REQUESTS/SECONDS with positive integers, e.g. 600/60; got "fast".',
    );
  });

  it("refuses a setting given while the one it depends on has another value, before reading its value", () => {
    expect(() => readSettings(TREE, [], { COLOUR: "green" })).toThrow(
      new ConfigError("COLOUR is set but MODE is plain: set MODE=fancy to colour things, or unset COLOUR."),
    );
    expect(() => readSettings(TREE, ["--colour=red", "--mode", "plain"], {})).toThrow(
      new ConfigError("--colour is set but --mode is plain: set MODE=fancy to colour things, or unset --colour."),
    );
    expect(readSettings(TREE, ["--colour=red"], { MODE: "fancy" }).values.fancy).toEqual({ mode: "fancy", colour: "red" });
    expect(() => readSettings(TREE, [], { MODE: "fancy", COLOUR: "green" })).toThrow('COLOUR must be red or blue; got "green".');
  });

  it("refuses what is no flag of its tree, and a flag without its value", () => {
    const known = "Known flags: --size, --rate, --workers, --mode, --colour.";
    expect(() => readSettings(TREE, ["--sise", "3"], {})).toThrow(new ConfigError(`Unknown argument "--sise". ${known}`));
    expect(() => readSettings(TREE, ["--sise=3"], {})).toThrow(new ConfigError(`Unknown argument "--sise=3". ${known}`));
    expect(() => readSettings(TREE, ["3"], {})).toThrow(new ConfigError(`Unknown argument "3". ${known}`));
    expect(() => readSettings(TREE, ["-s"], {})).toThrow(new ConfigError(`Unknown argument "-s". ${known}`));
    expect(() => readSettings(TREE, ["--size"], {})).toThrow(new ConfigError("Flag --size needs a value."));
    // A separate value is taken as it is, dashes and all (then read by its type).
    expect(() => readSettings(TREE, ["--size", "--rate"], {})).toThrow('--size must be an integer from 1 to 10; got "--rate".');
  });

  it("refuses a tree whose OnlyWith names a setting declared after it (a declaration bug)", () => {
    const late = setting({ env: "LATE", flag: "--late", type: oneOf(["a", "b"]), default: "a", help: "Late." });
    const tree = {
      early: setting({
        env: "EARLY",
        flag: "--early",
        type: integer(1, 2),
        default: 1,
        help: "Early.",
        onlyWith: { setting: late, value: "b", purpose: "for b" },
      }),
      late,
    };
    expect(() => readSettings(tree, [], { EARLY: "2" })).toThrow("LATE is read before it is declared");
  });

  it("lists a tree's settings in declaration order, groups in place", () => {
    expect(settingsOf(TREE).map((s) => s.env)).toEqual(["SIZE", "RATE", "WORKERS", "MODE", "COLOUR"]);
  });
});

describe("readFromEnvironment", () => {
  it("reads one setting as readSettings does without its flag", () => {
    expect(readFromEnvironment(TREE.size, { SIZE: "3" })).toBe(3);
    expect(readFromEnvironment(TREE.size, { SIZE: "" })).toBe(5);
    expect(readFromEnvironment(TREE.rate, {})).toEqual({ requests: 600, windowSeconds: 60 });
    expect(() => readFromEnvironment(TREE.size, { SIZE: "0" })).toThrow('SIZE must be an integer from 1 to 10; got "0".');
  });
});
