/**
 * `npm run bench:results`: renders every generated section of bench/RESULTS.md (and the http-cpu chart beside
 * it) again from the results file that section names, as the run that wrote them did. For a change of a
 * renderer; figures only ever come from a run. test/unit/bench/render-results.test.ts fails while a section or
 * the chart differs from what its results file renders to.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PROJECT_ROOT } from "../src/config/config.js";
import { BUILD_SECTION_ID, renderBuildSection, type BuildResults } from "./build/summary.js";
import { renderChart } from "./http/chart.js";
import { renderSection as renderHttpSection, SECTION_ID as HTTP_SECTION_ID } from "./http/report.js";
import type { HttpCpuResults } from "./http/results.js";
import { renderSection as renderFleetSection, SECTION_ID as FLEET_SECTION_ID, type FleetResults } from "./fleet/summary.js";
import { renderSection as renderHistorySection, SECTION_ID as HISTORY_SECTION_ID, type HistoryResults } from "./history/summary.js";
import { renderSection as renderFloodSection, SECTION_ID as FLOOD_SECTION_ID, type FloodResults } from "./live/flood-summary.js";
import { renderSection as renderLiveSection, SECTION_ID as LIVE_SECTION_ID, type LiveResults } from "./live/summary.js";
import { replaceSection, sectionText } from "./shared/results-md.js";

/** bench/, where RESULTS.md is and the paths its sections name start. */
export const BENCH_DIR = join(PROJECT_ROOT, "bench");

/** Each generated section: how its text is made from its results (`json`: the file's path from bench/). */
const SECTIONS: readonly { id: string; render: (results: unknown, json: string) => string }[] = [
  { id: BUILD_SECTION_ID, render: (results, json) => renderBuildSection(results as BuildResults, { jsonFile: json }) },
  {
    id: HTTP_SECTION_ID,
    render: (results, json) => renderHttpSection(results as HttpCpuResults, { json, svg: chartOf(json) }),
  },
  { id: LIVE_SECTION_ID, render: (results, json) => renderLiveSection(results as LiveResults, json) },
  { id: FLOOD_SECTION_ID, render: (results, json) => renderFloodSection(results as FloodResults, json) },
  { id: FLEET_SECTION_ID, render: (results, json) => renderFleetSection(results as FleetResults, json) },
  { id: HISTORY_SECTION_ID, render: (results, json) => renderHistorySection(results as HistoryResults, json) },
];

/** The chart `npm run bench` writes beside its results file. */
function chartOf(json: string): string {
  return json.replace(/\.json$/, ".svg");
}

/** The results file (path from bench/) that a section's text links to first. */
export function resultsFileOf(section: string): string {
  const link = /\]\((results\/[^)\s]+\.json)\)/.exec(section);
  if (link === null) throw new Error(`the section names no results/….json file:\n${section.slice(0, 300)}`);
  return link[1]!;
}

export interface Rendered {
  /** RESULTS.md with every generated section rendered again. */
  readonly document: string;
  /** The http-cpu chart (path from bench/ and its SVG), when the document has that section. */
  readonly charts: readonly { readonly file: string; readonly svg: string }[];
}

/** `document` (RESULTS.md) with each generated section it has rendered again from its results file, read by `read`. */
export function renderResults(document: string, read: (file: string) => string): Rendered {
  let out = document;
  const charts: { file: string; svg: string }[] = [];
  for (const section of SECTIONS) {
    const text = sectionText(document, section.id);
    if (text === null) continue;
    const json = resultsFileOf(text);
    const results: unknown = JSON.parse(read(json));
    out = replaceSection(out, section.id, section.render(results, json));
    if (section.id === HTTP_SECTION_ID) charts.push({ file: chartOf(json), svg: renderChart(results as HttpCpuResults) });
  }
  return { document: out, charts };
}

function main(): void {
  const read = (file: string) => readFileSync(join(BENCH_DIR, file), "utf8");
  const before = read("RESULTS.md");
  const rendered = renderResults(before, read);
  writeFileSync(join(BENCH_DIR, "RESULTS.md"), rendered.document);
  for (const chart of rendered.charts) writeFileSync(join(BENCH_DIR, chart.file), chart.svg);
  const charts = rendered.charts.map((c) => c.file).join(", ");
  process.stdout.write(
    `${rendered.document === before ? "bench/RESULTS.md unchanged" : "bench/RESULTS.md rendered again"}; charts: ${charts || "none"}\n`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
