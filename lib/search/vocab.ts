/**
 * Words as written → how often pages use them: an open-addressing hash table (linear
 * probing, a string hash that never changes) whose slots a snapshot stores as they are,
 * so loading one copies the table instead of inserting every word again.
 */

/** FNV-1a over UTF-16 units: the same in every process (snapshots keep slot positions). */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A slot whose word was deleted: lookups go on past it, inserts may reuse it. */
const GONE = null;

export class Vocab {
  /** Slot → word (undefined: never used; null: deleted). */
  keys: (string | null | undefined)[];
  /** Slot → uses. */
  counts: Uint32Array;
  /** Words held. */
  size = 0;
  /** Slots holding a word or a deletion. */
  private taken = 0;

  constructor(capacity = 1024, keys?: (string | null | undefined)[], counts?: Uint32Array) {
    if (capacity & (capacity - 1)) throw new Error("vocab capacity must be a power of two");
    this.keys = keys ?? new Array(capacity);
    this.counts = counts ?? new Uint32Array(capacity);
    if (keys) {
      for (const k of keys) {
        if (k !== undefined) this.taken++;
        if (typeof k === "string") this.size++;
      }
    }
  }

  get capacity(): number {
    return this.counts.length;
  }

  /** The slot of `word`, or -1. */
  private find(word: string): number {
    const mask = this.counts.length - 1;
    for (let i = hash(word) & mask;; i = (i + 1) & mask) {
      const k = this.keys[i];
      if (k === undefined) return -1;
      if (k === word) return i;
    }
  }

  get(word: string): number | undefined {
    const i = this.find(word);
    return i < 0 ? undefined : this.counts[i];
  }

  has(word: string): boolean {
    return this.find(word) >= 0;
  }

  set(word: string, count: number) {
    const found = this.find(word);
    if (found >= 0) {
      this.counts[found] = count;
      return;
    }
    if ((this.taken + 1) * 10 > this.counts.length * 7) this.resize();
    const mask = this.counts.length - 1;
    let i = hash(word) & mask;
    while (typeof this.keys[i] === "string") i = (i + 1) & mask;
    if (this.keys[i] === undefined) this.taken++;
    this.keys[i] = word;
    this.counts[i] = count;
    this.size++;
  }

  delete(word: string) {
    const i = this.find(word);
    if (i < 0) return;
    this.keys[i] = GONE;
    this.counts[i] = 0;
    this.size--;
  }

  /** Every word and its uses, in slot order. */
  *entries(): Generator<[string, number]> {
    for (let i = 0; i < this.keys.length; i++) {
      const k = this.keys[i];
      if (typeof k === "string") yield [k, this.counts[i]];
    }
  }

  /** Moves every word to a table with room (twice as large unless deletions made the room). */
  private resize() {
    const { keys, counts } = this;
    const cap = this.size * 20 > counts.length * 7 ? counts.length * 2 : counts.length;
    this.keys = new Array(cap);
    this.counts = new Uint32Array(cap);
    this.size = this.taken = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (typeof k === "string") this.set(k, counts[i]);
    }
  }
}
