/**
 * A set of document ids as bits in 32-bit words: membership in one step, and a count of
 * what two sets share in one pass over their words (facet counts).
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

  /** Ids in both sets. */
  sharedWith(other: Bitset): number {
    const a = this.words, b = other.words, end = Math.min(a.length, b.length);
    let n = 0;
    for (let i = 0; i < end; i++) if (a[i] & b[i]) n += popcount(a[i] & b[i]);
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

  /** A set of the same ids renumbered (`remap`: old id → new id, -1 for the gone). */
  remapped(remap: Int32Array): Bitset {
    const moved: number[] = [];
    for (const id of this.ids()) if (id < remap.length && remap[id] >= 0) moved.push(remap[id]);
    // Ids keep their order: the last is the highest, and the words end there.
    const out = new Bitset(new Uint32Array(Math.max(1, ((moved.at(-1) ?? 0) >>> 5) + 1)));
    for (const id of moved) out.add(id);
    return out;
  }
}

/** Set bits of a 32-bit word. */
function popcount(w: number): number {
  w -= (w >>> 1) & 0x55555555;
  w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
  return (Math.imul((w + (w >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}
