/** Plain-text highlights with match offsets, as docs/api.md shapes them (never HTML). */
import type { Highlight } from "./hits.ts";
import { ACCENTED, foldInPlace } from "../analysis/tokens.ts";
import { UNSPACED, WORD_CHAR } from "../analysis/word_chars.ts";
import type { TextPrefix } from "../store/packed_text.ts";

/** A word matches a query term when it starts with the term's stem (or the term itself). */
export interface Matcher {
  (word: string): boolean;
  /** Folded roots: 3+ letters (or unspaced script) match as prefixes, shorter ones as words. */
  roots: string[];
  /** How many words the query has (a dotted name counts each part). */
  size: number;
  /**
   * What a root counts in a heading that names it (sections.ts): a word that means the
   * query's query counts as all the words that only qualify it together, plus one (as ranking
   * counts them, accumulate.ts); every word 1 where none qualifies.
   */
  weightOf(root: string): number;
  /** The words' weights together (`size` where none qualifies). */
  weight: number;
  /** One expression finding any root, when every root is plain (`collect`). */
  pattern: RegExp | null;
}

/** WORD_CHAR for one UTF-16 unit, with ASCII decided without a regular expression. */
function wordAt(text: string, i: number): boolean {
  return text.charCodeAt(i) < 128 ? asciiWord(text, i) : WORD_CHAR.test(text[i]);
}

/** Whether the unit at `i` is an ASCII letter, digit or "_". */
function asciiWord(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || (c >= 65 && c <= 90);
}

const prefixRoot = (r: string) => r.length >= 3 || UNSPACED.test(r);

/**
 * Builds a matcher from folded query words, the indexed forms that matched, and the
 * words that corrected typos. It is applied to folded text (see `findMatches`).
 */
export function makeMatcher(words: string[], stems: string[], qualifiers: string[] = []): Matcher {
  // Porter stems may end in "i" where the text has "y" (policy -> polici): match the shorter root too.
  const set = new Set<string>();
  for (const s of [...words, ...stems]) {
    if (s.length === 0) continue;
    set.add(s.length > 3 && s.endsWith("i") ? s.slice(0, -1) : s);
  }
  // A root that another prefix root starts is found by that one ("templat" finds "template").
  const all = [...set], prefixes = all.filter(prefixRoot);
  const roots = all.filter((r) => !prefixes.some((o) => o !== r && r.startsWith(o)));
  const matcher = (word: string) => {
    const w = foldInPlace(word.toLowerCase());
    return roots.some((r) => w.startsWith(r) && (prefixRoot(r) || w.length === r.length));
  };
  const size = words.reduce((n, w) => n + w.split(/[.-]/).filter(Boolean).length, 0);
  // A root stands for a qualifier when it and a qualifier start alike and no other word does.
  const alike = (r: string, w: string) => w.startsWith(r) || r.startsWith(w);
  const others = words.filter((w) => !qualifiers.includes(w));
  const qualifying = new Set(
    roots.filter((r) => qualifiers.some((q) => alike(r, q)) && !others.some((w) => alike(r, w))),
  );
  const unit = qualifiers.length + 1;
  const weightOf = (root: string) => qualifying.has(root) ? 1 : unit;
  const weight = size + (unit - 1) * Math.max(0, size - qualifiers.length);
  return Object.assign(matcher, { roots, size, pattern: patternOf(roots), weightOf, weight });
}

/** Text is read in chunks this long (shorter when only the first matches are wanted). */
const CHUNK = 8192;
const FIRST_CHUNK = 2048;

/** How far `findMatches` looks, and what it may assume of the text. */
export interface MatchOptions {
  /** Matches at most (500). */
  limit?: number;
  /** Only those of the first chunk of text that has any. */
  firstChunk?: boolean;
  /** false: the text has no letter with a diacritic (no folding needed); true by default. */
  accented?: boolean;
}

/**
 * Offsets of the matching words in a text, in UTF-16 code units, in order; at most
 * `limit`, from the start (or only those of the first chunk of text that has any).
 * `accented: false` says the text has no letter with a diacritic (no folding needed). The
 * text is folded character for character (offsets unchanged), so "cafe" marks "Café" as
 * written. Each root is looked for chunk by chunk, so a page full of matches is not read to
 * its end.
 */
