/**
 * src/openapi/examples.ts is generated (tools/generate-examples.ts, `npm run
 * examples:generate`) from a running gateway on the bundled sample: this runs
 * the generator into memory (the real built gateway, as the script does) and
 * fails when the committed file differs, i.e. when a change of the gateway's
 * answers, of the sample or of the generator was not regenerated.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EXAMPLES_FILE, generateExamples } from "../../tools/generate-examples.js";

describe("the OpenAPI examples", () => {
  it("are what the generator makes of the bundled sample now (else run npm run examples:generate)", async () => {
    const generated = (await generateExamples()).split("\n");
    const committed = readFileSync(EXAMPLES_FILE, "utf8").split("\n");
    const first = committed.findIndex((line, i) => line !== generated[i]);
    const where =
      first < 0 && committed.length === generated.length
        ? ""
        : `line ${first + 1}: committed ${JSON.stringify(committed[first])}, generated ${JSON.stringify(generated[first])}`;
    expect(where, "src/openapi/examples.ts is stale: run npm run examples:generate").toBe("");
  }, 120_000);
});
