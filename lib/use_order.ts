/**
 * A Map kept in order of use, the least recently used first (a Map iterates in insertion
 * order): `use` moves an entry to the end. Most uses ask for the entry used just before (a
 * repeated search), which is already last: it is not moved, since a delete and a set cost as
 * much as the rest of a cached search's reads of these maps.
 */
export class UseOrder<K, V> extends Map<K, V> {
  /** The key at the end, when known. */
  #last: K | undefined;

  constructor() {
    super();
  }

  /** Marks `key`, holding `value`, the most recently used. */
  use(key: K, value: V): void {
    if (key === this.#last) super.set(key, value);
    else this.#toEnd(key, value);
  }

  /** A new key goes to the end; a present one keeps its place (as in a Map). */
  override set(key: K, value: V): this {
    if (!this.has(key)) this.#last = key;
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    if (key === this.#last) this.#last = undefined;
    return super.delete(key);
  }

  override clear(): void {
    this.#last = undefined;
    super.clear();
  }

  /** Puts `key` first, the least recently used (a Map can only be built anew for that). */
  putFirst(key: K, value: V): void {
    const rest = [...this].filter(([k]) => k !== key);
    super.clear();
    super.set(key, value);
    for (const [k, v] of rest) super.set(k, v);
    this.#last = rest.length ? rest[rest.length - 1][0] : key;
  }

  #toEnd(key: K, value: V) {
    super.delete(key);
    super.set(key, value);
    this.#last = key;
  }
}