export function findMatches(
  text: string,
  match: Matcher,
  { limit = 500, firstChunk = false, accented = true }: MatchOptions = {},
): [number, number][] {
  if (firstChunk) {
    return firstMatches({ length: text.length, upTo: () => text }, match, limit, accented);
  }
  const out: [number, number][] = [];
  if (!match.roots.length) return out;
  for (let from = 0; from < text.length && out.length < limit;) {
    // A chunk ends between words, so none is cut in two.
    let to = Math.min(text.length, from + CHUNK);
    while (to < text.length && wordAt(text, to)) to++;
    scan(text.slice(from, to), from, match, out, limit, accented);
    from = to;
  }
  return out;
}

/**
 * The matches of the first chunk of a text that holds any (enough for a snippet), the text
 * read only as far as its chunks go: none of it after that chunk.
 */
export function firstMatches(
  body: TextPrefix,
  match: Matcher,
  limit: number,
  accented = true,
): [number, number][] {
  const out: [number, number][] = [];
  if (!match.roots.length) return out;
  for (let from = 0; from < body.length && !out.length;) {
    // A chunk ends between words, so none is cut in two.
    let to = Math.min(body.length, from + FIRST_CHUNK);
    // Room for the word the chunk would cut (read further if it is longer).
    let text = body.upTo(to + 64);
    while (to < body.length && wordAt(text, to)) {
      if (++to >= text.length) text = body.upTo(to + 256);
    }
    scan(text.slice(from, to), from, match, out, limit, accented);
    from = to;
  }
  return out;
}

/** A root of ASCII letters, digits, "_", "." and "-", starting a word: plain, found in any case. */
const PLAIN_ROOT = /^[a-z0-9_][a-z0-9_.-]*$/;
/** The one character whose lower case is ASCII and that folding leaves (KELVIN SIGN, "k"). */
const KELVIN = "\u212a";

/** One expression finding any root, when every root is plain (null: none or not all are). */
function patternOf(roots: string[]): RegExp | null {
  return roots.length && roots.every((r) => PLAIN_ROOT.test(r))
    ? new RegExp(`(?<![a-z0-9_])(?:${roots.map((r) => r.replaceAll(".", "\\.")).join("|")})`, "gi")
    : null;
}

function scan(
  text: string,
  offset: number,
  match: Matcher,
  out: [number, number][],
  limit: number,
  accented: boolean,
) {
  const roots = match.roots;
  const hasAccents = accented && ACCENTED.test(text);
  // Text with no accented letter needs neither folding nor a lower-case copy for plain roots:
  // a case-insensitive expression finds in it what indexOf finds in its lower case.
  const pattern = hasAccents ? null : match.pattern;
  if (pattern && text.indexOf(KELVIN) < 0) return collect(text, offset, roots, pattern, out, limit);
  const folded = hasAccents ? foldInPlace(text) : text;
  let lower = folded.toLowerCase();
  // The rare text whose lower case changes length (İ) is matched as it is.
  if (lower.length !== folded.length) lower = folded;
  const taken = new Map<number, number>();
  for (const root of roots) {
    const prefix = prefixRoot(root);
    const unspaced = UNSPACED.test(root[0]);
    for (let at = lower.indexOf(root); at >= 0; at = lower.indexOf(root, at + 1)) {
      if (at > 0 && !unspaced && wordAt(lower, at - 1)) continue; // inside a word
      let end = at + root.length;
      // Unspaced scripts have no word end to run to: the match is the root itself.
      if (!unspaced && prefix) {
        while (end < lower.length && wordAt(lower, end)) end++;
      } else if (!unspaced && end < lower.length && wordAt(lower, end)) continue;
      if ((taken.get(at) ?? 0) < end) taken.set(at, end);
    }
  }
  merge([...taken.entries()].sort((a, b) => a[0] - b[0]), offset, out, limit);
}

/**
 * `scan` for plain roots in text without accented letters: the same matches. One search for
 * all roots finds where some root may be, in any case; a place that starts a word is then
 * judged against each root. A match ends where its word does (a short root's must).
 */
