/**
 * Typo correction: a word no page uses is read as the most used word (as written, in the
 * site's vocabulary) one edit away: a letter deleted, swapped with the next, replaced or
 * inserted. An identifier (get_objcet_or_404) is corrected as a whole. Never into a word
 * too common to mean anything ("world" is not read as "would").
 */
import { isCommonWord, written } from "./tokens.ts";
import { END, START, type Trigrams } from "./trigrams.ts";

/** What corrections are chosen from: a site's words as written, with how often each is used. */
export interface Lexicon {
  vocab: {
    has(word: string): boolean;
    /** Uses of the word of `units[0..length)` (UTF-16 units; `hash`: its hash), 0 when absent. */
    countOf(units: Uint16Array, length: number, hash?: number): number;
    /** Whether a word of this hash may be held (false: it is not). */
    mayHold(hash: number): boolean;
  };
  /** Non-ASCII characters of the vocabulary. */
  alphabet: Set<string>;
  trigrams: Trigrams;
}

/** Lengths of the words corrected (query/weights.ts sets them). */
export interface TypoLengths {
  min: number;
  max: number;
}
const ASCII_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_";
const ASCII = [...ASCII_ALPHABET];
const JOINED = /[_.-]/;

/** Where candidates are built, one at a time (ranking is synchronous: one serves all). */
let built = new Uint16Array(256);

/** The vocabulary's hash of a word (store/word_filter.ts: FNV-1a over UTF-16 units), a unit at a time. */
const FNV_START = 0x811c9dc5;
const fnv = (h: number, unit: number) => Math.imul(h ^ unit, 0x01000193);

/**
 * Calls `visit` with every word one edit from `word` (deleted, swapped, replaced, inserted),
 * between `head` and `tail`, that `vocab` may hold, as the length of its units in `built` and
 * its hash: a candidate is hashed as it goes (its first units' hash is shared with every edit
 * after them) and built only when the vocabulary may hold it; no string is made. A replaced
 * or inserted letter is tried only where the three-letter sequences it makes occur in some
 * word pages use (`seen`).
 */
function eachEdit(
  word: string,
  chars: string[],
  vocab: Lexicon["vocab"],
  visit: (length: number, hash: number) => void,
  seen: Trigrams,
  head = "",
  tail = "",
) {
  const len = word.length, h = head.length;
  const size = h + len + 2 + tail.length;
  if (built.length < size) built = new Uint16Array(2 * size);
  const out = built;
  let first = FNV_START;
  for (let k = 0; k < h; k++) first = fnv(first, out[k] = head.charCodeAt(k));
  const at = (k: number) => (k < 0 ? START : k >= len ? END : word.charCodeAt(k));
  /** The candidate of `out[0..p)`, then the word from `from` on, then the tail (`hash`: of `out[0..p)`). */
  const offer = (p: number, from: number, hash: number) => {
    for (let k = from; k < len; k++) hash = fnv(hash, word.charCodeAt(k));
    for (let k = 0; k < tail.length; k++) hash = fnv(hash, tail.charCodeAt(k));
    if (!vocab.mayHold(hash >>> 0)) return;
    for (let k = from; k < len; k++) out[p++] = word.charCodeAt(k);
    for (let k = 0; k < tail.length; k++) out[p++] = tail.charCodeAt(k);
    visit(p, hash >>> 0);
  };
  for (let i = 0; i <= len; i++) {
    // The word's first i units stay in place for every edit at i, and so does their hash.
    const p = h + i;
    if (i > 0) first = fnv(first, out[p - 1] = word.charCodeAt(i - 1));
    if (i < len) offer(p, i + 1, first);
    if (len - i > 1) {
      out[p] = word.charCodeAt(i + 1);
      out[p + 1] = word.charCodeAt(i);
      offer(p + 2, i + 2, fnv(fnv(first, out[p]), out[p + 1]));
    }
    // The letters around i, for the sequences a letter put at i makes.
    const a2 = at(i - 2), a1 = at(i - 1), a0 = at(i), b1 = at(i + 1), b2 = at(i + 2);
    for (const c of chars) {
      const code = c.charCodeAt(0), wide = c.length > 1;
      // The sequence ending with the letter, for a replacement and an insertion alike.
      if (i > 0 && !seen.has(a2, a1, code)) continue;
      const withIt = wide ? fnv(fnv(first, code), c.charCodeAt(1)) : fnv(first, code);
      if (
        i < len && (wide || code !== a0) && seen.has(a1, code, b1) &&
        (i + 2 > len || seen.has(code, b1, b2))
      ) {
        out[p] = code;
        if (wide) out[p + 1] = c.charCodeAt(1);
        offer(p + c.length, i + 1, withIt);
      }
      if (seen.has(a1, code, a0) && (i + 1 > len || seen.has(code, a0, b1))) {
        out[p] = code;
        if (wide) out[p + 1] = c.charCodeAt(1);
        offer(p + c.length, i, withIt);
      }
    }
  }
}

/**
 * Calls `visit` with the edits of `w` worth looking up: in an identifier with one unknown
 * part (fecth_all) only that part's (the one edit changed it), whether or not the part is a
 * word of its own anywhere (grind_finepowder is used whole); else every edit of the whole.
 */
function eachCandidate(
  db: Lexicon,
  w: string,
  alphabet: string[],
  visit: (n: number, hash: number) => void,
) {
  if (!JOINED.test(w)) return eachEdit(w, alphabet, db.vocab, visit, db.trigrams);
  const parts = w.split(/(?=[_.-])|(?<=[_.-])/);
  const unknown = parts.map((p, i) => [p, i] as const).filter(([p]) =>
    !JOINED.test(p) && !db.vocab.has(p)
  );
  if (unknown.length !== 1) return eachEdit(w, alphabet, db.vocab, visit, db.trigrams);
  const i = unknown[0][1];
  const head = parts.slice(0, i).join(""), tail = parts.slice(i + 1).join("");
  eachEdit(parts[i], alphabet, db.vocab, visit, db.trigrams, head, tail);
}

/** The most used word as written one edit from `word` (not a common word), or null. */
export function correct(
  db: Lexicon,
  word: string,
  langs: string[],
  lengths: TypoLengths,
): string | null {
  const w = written(word);
  if (w.length < lengths.min || w.length > lengths.max) return null;
  const alphabet = /[\u0080-\uffff]/.test(w) ? [...ASCII_ALPHABET, ...db.alphabet] : ASCII;
  let best: string | null = null, bestCount = 0;
  eachCandidate(db, w, alphabet, (length, hash) => {
    const n = db.vocab.countOf(built, length, hash);
    if (n <= bestCount) return;
    // Only a candidate better than the best so far is made a string.
    const e = String.fromCharCode(...built.subarray(0, length));
    if (!langs.some((l) => isCommonWord(e, l))) [best, bestCount] = [e, n];
  });
  return best;
}
