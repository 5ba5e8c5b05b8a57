/**
 * Compressed bodies a serving thread keeps so that a hot response is
 * compressed once per snapshot, not once per request: a least-recently-used
 * map bounded by the bytes it holds. Keys name the snapshot version, so a new
 * snapshot never meets an old entry (old ones age out).
 */
export class CompressionCache<V extends { readonly bytes: number }> {
  private readonly map = new Map<string, V>();
  private held = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    if (value.bytes > this.maxBytes / 4) return; // one entry never crowds out the rest
    const old = this.map.get(key);
    if (old !== undefined) {
      this.held -= old.bytes;
      this.map.delete(key);
    }
    this.map.set(key, value);
    this.held += value.bytes;
    for (const [k, v] of this.map) {
      if (this.held <= this.maxBytes) break;
      this.map.delete(k);
      this.held -= v.bytes;
    }
  }

  get bytes(): number {
    return this.held;
  }
}
