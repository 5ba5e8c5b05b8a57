/**
 * The results chart, hand-written SVG: requests per second of every HTTP
 * target as horizontal bars (grouped: pool route, default token page, other
 * token queries), then the gateway's ratios against bare uWS and fastify with
 * their targets. The machine is quoted in the title.
 */
import type { BenchResults, HttpTargetResult } from "./summary.js";

const COLORS: Record<HttpTargetResult["server"], string> = { gateway: "#2b6cb0", "bare-uws": "#718096", fastify: "#dd6b20" };
const WIDTH = 960;
const LABEL_W = 280;
const BAR_W = 440;
const ROW_H = 24;

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function text(x: number, y: number, content: string, attributes = ""): string {
  return `<text x="${x}" y="${y}" ${attributes}>${escape(content)}</text>`;
}

const GROUPS: ReadonlyArray<{ title: string; ids: string[] }> = [
  { title: "Pool route (GET /v1/pools/8453/…)", ids: ["gateway-pool", "bare-uws-pool", "fastify-pool"] },
  { title: "Default token page (POST /v1/tokens {})", ids: ["gateway-tokens-default", "bare-uws-tokens-default", "fastify-tokens-default"] },
  { title: "Other token queries (gateway)", ids: ["gateway-tokens-limit10", "gateway-tokens-limit500", "gateway-tokens-filtered", "gateway-tokens-uncached"] },
];

export function renderChart(results: BenchResults): string {
  const byId = new Map(results.http.targets.map((t) => [t.id, t]));
  const max = Math.max(1, ...results.http.targets.map((t) => t.rps));
  const m = results.machine;
  const parts: string[] = [];
  let y = 28;
  parts.push(text(16, y, `liquidity-gateway: requests/s, ${results.settings.connections} connections, ${results.settings.durationS} s per target (${results.mode} run)`, 'font-size="16" font-weight="bold"'));
  y += 20;
  parts.push(text(16, y, `${m.cores} cores, ${m.cpuModel}, Node ${m.node}, load average ${m.loadAverageStart.join(" ")} → ${m.loadAverageEnd.join(" ")}; ${results.startedAt}`, 'font-size="12" fill="#4a5568"'));
  y += 16;
  parts.push(text(16, y, `The load generator shares the ${m.cores} cores with the server under test; gateway and bare uWS run ${results.settings.gatewayThreads} serving threads, fastify one process.`, 'font-size="12" fill="#4a5568"'));
  y += 14;
  for (const group of GROUPS) {
    y += 22;
    parts.push(text(16, y, group.title, 'font-size="13" font-weight="bold"'));
    for (const id of group.ids) {
      const t = byId.get(id);
      if (!t) continue;
      y += 6;
      const w = Math.max(1, Math.round((t.rps / max) * BAR_W));
      parts.push(text(LABEL_W - 8, y + 13, t.label, 'font-size="12" text-anchor="end"'));
      parts.push(`<rect x="${LABEL_W}" y="${y}" width="${w}" height="${ROW_H - 6}" fill="${COLORS[t.server]}" rx="2"/>`);
      parts.push(text(LABEL_W + w + 6, y + 13, `${t.rps.toLocaleString("en-US")} req/s · p99 ${t.latencyMs.p99} ms`, 'font-size="12"'));
      y += ROW_H - 6;
    }
  }
  y += 30;
  parts.push(text(16, y, "Ratios (requests/s) and targets", 'font-size="13" font-weight="bold"'));
  const ratio = (a: string, b: string) => {
    const x = byId.get(a);
    const z = byId.get(b);
    return x && z && z.rps > 0 ? x.rps / z.rps : NaN;
  };
  const lines: Array<[string, number, number, string]> = [
    ["pool route: gateway / bare uWS", ratio("gateway-pool", "bare-uws-pool"), 0.85, "≥ 0.85"],
    ["token page: gateway / bare uWS", ratio("gateway-tokens-default", "bare-uws-tokens-default"), 0.7, "≥ 0.70"],
    ["pool route: gateway / fastify", ratio("gateway-pool", "fastify-pool"), 3, "≥ 3"],
    ["token page: gateway / fastify", ratio("gateway-tokens-default", "fastify-tokens-default"), 3, "≥ 3"],
  ];
  for (const [label, value, threshold, target] of lines) {
    y += 20;
    const met = value >= threshold;
    parts.push(text(LABEL_W - 8, y, label, 'font-size="12" text-anchor="end"'));
    const scaleMax = Math.max(3.5, ...lines.map((l) => (Number.isFinite(l[1]) ? l[1] : 0)));
    const w = Number.isFinite(value) ? Math.max(1, Math.round((value / scaleMax) * BAR_W)) : 0;
    const tx = LABEL_W + Math.round((threshold / scaleMax) * BAR_W);
    parts.push(`<rect x="${LABEL_W}" y="${y - 12}" width="${w}" height="14" fill="${met ? "#38a169" : "#e53e3e"}" rx="2"/>`);
    parts.push(`<line x1="${tx}" y1="${y - 15}" x2="${tx}" y2="${y + 5}" stroke="#1a202c" stroke-dasharray="3,2"/>`);
    parts.push(text(LABEL_W + Math.max(w, tx - LABEL_W) + 8, y, `${Number.isFinite(value) ? value.toFixed(2) : "n/a"} (target ${target}: ${met ? "met" : "missed"})`, 'font-size="12"'));
  }
  y += 24;
  const legend = [
    ["gateway", COLORS.gateway],
    ["bare uWS (same bytes, no logic)", COLORS["bare-uws"]],
    ["fastify (same bytes)", COLORS.fastify],
  ] as const;
  let x = 16;
  for (const [name, color] of legend) {
    parts.push(`<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${color}"/>`);
    parts.push(text(x + 18, y, name, 'font-size="12"'));
    x += 30 + name.length * 7;
  }
  y += 16;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y}" viewBox="0 0 ${WIDTH} ${y}" font-family="Helvetica, Arial, sans-serif">\n<rect width="100%" height="100%" fill="#ffffff"/>\n${parts.join("\n")}\n</svg>\n`;
}
