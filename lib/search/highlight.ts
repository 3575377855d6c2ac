/** Plain-text highlights with match offsets, as API.md shapes them (never HTML). */
import { foldInPlace } from "./tokens.ts";

export interface Highlight {
  field: "title" | "description" | "body";
  snippet: string;
  matches: [number, number][];
}

/** A word matches a query term when it starts with the term's stem (or the term itself). */
export interface Matcher {
  (word: string): boolean;
  /** The same test as one regular expression (absent when there is nothing to match). */
  pattern?: RegExp;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
/** Scripts written without spaces: a match may start inside a run of letters. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Builds a matcher from folded query words, the indexed forms that matched, and the
 * words that corrected typos. It is applied to folded text (see `findMatches`).
 */
export function makeMatcher(words: string[], stems: string[]): Matcher {
  // Porter stems may end in "i" where the text has "y" (policy -> polici): match the shorter root too.
  const roots = new Set<string>();
  for (const s of [...words, ...stems]) {
    if (s.length === 0) continue;
    roots.add(s.length > 3 && s.endsWith("i") ? s.slice(0, -1) : s);
  }
  // Longest first, so the alternation takes "get_object" before "get".
  const list = [...roots].sort((a, b) => b.length - a.length);
  const matcher: Matcher = (word) => {
    const w = foldInPlace(word.toLowerCase());
    return list.some((r) => w.startsWith(r) && (r.length >= 3 || w.length === r.length));
  };
  if (list.length) {
    // Roots of 3+ letters match as prefixes, shorter ones only as whole words.
    const alts = list.map((r) =>
      escape(r) + (r.length >= 3 || UNSPACED.test(r) ? "[\\p{L}\\p{N}\\p{M}_]*" : "(?![\\p{L}\\p{N}])")
    );
    // No lookbehind: the word-start check is done by the caller, which keeps the scan fast.
    matcher.pattern = new RegExp(`(?:${alts.join("|")})`, "giu");
  }
  return matcher;
}

/**
 * Offsets of the matching words in a text, in UTF-16 code units. The text is folded
 * character for character (offsets unchanged), so "cafe" marks "Café" as written.
 */
export function findMatches(text: string, match: Matcher, limit = 500): [number, number][] {
  const out: [number, number][] = [];
  if (!match.pattern) return out;
  const folded = foldInPlace(text);
  for (const m of folded.matchAll(match.pattern)) {
    const at = m.index!;
    // Inside a word, unless the script has no spaces between words.
    if (at > 0 && WORD_CHAR.test(folded[at - 1]) && !UNSPACED.test(folded[at])) continue;
    out.push([at, at + m[0].length]);
    if (out.length >= limit) break;
  }
  return out;
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

/** How far into a page a snippet is looked for. */
export const SNIPPET_SCAN_CHARS = 50_000;

/** The window of about `size` characters of `text` that holds the most matches. */
export function highlightSnippet(
  text: string,
  match: Matcher,
  size = 180,
  scanLimit = SNIPPET_SCAN_CHARS,
): Highlight | null {
  const scanned = text.length > scanLimit ? text.slice(0, scanLimit) : text;
  return snippetOf(text, findMatches(scanned, match), 0, scanned.length, size);
}

/**
 * The best window of `text[from, to)` given the matches found in the whole text
 * (in order); null when none falls in the range.
 */
export function snippetOf(
  text: string,
  found: [number, number][],
  from: number,
  to: number,
  size = 180,
): Highlight | null {
  const all = found.filter(([s, e]) => s >= from && e <= to);
  if (all.length === 0) return null;
  // Slide over the matches: the best window starts at the match that has most others within `size`.
  let best = 0, bestCount = 0;
  for (let i = 0, j = 0; i < all.length; i++) {
    while (j < all.length && all[j][1] - all[i][0] <= size) j++;
    if (j - i > bestCount) [best, bestCount] = [i, j - i];
  }
  const first = all[best][0];
  let start = Math.max(from, first - 40);
  let end = Math.min(to, start + size);
  // Cut on word boundaries so no word is shown in half.
  if (start > from) {
    const sp = text.indexOf(" ", start);
    start = sp >= 0 && sp < first ? sp + 1 : start;
  }
  if (end < to) {
    const sp = text.lastIndexOf(" ", end);
    end = sp > all[best][1] ? sp : end;
  }
  const prefix = start > 0 ? "…" : "";
  const suffix = end < text.length ? "…" : "";
  const snippet = prefix + text.slice(start, end).replace(/\n/g, " ") + suffix;
  const matches = all
    .filter(([s, e]) => s >= start && e <= end)
    .map(([s, e]) => [s - start + prefix.length, e - start + prefix.length] as [number, number]);
  return { field: "body", snippet, matches };
}
