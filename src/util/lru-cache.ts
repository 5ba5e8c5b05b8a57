/**
 * A small least-recently-used cache on Map's insertion order, bounded by its
 * entry count and, when given a weigher, by the total weight of its entries
 * (e.g. bytes): the least recently used entries go first.
 */
export class LruCache<K, V> {
  private readonly map = new Map<K, { value: V; weight: number }>();
  private weight = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxWeight = Number.POSITIVE_INFINITY,
    private readonly weigh: (value: V) => number = () => 0,
  ) {}

  get(key: K): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.weigh(value);
    this.map.set(key, { value, weight });
    this.weight += weight;
    // The newest entry always stays, even alone over the weight bound.
    while (this.map.size > 1 && (this.map.size > this.capacity || this.weight > this.maxWeight))
      this.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    const entry = this.map.get(key);
    if (entry === undefined) return;
    this.map.delete(key);
    this.weight -= entry.weight;
  }

  get size(): number {
    return this.map.size;
  }

  /** Total weight of the entries held. */
  get totalWeight(): number {
    return this.weight;
  }
}
