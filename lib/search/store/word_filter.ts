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

export class WordFilter {
  private bits: Uint32Array;

  /** A filter with room for `words` words. */
  constructor(words: number) {
    let n = 1024;
    while (n < words * 8) n *= 2;
    this.bits = new Uint32Array(n >>> 5);
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

  get bytes(): number {
    return this.bits.byteLength;
  }
}
