/**
 * A byte-bounded, least-recently-used memo for one isolate. The catalog keeps values here only
 * under keys that hold a catalog version, and a version's entries never change once written, so
 * nothing kept can go stale: a publish makes a new version and new keys.
 *
 * Why it exists: KV reads and Cache API lookups cost more CPU than rendering an answer, so a hot
 * product is worth keeping in the isolate that served it last (measured with `npm run bench`).
 */
export class BoundedMemo<V> {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value`, evicting the least recently used entries beyond the byte budget. */
  set(key: string, value: V, bytes: number): void {
    if (bytes > this.#maxBytes / 4) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#bytes -= old.bytes;
      this.#entries.delete(key);
    }
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
