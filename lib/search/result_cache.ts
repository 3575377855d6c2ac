/**
 * Encoded search responses per site, keyed by everything that shapes the body, the site's
 * index version first: an upsert or delete bumps the version, so no entry from before it
 * can answer again. Live search repeats and refines queries; a hit skips ranking,
 * highlighting and JSON. Bounded in bytes; the least recently used entry goes first.
 */

export interface CachedBody {
  bytes: Uint8Array<ArrayBuffer>;
  /** Total matches, for callers that count searches with no results. */
  found: number;
}

export class ResultCache {
  #entries = new Map<string, CachedBody>();
  #bytes = 0;

  constructor(readonly maxBytes = 32 * 1024 * 1024) {}

  /** The key of one response: site, index version, plan, and the normalised parameters. */
  static key(
    site: string,
    version: number,
    plan: string,
    q: string,
    page: number,
    perPage: number,
  ) {
    return `${site}\u0000${version}\u0000${plan}\u0000${page}\u0000${perPage}\u0000${q}`;
  }

  get(key: string): CachedBody | undefined {
    const hit = this.#entries.get(key);
    if (hit) {
      // Map order is insertion order: re-inserting marks the entry most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: CachedBody): void {
    const size = value.bytes.byteLength + key.length * 2;
    if (size > this.maxBytes / 8) return; // one huge page of results never flushes the rest
    const old = this.#entries.get(key);
    if (old) {
      this.#bytes -= old.bytes.byteLength + key.length * 2;
      this.#entries.delete(key);
    }
    this.#entries.set(key, value);
    this.#bytes += size;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= v.bytes.byteLength + k.length * 2;
    }
  }

  /** Bytes held now (keys counted at two bytes a character). */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }
}
