/**
 * The chart of `npm run bench`, hand-written SVG: for every target, the
 * median server CPU per request of each server as a horizontal bar with its
 * min-max range over the rounds, and the requests/s beside it. The machine is
 * quoted in the title.
 */
import type { HttpCpuResults } from "./results.js";
import type { ServerKind } from "./plan.js";

const COLORS: Record<ServerKind, string> = { gateway: "#2b6cb0", bare: "#718096", floor: "#38a169" };
const WIDTH = 980;
const LABEL_W = 300;
const BAR_W = 420;
const ROW_H = 22;

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function text(x: number, y: number, content: string, attributes = ""): string {
  return `<text x="${x}" y="${y}" ${attributes}>${escape(content)}</text>`;
}

export function renderChart(results: HttpCpuResults): string {
  const m = results.machine;
  const max = Math.max(1, ...results.cells.map((c) => (Number.isFinite(c.cpuUsPerRequest.max) ? c.cpuUsPerRequest.max : 0)));
  const kindOf = (id: string): ServerKind => results.servers.find((s) => s.id === id)?.kind ?? "gateway";
  const labelOf = (id: string) => results.servers.find((s) => s.id === id)?.label ?? id;
  const parts: string[] = [];
  let y = 28;
  parts.push(
    text(
      16,
      y,
      `liquidity-gateway: server CPU µs per request (median, min-max over ${results.settings.rounds} rounds; ${results.mode} run)`,
      'font-size="16" font-weight="bold"',
    ),
  );
  y += 20;
  parts.push(
    text(
      16,
      y,
      `${m.cpuModel}, ${m.cores} cores, Node ${m.node}, Linux ${m.kernel}; load average ${m.loadAverageStart.join(" ")} → ${m.loadAverageEnd.join(" ")}; ${results.startedAt}`,
      'font-size="12" fill="#4a5568"',
    ),
  );
  y += 16;
  const s = results.settings;
  parts.push(
    text(
      16,
      y,
      `wrk ${s.wrk.threads} thread(s), ${s.wrk.connections} connections, ${s.durationS} s per run; servers on CPU ${s.serverCpus ?? "any"}, wrk on CPU ${s.wrk.cpus ?? "any"}`,
      'font-size="12" fill="#4a5568"',
    ),
  );
  for (const target of results.targets) {
    const cells = results.cells.filter((c) => c.target === target.name);
    if (cells.length === 0) continue;
    y += 30;
    parts.push(
      text(
        16,
        y,
        `${target.label}: ${target.method} ${target.path.length > 50 ? `${target.path.slice(0, 47)}...` : target.path}${target.body ? ` ${target.body.length > 40 ? `${target.body.slice(0, 37)}...` : target.body}` : ""}`,
        'font-size="13" font-weight="bold"',
      ),
    );
    for (const c of cells) {
      y += 6;
      const scale = (v: number) => (Number.isFinite(v) ? Math.max(1, Math.round((v / max) * BAR_W)) : 0);
      const w = scale(c.cpuUsPerRequest.median);
      parts.push(text(LABEL_W - 8, y + 12, labelOf(c.server), 'font-size="12" text-anchor="end"'));
      parts.push(`<rect x="${LABEL_W}" y="${y}" width="${w}" height="${ROW_H - 6}" fill="${COLORS[kindOf(c.server)]}" rx="2"/>`);
      if (c.rounds > 1) {
        const x1 = LABEL_W + scale(c.cpuUsPerRequest.min);
        const x2 = LABEL_W + scale(c.cpuUsPerRequest.max);
        const ym = y + (ROW_H - 6) / 2;
        parts.push(
          `<line x1="${x1}" y1="${ym}" x2="${x2}" y2="${ym}" stroke="#1a202c"/><line x1="${x1}" y1="${y + 3}" x2="${x1}" y2="${y + ROW_H - 9}" stroke="#1a202c"/><line x1="${x2}" y1="${y + 3}" x2="${x2}" y2="${y + ROW_H - 9}" stroke="#1a202c"/>`,
        );
      }
      const right = LABEL_W + Math.max(w, scale(c.cpuUsPerRequest.max)) + 8;
      parts.push(
        text(
          right,
          y + 12,
          `${c.cpuUsPerRequest.median.toFixed(1)} µs/req · ${Math.round(c.rps.median).toLocaleString("en-US")} req/s`,
          'font-size="12"',
        ),
      );
      y += ROW_H - 6;
    }
  }
  y += 30;
  let x = 16;
  for (const [name, color] of [
    ["gateway", COLORS.gateway],
    ["bare uWS (same bytes, no work)", COLORS.bare],
    ["floor uWS (unavoidable work only)", COLORS.floor],
  ] as const) {
    parts.push(`<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${color}"/>`);
    parts.push(text(x + 18, y, name, 'font-size="12"'));
    x += 30 + name.length * 7;
  }
  y += 16;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y}" viewBox="0 0 ${WIDTH} ${y}" font-family="Helvetica, Arial, sans-serif">\n<rect width="100%" height="100%" fill="#ffffff"/>\n${parts.join("\n")}\n</svg>\n`;
}
