/**
 * Which three-letter sequences occur in a site's words (ASCII letters, digits and joiners,
 * with start and end marks): a bitmap of 43³ bits (10 KB), one for each sequence of three of
 * those 40 characters and the two marks, that lets typo correction skip
 * candidates no word could have. Only ever set, so a removed word may leave its sequences
 * behind.
 */
export const START = 2, END = 3;

/** Character code → its code (below CODES); -1 for any other character (counted as possible). */
const CODE = new Int8Array(128).fill(-1);
CODE[START] = 1;
CODE[END] = 2;
const LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789_.-'";
[...LETTERS].forEach((c, i) => CODE[c.charCodeAt(0)] = 3 + i);
const code = (c: number) => (c < 128 ? CODE[c] : -1);
/** Codes a sequence's place is counted in: 0 (unused), the two marks and the letters. */
const CODES = 3 + LETTERS.length;

/** Bytes of the bitmap. */
export const TRIGRAM_BYTES = (CODES * CODES * CODES + 7) >> 3;

export class Trigrams {
  constructor(readonly bits: Uint8Array = new Uint8Array(TRIGRAM_BYTES)) {}

  /** Notes the sequences of a word (ignored when it has a character outside the table). */
  add(word: string) {
    let a = code(START), b = code(word.charCodeAt(0));
    if (b < 0) return;
    for (let i = 1; i <= word.length; i++) {
      const c = code(i < word.length ? word.charCodeAt(i) : END);
      if (c < 0) return;
      const idx = (a * CODES + b) * CODES + c;
      this.bits[idx >> 3] |= 1 << (idx & 7);
      [a, b] = [b, c];
    }
  }

  /** Whether a sequence occurs; a character outside the table counts as possible. */
  has(a: number, b: number, c: number): boolean {
    const x = code(a), y = code(b), z = code(c);
    if (x < 0 || y < 0 || z < 0) return true;
    const idx = (x * CODES + y) * CODES + z;
    return (this.bits[idx >> 3] & (1 << (idx & 7))) !== 0;
  }
}
