/**
 * The `data` JSON of a bucket answer (a token's candles, a pool's rows: shared/spec/history.md §24), written
 * straight into bytes: pre-encoded runs, numbers as JSON.stringify writes them without a string each
 * (util/json-number.ts), one Buffer per answer of exactly its length (what the serving thread keeps:
 * src/history/answer-cache.ts). The bytes are those of the JSON text the route always answered:
 * `{"chainId":…,"address":…,"timeframe":…,"aggregate":…,"source":"snapshots","candles"|"rows":[[t,v…],…],
 * "filled":[…],"coverage":{"from":…,"to":…,"observations":…,"gaps":[[a,b],…]}}`.
 */
import type { HistoryTimeframe } from "../api/wire.js";
import type { BucketAnswer } from "../query/history-answer.js";
import { MAX_JSON_NUMBER_BYTES, writeJsonNumber } from "../util/json-number.js";

export interface BucketsHead {
  readonly chainId: number;
  /** The path's address in lower case (validated hex: ASCII). */
  readonly address: string;
  readonly timeframe: HistoryTimeframe;
  readonly aggregate: number;
  /** `candles` (tokens) or `rows` (pools). */
  readonly list: "candles" | "rows";
}

const FILLED = Buffer.from('],"filled":[', "latin1");
const FROM = Buffer.from('],"coverage":{"from":', "latin1");
const TO = Buffer.from(',"to":', "latin1");
const OBSERVATIONS = Buffer.from(',"observations":', "latin1");
const GAPS = Buffer.from(',"gaps":[', "latin1");
const END = Buffer.from("]}}", "latin1");
/** Room for one `[a,b],` of the gaps and the fixed runs around them. */
const PAIR_BYTES = 2 * MAX_JSON_NUMBER_BYTES + 4;
const FIXED_BYTES = FILLED.length + FROM.length + TO.length + OBSERVATIONS.length + GAPS.length + END.length + 3 * MAX_JSON_NUMBER_BYTES;

/** Columns whose last value is remembered (a token's candle has 5 values; a pool's row fewer). */
const MEMO_COLUMNS = 8;

export function bucketsJson(head: BucketsHead, answer: BucketAnswer): Buffer {
  const start = `{"chainId":${head.chainId},"address":"${head.address}","timeframe":"${head.timeframe}","aggregate":${head.aggregate},"source":"snapshots","${head.list}":[`;
  const buckets = answer.buckets;
  const gaps = answer.coverage.gaps;
  const values = buckets.length === 0 ? 0 : buckets[0].v.length;
  // Every number at its longest: `,[t,v…]` per bucket, `,t` per filled one, the coverage.
  const bound =
    start.length +
    buckets.length * (3 + (values + 1) * (MAX_JSON_NUMBER_BYTES + 1) + MAX_JSON_NUMBER_BYTES + 1) +
    gaps.length * PAIR_BYTES +
    FIXED_BYTES;
  const out = Buffer.allocUnsafe(bound);
  let at = out.write(start, 0, "latin1");
  // A value equal to the one written just before (open = high = low = close of a quiet bucket) or to the
  // same column's in the bucket before (a value that did not change) is copied from where it was written.
  let lastValue = NaN;
  let lastStart = 0;
  let lastEnd = 0;
  const columnValue = new Float64Array(MEMO_COLUMNS).fill(NaN);
  const columnStart = new Int32Array(MEMO_COLUMNS);
  const columnEnd = new Int32Array(MEMO_COLUMNS);
  for (let i = 0; i < buckets.length; i++) {
    const b = buckets[i];
    if (i > 0) out[at++] = 0x2c; // ,
    out[at++] = 0x5b; // [
    at = writeJsonNumber(out, at, b.t);
    const v = b.v;
    for (let j = 0; j < v.length; j++) {
      out[at++] = 0x2c;
      const x = v[j];
      let from = -1;
      let to = 0;
      // NaN never equals: it is written (as null); 0 and -0 are equal and both written 0.
      if (x === lastValue) {
        from = lastStart;
        to = lastEnd;
      } else if (j < MEMO_COLUMNS && x === columnValue[j]) {
        from = columnStart[j];
        to = columnEnd[j];
      }
      const begin = at;
      if (from >= 0) for (let k = from; k < to; k++) out[at++] = out[k];
      else at = writeJsonNumber(out, at, x);
      lastValue = x;
      lastStart = begin;
      lastEnd = at;
      if (j < MEMO_COLUMNS) {
        columnValue[j] = x;
        columnStart[j] = begin;
        columnEnd[j] = at;
      }
    }
    out[at++] = 0x5d; // ]
  }
  at += FILLED.copy(out, at);
  let first = true;
  for (let i = 0; i < buckets.length; i++) {
    if (!buckets[i].filled) continue;
    if (!first) out[at++] = 0x2c;
    first = false;
    at = writeJsonNumber(out, at, buckets[i].t);
  }
  const { from, to, observations } = answer.coverage;
  at += FROM.copy(out, at);
  at = writeJsonNumber(out, at, from);
  at += TO.copy(out, at);
  at = writeJsonNumber(out, at, to);
  at += OBSERVATIONS.copy(out, at);
  at = writeJsonNumber(out, at, observations);
  at += GAPS.copy(out, at);
  for (let i = 0; i < gaps.length; i++) {
    if (i > 0) out[at++] = 0x2c;
    out[at++] = 0x5b;
    at = writeJsonNumber(out, at, gaps[i][0]);
    out[at++] = 0x2c;
    at = writeJsonNumber(out, at, gaps[i][1]);
    out[at++] = 0x5d;
  }
  at += END.copy(out, at);
  // One Buffer of the answer's own length (what is kept holds no slack).
  const data = Buffer.allocUnsafe(at);
  out.copy(data, 0, 0, at);
  return data;
}
