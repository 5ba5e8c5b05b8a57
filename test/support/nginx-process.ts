/**
 * Runs Debian's nginx (bench/targets/nginx.ts) with the repository's
 * config/nginx.conf.example in front of a gateway port.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { findNginx, runNginx, type NginxServer } from "../../bench/targets/nginx.js";
import { PROJECT_ROOT } from "./gateway-process.js";

export { findNginx };

export const NGINX_EXAMPLE = path.join(PROJECT_ROOT, "config/nginx.conf.example");

export type Nginx = NginxServer;

/** The example config with its listen and upstream lines pointed at these ports (each must occur exactly once). */
export function exampleConfigFor(listenPort: number, gatewayPort: number): string {
  const text = readFileSync(NGINX_EXAMPLE, "utf8");
  const replace = (source: string, pattern: RegExp, by: string) => {
    const matches = source.match(new RegExp(pattern.source, "gm")) ?? [];
    if (matches.length !== 1) throw new Error(`${NGINX_EXAMPLE}: expected exactly one line matching ${pattern}, found ${matches.length}`);
    return source.replace(new RegExp(pattern.source, "m"), by);
  };
  const listened = replace(text, /^(\s*)listen 80;/, `$1listen 127.0.0.1:${listenPort};`);
  return replace(listened, /^(\s*)server 127\.0\.0\.1:8080;/, `$1server 127.0.0.1:${gatewayPort};`);
}

export async function startNginx(gatewayPort: number): Promise<Nginx> {
  return runNginx((port) => exampleConfigFor(port, gatewayPort));
}
