/**
 * Words as written → how often pages use them: an open-addressing hash table (linear
 * probing, a string hash that never changes) whose slots a snapshot stores as they are,
 * so loading one reads the table in place instead of inserting every word again; a
 * snapshot stores it packed (`packed`: 0.8 full, where a growing table is 0.35–0.7). Words
 * are kept in one byte arena, not as a string each (thousands of small strings per site cost
 * memory and GC): a Latin-1 word a byte a character, any other as UTF-16 units, two bytes
 * each, so one accented or Greek word does not double every other's size.
 */
import { unitsHash as hashOf, WordFilter, wordHash as hash } from "./word_filter.ts";

/**
 * `lens` values besides a short word's length + 1: never used; deleted (lookups go on past
 * it, inserts may reuse it); a word too long for a byte, whose length is in `long`.
 */
export const FREE = 0, GONE = 255, LONG = 254;
/** A letter of any script (a word `mostUsed` gives starts with one). */
const LETTER = /\p{L}/u;

/** Set in a slot's start when its word is stored as UTF-16 units (two bytes each). */
const UTF16 = 0x80000000;

/** A vocabulary's parts as a snapshot stores them. */
export interface VocabParts {
  /** The words' bytes, `used` of them in use (deleted words' included). */
  arena: Uint8Array;
  used: number;
  /** Slot → where its word starts in the arena, | UTF16 for a word in UTF-16 units. */
  starts: Uint32Array;
  /** Slot → FREE, GONE, LONG, or its word's length (in UTF-16 units) + 1. */
  lens: Uint8Array;
  /** Slot → length, for LONG slots. */
  long: Map<number, number>;
  /** Slot → uses. */
  counts: Uint32Array;
  /** The typo filter's bits (word_filter.ts), where one is made. */
  filter?: Uint32Array;
}

export class Vocab {
  private arena: Uint8Array;
  /** Arena bytes in use, and how many of them belong to deleted words. */
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
  /** Words that came or went (word_order.ts keeps an order made at one count). */
  changes = 0;
  /**
   * The words' hashes, for `countOf`: most words it looks up are none of the vocabulary's, and
   * a miss in a table 0.8 full probes about 14 slots. Made on its first lookup, kept as words
   * come while they fit (deleted words stay in it).
   */
  private filter: WordFilter | null = null;

