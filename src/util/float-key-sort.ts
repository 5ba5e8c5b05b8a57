/**
 * Stable order of n float keys without a comparator: an LSD radix sort of
 * indices over the keys' 64-bit IEEE patterns (6 passes of 11 bits; a pass in
 * which every key has the same digit is skipped). Equal keys keep their index
 * order in both directions, so descending means "by key desc, ties by index asc".
 *
 * Keys must not be NaN; -0 and +0 are equal keys. Scratch arrays are module
 * state (one set per thread), grown to the largest n seen; the result is
 * written to `out`, which the caller owns.
 */
const BITS = 11;
const BUCKETS = 1 << BITS;
const MASK = BUCKETS - 1;
const PASSES = 6; // 3 digits (11, 11, 10 bits) per 32-bit half

const counts = new Uint32Array(PASSES * BUCKETS);
const bits = new Float64Array(1);
const halves = new Uint32Array(bits.buffer);
let loA = new Uint32Array(0);
let hiA = new Uint32Array(0);
let idA = new Uint32Array(0);
let loB = new Uint32Array(0);
let hiB = new Uint32Array(0);
let idB = new Uint32Array(0);

function reserve(n: number): void {
  if (loA.length >= n) return;
  const size = Math.max(n, loA.length * 2, 1024);
  loA = new Uint32Array(size);
  hiA = new Uint32Array(size);
  idA = new Uint32Array(size);
  loB = new Uint32Array(size);
  hiB = new Uint32Array(size);
  idB = new Uint32Array(size);
}

/**
 * Fills out[0..n) with the indices 0..n-1 ordered by keys[index] (ascending or
 * descending), ties by index ascending. Returns `out`.
 */
export function sortByFloatKey(keys: Float64Array, n: number, descending: boolean, out: Uint32Array = new Uint32Array(n)): Uint32Array {
  if (out.length < n || keys.length < n) throw new RangeError(`sortByFloatKey: ${n} keys, ${keys.length} given, room for ${out.length}`);
  reserve(n);
  counts.fill(0);
  // Each double becomes an unsigned 64-bit pattern (hi, lo) whose unsigned
  // order is the numeric order; complemented for descending order.
  const flip = descending ? 0xffffffff : 0;
  let sLo = loA;
  let sHi = hiA;
  let sId = idA;
  for (let i = 0; i < n; i++) {
    bits[0] = keys[i] + 0; // -0 → +0
    let lo = halves[0];
    let hi = halves[1];
    if (hi >>> 31) {
      hi = ~hi;
      lo = ~lo;
    } else hi |= 0x80000000;
    lo = (lo ^ flip) >>> 0;
    hi = (hi ^ flip) >>> 0;
    sLo[i] = lo;
    sHi[i] = hi;
    sId[i] = i;
    counts[lo & MASK]++;
    counts[BUCKETS + ((lo >>> BITS) & MASK)]++;
    counts[2 * BUCKETS + (lo >>> (2 * BITS))]++;
    counts[3 * BUCKETS + (hi & MASK)]++;
    counts[4 * BUCKETS + ((hi >>> BITS) & MASK)]++;
    counts[5 * BUCKETS + (hi >>> (2 * BITS))]++;
  }

  let dLo = loB;
  let dHi = hiB;
  let dId = idB;
  for (let pass = 0; pass < PASSES && n > 1; pass++) {
    const high = pass >= 3;
    const shift = (pass % 3) * BITS;
    const base = pass * BUCKETS;
    // Every key has the same digit: this pass would not move anything.
    if (counts[base + (((high ? sHi[0] : sLo[0]) >>> shift) & MASK)] === n) continue;
    let sum = 0;
    for (let b = base; b < base + BUCKETS; b++) {
      const c = counts[b];
      counts[b] = sum;
      sum += c;
    }
    for (let j = 0; j < n; j++) {
      const lo = sLo[j];
      const hi = sHi[j];
      const at = counts[base + (((high ? hi : lo) >>> shift) & MASK)]++;
      dLo[at] = lo;
      dHi[at] = hi;
      dId[at] = sId[j];
    }
    let t = sLo;
    sLo = dLo;
    dLo = t;
    t = sHi;
    sHi = dHi;
    dHi = t;
    t = sId;
    sId = dId;
    dId = t;
  }
  for (let i = 0; i < n; i++) out[i] = sId[i];
  return out;
}
