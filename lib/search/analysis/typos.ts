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
  vocab: { get(word: string): number | undefined; has(word: string): boolean };
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

/**
 * Calls `visit` with every word one edit from `word` (deleted, swapped, replaced, inserted).
 * A replaced or inserted letter is tried only where the three-letter sequences it makes occur
 * in some word pages use (`seen`): most candidates are never built.
 */
function eachEdit(word: string, chars: string[], visit: (e: string) => void, seen?: Trigrams) {
  const len = word.length;
  const at = (k: number) => (k < 0 ? START : k >= len ? END : word.charCodeAt(k));
  const fits = (k: number, c: number, skip: number) =>
    !seen ||
    ((k - 2 < -1 || seen.has(at(k - 2), at(k - 1), c)) && seen.has(at(k - 1), c, at(k + skip)) &&
      (k + skip + 1 > len || seen.has(c, at(k + skip), at(k + skip + 1))));
  for (let i = 0; i <= len; i++) {
    const head = word.slice(0, i), tail = word.slice(i), rest = word.slice(i + 1);
    if (tail) visit(head + rest);
    if (tail.length > 1) visit(head + tail[1] + tail[0] + word.slice(i + 2));
    const here = tail ? tail[0] : "";
    for (const c of chars) {
      const code = c.charCodeAt(0);
      if (tail && c !== here && fits(i, code, 1)) visit(head + c + rest);
      if (fits(i, code, 0)) visit(head + c + tail);
    }
  }
}

/**
 * Calls `visit` with the edits of `w` worth looking up: in an identifier with one unknown
 * part (fecth_all) only that part's (the one edit changed it), whether or not the part is a
 * word of its own anywhere (grind_finepowder is used whole); else every edit of the whole.
 */
function eachCandidate(db: Lexicon, w: string, alphabet: string[], visit: (e: string) => void) {
  if (!JOINED.test(w)) return eachEdit(w, alphabet, visit, db.trigrams);
  const parts = w.split(/(?=[_.-])|(?<=[_.-])/);
  const unknown = parts.map((p, i) => [p, i] as const).filter(([p]) =>
    !JOINED.test(p) && !db.vocab.has(p)
  );
  if (unknown.length !== 1) return eachEdit(w, alphabet, visit, db.trigrams);
  const i = unknown[0][1];
  const head = parts.slice(0, i).join(""), tail = parts.slice(i + 1).join("");
  eachEdit(parts[i], alphabet, (e) => visit(head + e + tail), db.trigrams);
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
  eachCandidate(db, w, alphabet, (e) => {
    const n = db.vocab.get(e);
    if (n && n > bestCount && !langs.some((l) => isCommonWord(e, l))) [best, bestCount] = [e, n];
  });
  return best;
}
