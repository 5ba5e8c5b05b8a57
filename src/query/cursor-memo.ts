/**
 * The next-page cursors a list view has issued, by page end: the same page
 * end of the same scope gives the same cursor, so repeated pages skip the HMAC.
 */
import { LruCache } from "../util/lru-cache.js";

export class CursorMemo {
  private readonly issued = new LruCache<number, { readonly scope: Buffer; readonly json: string }>(64);

  /** The JSON of the cursor to the page that starts at `end`; `encode` makes it when it is not remembered. */
  json(end: number, scope: Buffer, encode: () => string): string {
    const known = this.issued.get(end);
    if (known !== undefined && known.scope === scope) return known.json;
    const json = JSON.stringify(encode());
    this.issued.set(end, { scope, json });
    return json;
  }
}
