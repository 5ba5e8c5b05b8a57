/**
 * Writes a number as JSON.stringify does (ECMAScript Number::toString; NaN
 * and ±Infinity as null) straight into bytes, without making a string for
 * the common case: a value in [1e-6, 1e21) with at most 15 fractional digits
 * in its shortest form. That form is the smallest f for which some integer m
 * has m / 10^f === value (division is correctly rounded, so this is exactly
 * "the decimal m·10^-f reads back as value"); when m ± 1 also reads back, the
 * spec's "closest to the value" rule decides, and the string path is taken.
 * Anything else goes through the string conversion.
 */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
const MAX_FRACTION_DIGITS = POW10.length - 1;
const MAX_EXACT = 9007199254740991; // 2^53 - 1
const digits = new Uint8Array(24);

/** The longest text a number can take ("-0.0000012345678901234567": 17 digits after 5 zeros). */
export const MAX_JSON_NUMBER_BYTES = 25;

/**
 * Writes the JSON text of `value` at out[at..] and returns the position after
 * it; out must have MAX_JSON_NUMBER_BYTES of room from `at`.
 */
export function writeJsonNumber(out: Uint8Array, at: number, value: number): number {
  const x = value < 0 ? -value : value;
  if (x === 0) {
    out[at] = 0x30; // 0 and -0
    return at + 1;
  }
  if (x >= 1e-6 && x < 1e21) {
    for (let f = 0; f <= MAX_FRACTION_DIGITS; f++) {
      const scale = POW10[f];
      const m = Math.round(x * scale);
      if (m / scale !== x) continue;
      if (m >= MAX_EXACT || (m + 1) / scale === x || (m - 1) / scale === x) break;
      if (value < 0) out[at++] = 0x2d; // "-"
      return writeDecimal(out, at, m, f);
    }
  }
  return writeText(out, at, value);
}

/** m·10^-f as "123", "1.23" or "0.00123" (m has no trailing zero when f > 0). */
function writeDecimal(out: Uint8Array, at: number, m: number, f: number): number {
  let n = 0;
  let rest = m;
  while (rest > 0x7fffffff) {
    const q = Math.floor(rest / 10);
    digits[n++] = 0x30 + (rest - q * 10);
    rest = q;
  }
  let small = rest | 0;
  do {
    const q = (small / 10) | 0;
    digits[n++] = 0x30 + (small - q * 10);
    small = q;
  } while (small > 0);
  if (f === 0) {
    while (n > 0) out[at++] = digits[--n];
    return at;
  }
  if (n <= f) {
    out[at++] = 0x30;
    out[at++] = 0x2e;
    for (let z = f - n; z > 0; z--) out[at++] = 0x30;
    while (n > 0) out[at++] = digits[--n];
    return at;
  }
  while (n > f) out[at++] = digits[--n];
  out[at++] = 0x2e;
  while (n > 0) out[at++] = digits[--n];
  return at;
}

function writeText(out: Uint8Array, at: number, value: number): number {
  const text = Number.isFinite(value) ? `${value}` : "null";
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  return at;
}
