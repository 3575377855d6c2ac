/**
 * Words as written → how often pages use them: an open-addressing hash table (linear
 * probing, a string hash that never changes) whose slots a snapshot stores as they are,
 * so loading one copies the table instead of inserting every word again. Words are kept
 * as characters in one arena (a byte each while every word is Latin-1, two bytes once one
 * is not), not as a string each: thousands of small strings per site cost memory and GC.
 */

/** FNV-1a over UTF-16 units: the same in every process (snapshots keep slot positions). */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The same hash over a word's units in an arena. */
function hashUnits(units: Uint8Array | Uint16Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < units.length; i++) h = Math.imul(h ^ units[i], 0x01000193);
  return h >>> 0;
}

/** A word's units as a string, in chunks (a spread of a long word would overflow the stack). */
function text(units: Uint8Array | Uint16Array): string {
  if (units.length <= 4096) return String.fromCharCode(...units);
  const parts: string[] = [];
  for (let at = 0; at < units.length; at += 4096) {
    parts.push(String.fromCharCode(...units.subarray(at, at + 4096)));
  }
  return parts.join("");
}

/**
 * `lens` values besides a short word's length + 1: never used; deleted (lookups go on past
 * it, inserts may reuse it); a word too long for a byte, whose length is in `long`.
 */
export const FREE = 0, GONE = 255, LONG = 254;

/** A vocabulary's parts as a snapshot stores them. */
export interface VocabParts {
  /** Characters of the words, `used` of them in use (deleted words' included). */
  arena: Uint8Array | Uint16Array;
  used: number;
  /** Slot → where its word starts in the arena. */
  starts: Uint32Array;
  /** Slot → FREE, GONE, LONG, or its word's length + 1. */
  lens: Uint8Array;
  /** Slot → length, for LONG slots. */
  long: Map<number, number>;
  /** Slot → uses. */
  counts: Uint32Array;
}

export class Vocab {
  private arena: Uint8Array | Uint16Array;
  /** Arena characters in use, and how many of them belong to deleted words. */
  private used = 0;
  private garbage = 0;
  private starts: Uint32Array;
  private lens: Uint8Array;
  private long: Map<number, number>;
  private counts: Uint32Array;
  /** Words held. */
  size = 0;
  /** Slots holding a word or a deletion. */
  private taken = 0;

  constructor(capacity = 1024, parts?: VocabParts) {
    if (capacity & (capacity - 1)) throw new Error("vocab capacity must be a power of two");
    if (parts) {
      ({ arena: this.arena, used: this.used, starts: this.starts } = parts);
      ({ lens: this.lens, long: this.long, counts: this.counts } = parts);
      if ([this.starts, this.lens, this.counts].some((a) => a.length !== capacity)) {
        throw new Error("vocab parts out of step");
      }
      let live = 0, long = 0;
      for (let i = 0; i < capacity; i++) {
        const l = this.lens[i];
        if (l === FREE) continue;
        this.taken++;
        if (l === GONE) continue;
        let len = l - 1;
        if (l === LONG) {
          len = this.long.get(i) ?? -1;
          long++;
          // Only words too long for a byte are there.
          if (len + 1 < LONG) throw new Error("vocab long word");
        }
        if (this.starts[i] + len > this.used) throw new Error("vocab word past the arena");
        this.size++;
        live += len;
      }
      if (long !== this.long.size) throw new Error("vocab long word");
      this.garbage = this.used - live;
      if (this.used > this.arena.length || this.garbage < 0) throw new Error("vocab arena");
    } else {
      this.arena = new Uint8Array(capacity * 4);
      this.starts = new Uint32Array(capacity);
      this.lens = new Uint8Array(capacity);
      this.long = new Map();
      this.counts = new Uint32Array(capacity);
    }
  }

  get capacity(): number {
    return this.counts.length;
  }

  /** The parts a snapshot stores (the live arrays, not copies). */
  parts(): VocabParts {
    const { arena, used, starts, lens, long, counts } = this;
    return { arena, used, starts, lens, long, counts };
  }

  /** The length of the word in slot `i` (one that holds a word). */
  private len(i: number): number {
    const l = this.lens[i];
    return l === LONG ? this.long.get(i)! : l - 1;
  }

  /** Gives slot `i` a word of `len` units. */
  private setLen(i: number, len: number) {
    if (len + 1 < LONG) this.lens[i] = len + 1;
    else this.lens[i] = LONG, this.long.set(i, len);
  }

