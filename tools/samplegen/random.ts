/**
 * Deterministic pseudo-random numbers for the sample-data generator.
 *
 * The generator must produce byte-identical files for the same seed, so it
 * never touches Math.random or the clock. Streams are named by a label path
 * (`Rng.fromLabel("seed", 1, "chain", 8453)`): forking a stream derives a new,
 * independent stream from the label alone, so adding draws to one part of the
 * generator never shifts the numbers of another part.
 */

/** cyrb128: a fast 128-bit string hash, used to seed sfc32. */
export function hashString(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

const TWO_POW_32 = 4294967296;

/** sfc32 generator with the distributions the generator needs. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  private constructor(readonly label: string) {
    [this.a, this.b, this.c, this.d] = hashString(label);
    for (let i = 0; i < 12; i++) this.uint32();
  }

  static fromLabel(...parts: ReadonlyArray<string | number>): Rng {
    return new Rng(parts.join("/"));
  }

  /** An independent stream named by this stream's label plus `parts`. */
  fork(...parts: ReadonlyArray<string | number>): Rng {
    return new Rng([this.label, ...parts].join("/"));
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / TWO_POW_32;
  }

  /** Uniform in (0, 1]: safe for logarithms and negative powers. */
  nextPositive(): number {
    return (this.uint32() + 1) / TWO_POW_32;
  }

  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  float(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks an item with probability proportional to `weightOf(item)`. */
  weighted<T>(items: readonly T[], weightOf: (item: T) => number): T {
    let total = 0;
    for (const item of items) total += weightOf(item);
    let target = this.next() * total;
    for (const item of items) {
      target -= weightOf(item);
      if (target < 0) return item;
    }
    return items[items.length - 1] as T;
  }

  /** Standard normal deviate (Box-Muller). */
  normal(): number {
    return Math.sqrt(-2 * Math.log(this.nextPositive())) * Math.cos(2 * Math.PI * this.next());
  }

  /** Log-normal deviate with the given median and log-space sigma. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Pareto deviate: `scale` is the minimum, smaller `alpha` means a heavier tail. */
  pareto(scale: number, alpha: number): number {
    return scale / Math.pow(this.nextPositive(), 1 / alpha);
  }

  /** `length` lowercase hexadecimal digits. */
  hex(length: number): string {
    let out = "";
    while (out.length < length) out += this.uint32().toString(16).padStart(8, "0");
    return out.slice(0, length);
  }

  /** A uniformly random non-negative integer below 2^bits. */
  bigBits(bits: number): bigint {
    if (bits <= 0) return 0n;
    const hexDigits = Math.ceil(bits / 4);
    const value = BigInt("0x" + this.hex(hexDigits));
    return value & ((1n << BigInt(bits)) - 1n);
  }

  /** Fisher-Yates shuffle in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }
}