function collect(
  text: string,
  offset: number,
  roots: string[],
  pattern: RegExp,
  out: [number, number][],
  limit: number,
) {
  const longest = roots.reduce((n, r) => Math.max(n, r.length), 0);
  // One root needs no judging of which root was found, nor where it starts.
  const single = roots.length === 1, prefix = single && prefixRoot(roots[0]);
  let last: [number, number] | undefined;
  pattern.lastIndex = 0;
  for (let from = 0; pattern.test(text);) {
    // `test` makes no match object: it says where the match ends. It is one root, in any
    // ASCII case, at the first place one is found: of the roots that end there, the one
    // starting first (after no ASCII letter, digit or "_", as the expression asks).
    const ends = pattern.lastIndex;
    let at = ends;
    if (single) at = ends - roots[0].length; // the one root: what the expression found
    else {
      for (const root of roots) {
        const s = ends - root.length;
        if (s >= from && s < at && startsAt(text, s, root) && !(s > 0 && asciiWord(text, s - 1))) {
          at = s;
        }
      }
    }
    pattern.lastIndex = from = at + 1; // a dotted root's match may hold the start of another
    // The expression passes over places after an ASCII letter or digit; others are judged here.
    if (at > 0 && wordAt(text, at - 1)) continue; // inside a word
    if (single) {
      // Its match is ASCII (a case-insensitive expression without "u" matches no other letter).
      let to = ends;
      if (prefix) {
        while (to < text.length && wordAt(text, to)) to++;
      } else if (to < text.length && wordAt(text, to)) continue;
      if (last && at + offset < last[1]) last[1] = Math.max(last[1], to + offset);
      else if (out.length < limit) out.push(last = [at + offset, to + offset]);
      else break;
      continue;
    }
    // ASCII text is compared in place; a word with other letters as before, lowercased.
    const head = asciiAt(text, at, longest) ? null : text.slice(at, at + longest).toLowerCase();
    let end = -1;
    for (const root of roots) {
      if (head ? !head.startsWith(root) : !startsAt(text, at, root)) continue;
      let to = at + root.length;
      if (prefixRoot(root)) {
        while (to < text.length && wordAt(text, to)) to++;
      } else if (to < text.length && wordAt(text, to)) continue;
      if (to > end) end = to;
    }
    if (end < 0) continue;
    // A shorter root found inside a longer match is part of it.
    if (last && at + offset < last[1]) last[1] = Math.max(last[1], end + offset);
    else if (out.length < limit) out.push(last = [at + offset, end + offset]);
    else break;
  }
}

