import { describe, expect, test } from "vitest";
import { replaceSection } from "../../../../bench/shared/results-md.js";

describe("replaceSection", () => {
  test("appends a missing section, then replaces only it", () => {
    const first = replaceSection("# Results\n", "http-cpu", "## HTTP\nold");
    expect(first).toMatch(/^# Results\n\n<!-- section:http-cpu begin[^\n]*-->\n## HTTP\nold\n<!-- section:http-cpu end -->\n$/);
    const both = replaceSection(first, "build", "## Build\nb");
    const updated = replaceSection(both, "http-cpu", "## HTTP\nnew");
    expect(updated).toContain("## HTTP\nnew");
    expect(updated).not.toContain("old");
    expect(updated).toContain("## Build\nb");
    expect(updated.indexOf("section:http-cpu begin")).toBeLessThan(updated.indexOf("section:build begin"));
    expect(replaceSection(updated, "http-cpu", "## HTTP\nnew")).toBe(updated);
  });

  test("a file with one marker of a section is not guessed at", () => {
    expect(() => replaceSection("<!-- section:build end -->", "build", "x")).toThrow(/only one of its markers/);
    expect(() => replaceSection("", "Bad Id", "x")).toThrow(/section id/);
  });
});
