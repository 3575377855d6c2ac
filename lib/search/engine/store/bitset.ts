/**
 * A set of document ids as bits in 32-bit words: membership in one step, and a union in one
 * pass over the words (a filter's values OR-ed).
 */
export class Bitset {
  constructor(public words: Uint32Array = new Uint32Array(2)) {}

  /** Adds `id`, growing (by doubling) when it lies past the end. */
  add(id: number) {
    const w = id >>> 5;
    if (w >= this.words.length) {
      const grown = new Uint32Array(Math.max(w + 1, this.words.length * 2));
      grown.set(this.words);
      this.words = grown;
    }
    this.words[w] |= 1 << (id & 31);
  }

  delete(id: number) {
    const w = id >>> 5;
    if (w < this.words.length) this.words[w] &= ~(1 << (id & 31));
  }

  has(id: number): boolean {
    const w = id >>> 5;
    return w < this.words.length && (this.words[w] & (1 << (id & 31))) !== 0;
  }

  /** Ids in the set. */
  get size(): number {
    let n = 0;
    for (const w of this.words) n += popcount(w);
    return n;
  }

  /** Adds every id of `other`. */
  addAll(other: Bitset) {
    if (other.words.length > this.words.length) {
      const grown = new Uint32Array(other.words.length);
      grown.set(this.words);
      this.words = grown;
    }
    for (let i = 0; i < other.words.length; i++) this.words[i] |= other.words[i];
  }

  /** The ids, ascending. */
  *ids(): Generator<number> {
    const words = this.words;
    for (let i = 0; i < words.length; i++) {
      let w = words[i];
      while (w) {
        const low = w & -w;
        yield i * 32 + 31 - Math.clz32(low);
        w ^= low;
      }
    }
  }
}

/** Set bits of a 32-bit word. */
function popcount(w: number): number {
  w -= (w >>> 1) & 0x55555555;
  w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
  return (Math.imul((w + (w >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}
