/**
 * `config.cursor` of every paged list (api-decisions.md §3.7, api-extended.md §7):
 * absent, null or "" is the first page; otherwise it must be a cursor this
 * gateway issued for the same route and effective query, else 400
 * INVALID_PAGINATION_CURSOR.
 */
import { ApiError } from "../api/errors.js";
import type { CursorCodec, DecodedCursor } from "../query/cursor.js";

export function invalidCursor(cursor: string, why: string): ApiError {
  return new ApiError("INVALID_PAGINATION_CURSOR", "The cursor is not valid for this request; start again without a cursor.", why, {
    receivedCursor: cursor,
  });
}

const FOREIGN = "The cursor was not issued by this gateway or was altered.";

/** The decoded cursor, or null for the first page; throws INVALID_PAGINATION_CURSOR. */
export function openCursor(cursors: CursorCodec, scope: Buffer, cursor: string | null | undefined): DecodedCursor | null {
  if (cursor === undefined || cursor === null || cursor === "") return null;
  const decoded = cursors.decode(cursor, scope);
  if (decoded === "garbage") throw invalidCursor(cursor, FOREIGN);
  if (decoded === "scope") {
    throw invalidCursor(
      cursor,
      "The cursor belongs to another route or to a request with other parameters; keep everything but `limit` unchanged while paging.",
    );
  }
  return decoded;
}

/** Throws INVALID_PAGINATION_CURSOR unless every position field was read and nothing is left over. */
export function assertPositionComplete(decoded: DecodedCursor, cursor: string): void {
  if (!decoded.position.complete()) throw invalidCursor(cursor, FOREIGN);
}
