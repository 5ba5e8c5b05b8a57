/**
 * bench/RESULTS.md's generated sections and the http-cpu chart are what their results files render to
 * (bench/render-results.ts, `npm run bench:results`): a renderer changed without rendering them again, or a
 * section edited by hand, fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BENCH_DIR, renderResults, resultsFileOf } from "../../../bench/render-results.js";

const read = (file: string) => readFileSync(join(BENCH_DIR, file), "utf8");

describe("bench/RESULTS.md", () => {
  const document = read("RESULTS.md");
  const rendered = renderResults(document, read);

  it("has its three generated sections, each the render of the results file it names (npm run bench:results)", () => {
    for (const id of ["build", "http-cpu", "live"]) expect(document, id).toContain(`<!-- section:${id} begin`);
    expect(rendered.document).toBe(document);
  });

  it("has beside it the http-cpu chart its results render to", () => {
    expect(rendered.charts).toHaveLength(1);
    for (const chart of rendered.charts) expect(chart.svg).toBe(read(chart.file));
  });

  it("names a section's results file by its first results/….json link", () => {
    expect(resultsFileOf("From the run; raw figures in [results/x-1.json](results/x-1.json), chart [c](results/x-1.svg).")).toBe(
      "results/x-1.json",
    );
    expect(() => resultsFileOf("no link")).toThrow(/names no results/);
  });
});
