/** What one request may make the gateway read or parse (api-decisions.md §2; issue 9). */

/** Largest accepted JSON body, bytes (64 KiB). */
export const MAX_BODY_BYTES = 65_536;

/** Deepest accepted nesting of arrays and objects in a JSON body (checked before parsing). */
export const MAX_JSON_DEPTH = 64;