  /** Whether slot `i` holds `word`. */
  private holds(i: number, word: string): boolean {
    const l = this.lens[i];
    if (l === LONG ? this.long.get(i) !== word.length : l !== word.length + 1) return false;
    const { arena } = this, from = this.starts[i];
    for (let k = 0; k < word.length; k++) if (arena[from + k] !== word.charCodeAt(k)) return false;
    return true;
  }

  /** The slot of `word`, or -1. */
  private find(word: string): number {
    const mask = this.counts.length - 1;
    for (let i = hash(word) & mask;; i = (i + 1) & mask) {
      const len = this.lens[i];
      if (len === FREE) return -1;
      if (len !== GONE && this.holds(i, word)) return i;
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
    while (this.lens[i] !== FREE && this.lens[i] !== GONE) i = (i + 1) & mask;
    if (this.lens[i] === FREE) this.taken++;
    this.starts[i] = this.append(word);
    this.setLen(i, word.length);
    this.counts[i] = count;
    this.size++;
  }

  delete(word: string) {
    const i = this.find(word);
    if (i < 0) return;
    // The characters stay in the arena until the next resize or compaction.
    this.garbage += this.len(i);
    if (this.lens[i] === LONG) this.long.delete(i);
    this.lens[i] = GONE;
    this.starts[i] = 0;
    this.counts[i] = 0;
    this.size--;
  }

  /** Every word and its uses, in slot order. */
  *entries(): Generator<[string, number]> {
    for (let i = 0; i < this.lens.length; i++) {
      if (this.lens[i] === FREE || this.lens[i] === GONE) continue;
      yield [this.word(i), this.counts[i]];
    }
  }

  /** The word in slot `i`, as a string. */
  private word(i: number): string {
    const from = this.starts[i];
    return text(this.arena.subarray(from, from + this.len(i)));
  }

  /** Puts a word's characters at the arena's end; returns where they start. */
  private append(word: string): number {
    let wide = this.arena instanceof Uint16Array;
    if (!wide) {
      for (let k = 0; k < word.length && !wide; k++) wide = word.charCodeAt(k) > 0xff;
    }
    if (this.used + word.length > this.arena.length || wide !== this.arena instanceof Uint16Array) {
      // Deleted words' characters go when they are half the arena; else it grows.
      const need = this.used - this.garbage + word.length;
      const room = this.garbage * 2 >= this.used ? this.arena.length : this.arena.length * 2;
      this.compact(Math.max(need, room), wide);
    }
    const at = this.used;
    for (let k = 0; k < word.length; k++) this.arena[at + k] = word.charCodeAt(k);
    this.used += word.length;
    return at;
  }

  /** Copies live words into a new arena of `size` characters, two bytes each when `wide`. */
  private compact(size: number, wide: boolean) {
    const old = this.arena;
    const arena = wide ? new Uint16Array(size) : new Uint8Array(size);
    let at = 0;
    for (let i = 0; i < this.lens.length; i++) {
      if (this.lens[i] === FREE || this.lens[i] === GONE) continue;
      const from = this.starts[i], len = this.len(i);
      arena.set(old.subarray(from, from + len), at);
      this.starts[i] = at;
      at += len;
    }
    this.arena = arena;
    this.used = at;
    this.garbage = 0;
  }

  /** Moves every word to a table with room (twice as large unless deletions made the room). */
  private resize() {
    const { arena, starts, lens, long, counts } = this;
    const cap = this.size * 20 > counts.length * 7 ? counts.length * 2 : counts.length;
    const live = this.used - this.garbage;
    // The same kind of arena, compacted, with room for as much again.
    const into = this.arena = new (arena.constructor as Uint8ArrayConstructor)(
      Math.max(16, live * 2),
    );
    this.starts = new Uint32Array(cap);
    this.lens = new Uint8Array(cap);
    this.long = new Map();
    this.counts = new Uint32Array(cap);
    this.taken = this.size;
    this.used = this.garbage = 0;
    const mask = cap - 1;
    for (let s = 0; s < lens.length; s++) {
      const l = lens[s];
      if (l === FREE || l === GONE) continue;
      const len = l === LONG ? long.get(s)! : l - 1;
      const from = starts[s], word = arena.subarray(from, from + len);
      let i = hashUnits(word) & mask;
      while (this.lens[i] !== FREE) i = (i + 1) & mask;
      into.set(word, this.used);
      this.starts[i] = this.used;
      this.setLen(i, len);
      this.counts[i] = counts[s];
      this.used += len;
    }
  }
}