  constructor(capacity = 1024, parts?: VocabParts) {
    if (!(capacity >= 1)) throw new Error("vocab capacity");
    if (parts) {
      ({ arena: this.arena, used: this.used, starts: this.starts } = parts);
      ({ lens: this.lens, long: this.long, counts: this.counts } = parts);
      if (parts.filter && !(this.filter = WordFilter.of(parts.filter))) {
        throw new Error("vocab filter");
      }
      if ([this.starts, this.lens, this.counts].some((a) => a.length !== capacity)) {
        throw new Error("vocab parts out of step");
      }
      let live = 0, long = 0;
      for (let i = 0; i < capacity; i++) {
        const l = this.lens[i];
        if (l === FREE) continue;
        this.taken++;
        if (l === GONE) continue;
        if (l === LONG) {
          long++;
          // Only words too long for a byte are there.
          if ((this.long.get(i) ?? 0) + 1 < LONG) throw new Error("vocab long word");
        }
        const bytes = this.bytes(i);
        if ((this.starts[i] & ~UTF16) + bytes > this.used) {
          throw new Error("vocab word past the arena");
        }
        this.size++;
        live += bytes;
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

  /** Whether slot `i` holds a word. */
  holdsAt(i: number): boolean {
    return this.lens[i] !== FREE && this.lens[i] !== GONE;
  }

  /** The uses of the word in slot `i`. */
  countAt(i: number): number {
    return this.counts[i];
  }

  get capacity(): number {
    return this.counts.length;
  }

  /** The parts a snapshot stores (the live arrays, not copies). */
  parts(): VocabParts {
    const { arena, used, starts, lens, long, counts } = this;
    return { arena, used, starts, lens, long, counts, filter: this.filter?.bits };
  }

  /** The length in UTF-16 units of the word in slot `i` (one that holds a word). */
  len(i: number): number {
    const l = this.lens[i];
    return l === LONG ? this.long.get(i)! : l - 1;
  }

  /** The arena bytes of the word in slot `i`. */
  private bytes(i: number): number {
    return this.starts[i] & UTF16 ? this.len(i) * 2 : this.len(i);
  }

  /** Gives slot `i` a word of `len` units. */
  private setLen(i: number, len: number) {
    if (len + 1 < LONG) this.lens[i] = len + 1;
    else this.lens[i] = LONG, this.long.set(i, len);
  }

  /** Unit `k` of the word in slot `i`. */
  unit(i: number, k: number): number {
    const s = this.starts[i];
    if (!(s & UTF16)) return this.arena[s + k];
    const at = (s & ~UTF16) + 2 * k;
    return this.arena[at] | (this.arena[at + 1] << 8);
  }

  /** Whether slot `i` holds `word`. */
  private holds(i: number, word: string): boolean {
    const l = this.lens[i];
    if (l === LONG ? this.long.get(i) !== word.length : l !== word.length + 1) return false;
    const { arena } = this, s = this.starts[i];
    if (!(s & UTF16)) {
      for (let k = 0; k < word.length; k++) if (arena[s + k] !== word.charCodeAt(k)) return false;
      return true;
    }
    for (let k = 0; k < word.length; k++) if (this.unit(i, k) !== word.charCodeAt(k)) return false;
    return true;
  }

  /** The slot of `word`, or -1. */
  private find(word: string): number {
    const cap = this.counts.length;
    for (let i = hash(word) % cap;; i = i + 1 === cap ? 0 : i + 1) {
      const len = this.lens[i];
      if (len === FREE) return -1;
      if (len !== GONE && this.holds(i, word)) return i;
    }
  }

  get(word: string): number | undefined {
    const i = this.find(word);
    return i < 0 ? undefined : this.counts[i];
  }

  /**
   * Uses of the word made of `units[0..length)` (UTF-16 units), 0 when absent: typo correction
   * looks up hundreds of candidates a word without making a string of each.
   */
  countOf(units: Uint16Array, length: number, h = hashOf(units, length)): number {
    if (!this.mayHold(h)) return 0;
    const cap = this.counts.length, { lens, arena } = this;
    probe: for (let i = h % cap;; i = i + 1 === cap ? 0 : i + 1) {
      const l = lens[i];
      if (l === FREE) return 0;
      if (l === GONE || (l === LONG ? this.long.get(i) !== length : l !== length + 1)) continue;
      const s = this.starts[i], wide = (s & UTF16) !== 0;
      for (let k = 0; k < length; k++) {
        if ((wide ? this.unit(i, k) : arena[s + k]) !== units[k]) continue probe;
      }
      return this.counts[i];
    }
  }

  /** Whether a word of hash `h` may be held (false: it is not), without probing the table. */
  mayHold(h: number): boolean {
    // Before the pass after a change makes the filter, every lookup probes the table.
    return this.filter ? this.filter.may(h) : true;
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
    const cap = this.counts.length;
    let i = hash(word) % cap;
    while (this.lens[i] !== FREE && this.lens[i] !== GONE) i = i + 1 === cap ? 0 : i + 1;
    if (this.lens[i] === FREE) this.taken++;
    this.changes++;
    if (this.filter?.fits(this.size + 1)) this.filter.add(hash(word));
    else this.filter = null;
    this.starts[i] = this.append(word);
    this.setLen(i, word.length);
    this.counts[i] = count;
    this.size++;
  }

  delete(word: string) {
    const i = this.find(word);
    if (i < 0) return;
    // The bytes stay in the arena until the next resize or compaction.
    this.garbage += this.bytes(i);
    if (this.lens[i] === LONG) this.long.delete(i);
    this.lens[i] = GONE;
    this.changes++;
    this.starts[i] = 0;
    this.counts[i] = 0;
    this.size--;
  }

  /** Makes the typo filter if a change dropped it (the pass after a change): lookups probe less. */
  prepareFilter() {
    this.filter ??= this.filtered();
  }

  /**
   * The `n` most used words of `min` to `max` units that start with a letter, most used first
   * (ties in slot order): a step per 8,192 slots, so a large vocabulary is read in several.
   */
  *mostUsed(n: number, { min = 4, max = 24 } = {}): Generator<void, string[]> {
    const top: number[] = []; // slots, most used first
    const { counts } = this;
    for (let i = 0; i < counts.length; i++) {
      if ((i & 8191) === 8191) yield;
      if (!this.holdsAt(i)) continue;
      const c = counts[i], len = this.len(i);
      if (len < min || len > max || (top.length === n && c <= counts[top[n - 1]])) continue;
      if (!LETTER.test(String.fromCharCode(this.unit(i, 0)))) continue;
      let k = Math.min(top.length, n - 1);
      top[k] = i;
      for (; k > 0 && counts[top[k - 1]] < c; k--) [top[k - 1], top[k]] = [top[k], top[k - 1]];
    }
    return top.map((i) => this.word(i));
  }

  /**
   * Calls `visit` with every slot, in slot order, whose word begins with `prefix` and is
   * longer: read from the arena in place, one tight loop (completions before an order is made).
   */
  eachLonger(prefix: string, visit: (i: number) => void) {
    const { lens, starts, arena } = this, n = prefix.length, first = prefix.charCodeAt(0);
    for (let i = 0; i < lens.length; i++) {
      const l = lens[i];
      if (l === FREE || l === GONE || (l !== LONG && l <= n + 1)) continue;
      const s = starts[i];
      if (s & UTF16) {
        if (this.len(i) <= n) continue;
        let k = 0;
        while (k < n && this.unit(i, k) === prefix.charCodeAt(k)) k++;
        if (k === n) visit(i);
        continue;
      }
      if (n && arena[s] !== first) continue;
      if (l === LONG && this.long.get(i)! <= n) continue;
      let k = 1;
      while (k < n && arena[s + k] === prefix.charCodeAt(k)) k++;
      if (k >= n) visit(i);
    }
  }

  /** The filter of `countOf` for the words held now. */
  private filtered(): WordFilter {
    const filter = new WordFilter(this.size);
    for (let i = 0; i < this.lens.length; i++) {
      if (this.lens[i] !== FREE && this.lens[i] !== GONE) filter.add(this.hashAt(i));
    }
    return filter;
  }

  /** Every word and its uses, in slot order. */
  *entries(): Generator<[string, number]> {
    for (let i = 0; i < this.lens.length; i++) {
      if (this.lens[i] === FREE || this.lens[i] === GONE) continue;
      yield [this.word(i), this.counts[i]];
    }
  }

  /** The word in slot `i`, as a string. */
  word(i: number): string {
    const len = this.len(i), parts: string[] = [];
    // In chunks: a spread of a long word would overflow the stack.
    for (let at = 0; at < len; at += 4096) {
      const units = new Uint16Array(Math.min(4096, len - at));
      for (let k = 0; k < units.length; k++) units[k] = this.unit(i, at + k);
      parts.push(String.fromCharCode(...units));
    }
    return parts.join("");
  }

  /** The hash of the word in slot `i`, read from the arena (the same as `hash` of its string). */
  private hashAt(i: number): number {
    let h = 0x811c9dc5;
    const len = this.len(i);
    for (let k = 0; k < len; k++) h = Math.imul(h ^ this.unit(i, k), 0x01000193);
    return h >>> 0;
  }

  /** Puts a word's units at the arena's end; returns its start (| UTF16 when not Latin-1). */
  private append(word: string): number {
    let wide = false;
    for (let k = 0; k < word.length && !wide; k++) wide = word.charCodeAt(k) > 0xff;
    const bytes = wide ? word.length * 2 : word.length;
    if (this.used + bytes > this.arena.length) {
      // Deleted words' bytes go when they are half the arena; else it grows.
      const room = this.garbage * 2 >= this.used ? this.arena.length : this.arena.length * 2;
      this.compact(Math.max(this.used - this.garbage + bytes, room));
    }
    const at = this.used, { arena } = this;
    if (wide) {
      for (let k = 0; k < word.length; k++) {
        const c = word.charCodeAt(k);
        arena[at + 2 * k] = c & 0xff;
        arena[at + 2 * k + 1] = c >>> 8;
      }
    } else for (let k = 0; k < word.length; k++) arena[at + k] = word.charCodeAt(k);
    this.used += bytes;
    return wide ? (at | UTF16) >>> 0 : at;
  }

  /** Copies live words into a new arena of `size` bytes. */
  private compact(size: number) {
    const old = this.arena, arena = new Uint8Array(size);
    let at = 0;
    for (let i = 0; i < this.lens.length; i++) {
      if (this.lens[i] === FREE || this.lens[i] === GONE) continue;
      const s = this.starts[i], from = s & ~UTF16, bytes = this.bytes(i);
      arena.set(old.subarray(from, from + bytes), at);
      this.starts[i] = ((s & UTF16) | at) >>> 0;
      at += bytes;
    }
    this.arena = arena;
    this.used = at;
    this.garbage = 0;
  }

  /**
   * The same words in a table 0.8 full with no deleted slots and an arena of live words only
   * (itself when it is so already), for a snapshot: lookups probe a little more, each word
   * takes 11 bytes of table instead of 13 to 26. `moves` (if given, and a new table is made)
   * gets each slot's new one.
   */
  packed(moves?: Int32Array): Vocab {
    const cap = Math.max(2, Math.ceil(this.size / 0.8));
    if (this.counts.length === cap && this.taken === this.size && !this.garbage) return this;
    // The filter goes along (it knows words by their hashes, not their slots).
    const filter = this.filter?.bits.slice();
    return new Vocab(cap, { ...this.rehash(cap, this.used - this.garbage, moves), filter });
  }

  /** Moves every word to a table with room (twice as large unless deletions made the room). */
  private resize() {
    const cap = this.size * 20 > this.counts.length * 7
      ? this.counts.length * 2
      : this.counts.length;
    // The words go to their new slots compacted, with room for as much again.
    const parts = this.rehash(cap, Math.max(16, (this.used - this.garbage) * 2));
    ({ arena: this.arena, used: this.used, starts: this.starts } = parts);
    ({ lens: this.lens, long: this.long, counts: this.counts } = parts);
    this.garbage = 0;
    this.taken = this.size;
    this.changes++;
  }

  /**
   * Every word in a new table of `cap` slots, their bytes in an arena of `arenaBytes`; `moves`
   * (if given) gets each old slot's new one.
   */
  private rehash(cap: number, arenaBytes: number, moves?: Int32Array): VocabParts {
    const arena = new Uint8Array(arenaBytes);
    const starts = new Uint32Array(cap), lens = new Uint8Array(cap), counts = new Uint32Array(cap);
    const long = new Map<number, number>();
    let at = 0;
    for (let s = 0; s < this.lens.length; s++) {
      if (this.lens[s] === FREE || this.lens[s] === GONE) continue;
      let i = this.hashAt(s) % cap;
      while (lens[i] !== FREE) i = i + 1 === cap ? 0 : i + 1;
      const from = this.starts[s] & ~UTF16, bytes = this.bytes(s);
      arena.set(this.arena.subarray(from, from + bytes), at);
      starts[i] = ((this.starts[s] & UTF16) | at) >>> 0;
      lens[i] = this.lens[s];
      if (lens[i] === LONG) long.set(i, this.len(s));
      counts[i] = this.counts[s];
      if (moves) moves[s] = i;
      at += bytes;
    }
    return { arena, used: at, starts, lens, long, counts };
  }
}