/** Whether the `n` characters from `at` (as far as the text goes) are all ASCII. */
function asciiAt(text: string, at: number, n: number): boolean {
  for (let i = at, end = Math.min(text.length, at + n); i < end; i++) {
    if (text.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}

/** Whether ASCII text at `at` is `root` (lowercase) in any case, without a lowercased copy. */
export function startsAt(text: string, at: number, root: string): boolean {
  if (at + root.length > text.length) return false;
  for (let k = 0; k < root.length; k++) {
    const c = text.charCodeAt(at + k);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== root.charCodeAt(k)) return false;
  }
  return true;
}

/** Adds matches (in order) to `out`: a shorter root found inside a longer match is part of it. */
function merge(found: [number, number][], offset: number, out: [number, number][], limit: number) {
  let last: [number, number] | undefined;
  for (const [s, e] of found) {
    if (last && s + offset < last[1]) last[1] = Math.max(last[1], e + offset);
    else if (out.length < limit) out.push(last = [s + offset, e + offset]);
    else break;
  }
}

/** The whole field with its matches, or null when nothing matches. */
export function highlightField(
  field: Highlight["field"],
  text: string,
  match: Matcher,
): Highlight | null {
  const matches = findMatches(text, match);
  return matches.length ? { field, snippet: text, matches } : null;
}

/** A snippet's characters. */
const SNIPPET = 180;

/** How far into a page a snippet is looked for. */
export const SNIPPET_SCAN_CHARS = 50_000;

/**
 * The best window of `text[from, to)` given the matches found in the whole text
 * (in order); null when none falls in the range. `text` may be the start of a longer one
 * (`length` long), read up to `to` or `size` past the last match in the range at least.
 */
export function snippetOf(
  text: string,
  found: [number, number][],
  from: number,
  to: number,
  size = SNIPPET,
  length = text.length,
): Highlight | null {
  // Matches are in order and apart (their ends rise too): those in the range follow on.
  let lo = 0;
  while (lo < found.length && found[lo][0] < from) lo++;
  let hi = lo;
  while (hi < found.length && found[hi][1] <= to) hi++;
  if (hi === lo) return null;
  // Slide over the matches: the best window starts at the match that has most others within `size`.
  let best = lo, bestCount = 0;
  for (let i = lo, j = lo; i < hi; i++) {
    while (j < hi && found[j][1] - found[i][0] <= size) j++;
    if (j - i > bestCount) [best, bestCount] = [i, j - i];
  }
  const first = found[best][0];
  let start = Math.max(from, first - 40);
  let end = Math.min(to, start + size);
  // Cut on word boundaries so no word is shown in half.
  if (start > from) {
    const sp = text.indexOf(" ", start);
    start = sp >= 0 && sp < first ? sp + 1 : start;
  }
  if (end < to) {
    const sp = text.lastIndexOf(" ", end);
    end = sp > found[best][1] ? sp : end;
  }
  const prefix = start > 0 ? "…" : "";
  const suffix = end < length ? "…" : "";
  const { out, at } = joinLines(text.slice(start, end), prefix.length);
  const matches: [number, number][] = [];
  for (let i = lo; i < hi; i++) {
    const [s, e] = found[i];
    if (s >= start && e <= end) matches.push([at(s - start), at(e - start)]);
  }
  return { field: "body", snippet: prefix + out + suffix, matches };
}

/** `snippetOf` a text read only as far as the snippet needs (the matches are in what was read). */
export function snippetIn(
  body: TextPrefix,
  found: [number, number][],
  from: number,
  to: number,
): Highlight | null {
  // The window ends at most its size past the last match in the range.
  let last = -1;
  for (const [s, e] of found) if (s >= from && e <= to && e > last) last = e;
  if (last < 0) return null;
  return snippetOf(
    body.upTo(Math.min(to, last + SNIPPET) + 1),
    found,
    from,
    to,
    SNIPPET,
    body.length,
  );
}

/** Characters that end a sentence (or a label) at a line's end: the next line follows after a plain space. */
const ENDS_SENTENCE = '.!?:;,…)»"”';
const SPACE = /\s/;

/** The separator after a line: " · " unless it ends a sentence or is blank. */
function separator(text: string, start: number, end: number): string {
  let i = end - 1;
  for (; i >= start; i--) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) continue;
    if (c < 128 || !SPACE.test(text[i])) break;
  }
  return i < start || ENDS_SENTENCE.includes(text[i]) ? " " : " · ";
}

/**
 * The text's lines on one line: a line that does not end a sentence (a heading, a list item)
 * keeps a separator before the next, so "Countries we do not ship to" and "We only ship…" do
 * not read as one sentence. `at(i)`: where character `i` of `text` lands, after `offset`.
 */
function joinLines(text: string, offset: number): { out: string; at: (i: number) => number } {
  let nl = text.indexOf("\n");
  if (nl < 0) return { out: text, at: (i) => offset + i };
  // Where each line break is, and what the separators up to it added.
  const breaks: number[] = [], grown: number[] = [];
  let out = "", start = 0, grow = 0;
  for (; nl >= 0; nl = text.indexOf("\n", start)) {
    const sep = separator(text, start, nl);
    out += text.slice(start, nl) + sep;
    breaks.push(nl);
    grown.push(grow += sep.length - 1);
    start = nl + 1;
  }
  out += text.slice(start);
  return {
    out,
    at(i) {
      let k = 0;
      while (k < breaks.length && breaks[k] < i) k++;
      const before = k ? grown[k - 1] : 0;
      // A line break lands on its separator's last character (a match never spans one).
      return offset + i + (breaks[k] === i ? grown[k] : before);
    },
  };
}
