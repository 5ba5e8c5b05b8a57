/**
 * The error catalogue of api-decisions.md §1: every code with its status and
 * title, and the ApiError that carries one through the request pipeline.
 */
export const ERROR_CATALOGUE = {
  VALIDATION_ERROR: { status: 400, title: "Invalid Parameters" },
  MALFORMED_JSON: { status: 400, title: "Invalid Parameters" },
  UNSUPPORTED_CHAIN_ID: { status: 400, title: "Invalid Parameters" },
  INVALID_POOL_ADDRESS: { status: 400, title: "Invalid Parameters" },
  INVALID_PAGINATION_CURSOR: { status: 400, title: "Invalid Parameters" },
  INVALID_REQUEST_FRAMING: { status: 400, title: "Bad Request" },
  API_KEY_MISSING: { status: 401, title: "Authentication Failed" },
  API_KEY_INVALID: { status: 401, title: "Authentication Failed" },
  API_KEY_NOT_FOUND: { status: 401, title: "Authentication Failed" },
  API_KEY_DISABLED: { status: 403, title: "Authentication Failed" },
  API_KEY_EXPIRED: { status: 403, title: "Authentication Failed" },
  API_KEY_FORBIDDEN: { status: 403, title: "Forbidden" },
  LIQUIDITY_POOL_NOT_FOUND: { status: 404, title: "Not Found" },
  ROUTE_NOT_FOUND: { status: 404, title: "Route Not Found" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method Not Allowed" },
  PAYLOAD_TOO_LARGE: { status: 413, title: "Payload Too Large" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "Unsupported Media Type" },
  RATE_LIMIT_EXCEEDED: { status: 429, title: "Rate Limit Exceeded" },
  CHAIN_DATA_UNAVAILABLE: { status: 503, title: "Service Unavailable" },
  UNKNOWN_ERROR: { status: 500, title: "Unknown Error" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** An error answered to the client as the error envelope. */
export class ApiError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: string,
    readonly metadata: Record<string, unknown> = {},
    /** Extra response headers, e.g. `Allow` or `Retry-After`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_CATALOGUE[code].status;
    this.title = ERROR_CATALOGUE[code].title;
  }
}
