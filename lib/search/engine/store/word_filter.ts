/**
 * The hash of the vocabulary's words (vocab.ts), and which words it may hold by their hashes:
 * two bits a word among 8 or more bits a word (a Bloom filter, about 5 % of absent words let
 * through at most). A lookup that is turned away here probes no slot of the table.
 */

/** FNV-1a over UTF-16 units: the same in every process (vocab.ts's snapshots keep slot positions). */
export function wordHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** `wordHash` of the word of `units[0..length)`. */
export function unitsHash(units: Uint16Array, length: number): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < length; k++) h = Math.imul(h ^ units[k], 0x01000193);
  return h >>> 0;
}

/** A word's second bit, from its hash (the first: the hash itself). */
function other(h: number): number {
  const x = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return x ^ (x >>> 13);
}

/** Bits a filter has at least. */
const MIN_BITS = 1024;

export class WordFilter {
  /** A filter with room for `words` words (or over the bits of one, a snapshot's). */
  constructor(words: number, readonly bits: Uint32Array = new Uint32Array(sizeFor(words) >>> 5)) {}

  /** A filter over a snapshot's bits, if they can be one's (a power of two of them, ≥ 1,024). */
  static of(bits: Uint32Array): WordFilter | null {
    const n = bits.length;
    return n * 32 >= MIN_BITS && (n & (n - 1)) === 0 ? new WordFilter(0, bits) : null;
  }

  /** Whether `words` words fit at 8 bits a word. */
  fits(words: number): boolean {
    return words * 8 <= this.bits.length * 32;
  }

  /** Notes a word by its hash. */
  add(h: number) {
    const mask = this.bits.length * 32 - 1, a = h & mask, b = other(h) & mask;
    this.bits[a >>> 5] |= 1 << (a & 31);
    this.bits[b >>> 5] |= 1 << (b & 31);
  }

  /** Whether a word of this hash may be held (false: it is not). */
  may(h: number): boolean {
    const mask = this.bits.length * 32 - 1, a = h & mask, b = other(h) & mask;
    return (this.bits[a >>> 5] & (1 << (a & 31))) !== 0 &&
      (this.bits[b >>> 5] & (1 << (b & 31))) !== 0;
  }
}

/** Bits of a filter with room for `words` words: 8 or more a word, a power of two. */
function sizeFor(words: number): number {
  let n = MIN_BITS;
  while (n < words * 8) n *= 2;
  return n;
}
