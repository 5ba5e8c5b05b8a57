/**
 * Cross-origin requests from browsers (Fetch standard, CORS): off unless
 * CORS_ORIGINS names origins (a comma list of `scheme://host[:port]`) or `*`.
 * An allowed origin gets `Access-Control-Allow-Origin` on every answer (errors
 * and 304 included) and the headers a client reads exposed; a preflight
 * (OPTIONS with Origin and Access-Control-Request-Method) is answered 204
 * without a key, with the methods of the path and the headers a request may send.
 */
export const CORS_ALLOW_HEADERS = "Authorization, Content-Type, x-trace-id, If-None-Match";
export const CORS_EXPOSE_HEADERS =
  "x-trace-id, x-snapshot-version, x-error-code, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, ETag, x-data-generated-at";
/** How long a browser may cache a preflight answer, seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

export class CorsPolicy {
  private constructor(
    /** null: every origin (`*`). */
    private readonly origins: ReadonlySet<string> | null,
  ) {}

  /** `*`, or a comma list of origins; throws Error with the reason for anything else. */
  static parse(text: string): CorsPolicy {
    if (text.trim() === "*") return new CorsPolicy(null);
    const origins = new Set<string>();
    for (const item of text.split(",")) {
      const origin = item.trim();
      if (origin === "") continue;
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        throw new Error(`"${origin}" is not an origin (scheme://host[:port])`);
      }
      if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== origin.toLowerCase().replace(/\/$/, "")) {
        throw new Error(`"${origin}" is not an origin: write scheme://host[:port] with no path, e.g. https://app.example.com`);
      }
      origins.add(url.origin);
    }
    if (origins.size === 0) throw new Error("it names no origin; use `*` or a comma-separated list of origins");
    return new CorsPolicy(origins);
  }

  /** True when every origin is allowed (the answer does not vary by Origin). */
  get any(): boolean {
    return this.origins === null;
  }

  /** The Access-Control-Allow-Origin value for a request's Origin header, or null when it gets none. */
  allowOrigin(origin: string): string | null {
    if (origin === "") return null;
    if (this.origins === null) return "*";
    return this.origins.has(origin.toLowerCase()) ? origin : null;
  }
}
