/**
 * Which three-letter sequences occur in a site's words (ASCII only, with start and end
 * marks): a bitmap of 128³ bits (256 KB) that lets typo correction skip candidates no
 * word could have. Only ever set, so a removed word may leave its sequences behind.
 */
export const START = 2, END = 3;

export class Trigrams {
  private bits = new Uint8Array((128 * 128 * 128) >> 3);

  /** Notes the sequences of a word (ignored unless ASCII). */
  add(word: string) {
    let a = START, b = word.charCodeAt(0);
    if (b > 127) return;
    for (let i = 1; i <= word.length; i++) {
      const c = i < word.length ? word.charCodeAt(i) : END;
      if (c > 127) return;
      const idx = (a * 128 + b) * 128 + c;
      this.bits[idx >> 3] |= 1 << (idx & 7);
      [a, b] = [b, c];
    }
  }

  /** Whether a sequence occurs; any non-ASCII code counts as possible. */
  has(a: number, b: number, c: number): boolean {
    if (a > 127 || b > 127 || c > 127) return true;
    const idx = (a * 128 + b) * 128 + c;
    return (this.bits[idx >> 3] & (1 << (idx & 7))) !== 0;
  }
}
