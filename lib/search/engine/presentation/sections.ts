/**
 * A result's sections: where in a page the query's words are. Each section's
 * heading stands as its own line in the body where the section starts, so the
 * body is cut at those lines; sections are scored by the distinct query words
 * in their heading (most) and text, and the best few become sub-results. The
 * result itself links to a section only when that section is the better target
 * than the page as a whole (`anchorOf`).
 */
import { findMatches, type Matcher, snippetIn, startsAt } from "./highlight.ts";
import type { SectionHit } from "./hits.ts";
import { anchorAt, headingAt, headingLength, type SectionLines } from "../store/packed_sections.ts";
import type { TextPrefix } from "../store/packed_text.ts";
import { fold } from "../analysis/tokens.ts";

export const MAX_SECTIONS = 3;

/** A page URL pointing at an anchor. */
export const withAnchor = (url: string, anchor: string) =>
  anchor ? `${url}#${anchor.replace(/[\s"<>`]/g, encodeURIComponent)}` : url;

/**
 * Whether a fragment someone typed or copied (`custom-filters`, `caf%C3%A9`) names a section's
 * anchor: as it stands, as a result's URL writes it, or percent-decoded.
 */
export function namesAnchor(anchor: string, fragment: string): boolean {
  if (!anchor || !fragment) return false;
  if (fragment === anchor || withAnchor("", anchor) === `#${fragment}`) return true;
  try {
    return decodeURIComponent(fragment) === anchor;
  } catch {
    return false; // a stray "%" decodes to nothing
  }
}

/** The anchor of a page's section that `fragment` names (namesAnchor), if it has one. */
export function sectionNamed(lines: SectionLines, fragment: string): string | undefined {
  for (let i = 0; i < lines.count; i++) {
    const anchor = anchorAt(lines, i);
    if (namesAnchor(anchor, fragment)) return anchor;
  }
  return undefined;
}

/**
 * How well a heading names the query: its distinct query words, and how many are whole words,
 * each weighted as `Matcher.weightOf` says (a word that only qualifies the query counts least).
 */
export interface HeadingMatch {
  inHeading: number;
  whole: number;
}

interface Scored extends HeadingMatch {
  /** The section's number. */
  i: number;
  at: number;
  end: number;
  score: number;
}

/** Whether heading `a` names more of the query than `b` (more words, then more whole words). */
export const namesMore = (a: HeadingMatch, b: HeadingMatch) =>
  a.inHeading > b.inHeading || (a.inHeading === b.inHeading && a.whole > b.whole);

/** How well a text's matches `from` to `to` (one heading's) name the query. */
export const headingMatch = (
  text: string,
  found: [number, number][],
  match: Matcher,
  from = 0,
  to = found.length,
): HeadingMatch => named(text, found, from, to, match);

/**
 * How much of the query the distinct words of a text's matches `from` to `to` name: the roots
 * they stand for ("models" and "model" are one), and how many of those appear as words of
 * their own. A heading's few matches are compared in place, and in arrays, not sets: an ASCII
 * word is read where it stands, without a lower-cased copy.
 */
function named(
  text: string,
  list: [number, number][],
  from: number,
  to: number,
  { roots, weightOf }: Matcher,
): HeadingMatch {
  const hit: string[] = [], whole: string[] = [];
  for (let i = from; i < to; i++) {
    if (repeats(text, list, from, i)) continue;
    const [a, b] = list[i];
    let root: string | undefined, isWhole = false;
    if (ascii(text, a, b)) {
      // Folding leaves ASCII as it is: its lower case is compared a character at a time.
      for (const r of roots) {
        if (r.length <= b - a && startsAt(text, a, r)) {
          root = r;
          isWhole = r.length === b - a;
          break;
        }
      }
    } else {
      const w = fold(text.slice(a, b).toLowerCase());
      root = roots.find((r) => w.startsWith(r));
      isWhole = w === root;
    }
    if (root === undefined) continue;
    if (!hit.includes(root)) hit.push(root);
    if (isWhole && !whole.includes(root)) whole.push(root);
  }
  let inHeading = 0, wholeWords = 0;
  for (const r of hit) inHeading += weightOf(r);
  for (const r of whole) wholeWords += weightOf(r);
  return { inHeading, whole: wholeWords };
}

const NO_MATCH: HeadingMatch = { inHeading: 0, whole: 0 };

/** Distinct words (in any case) of a text's matches `from` to `to`, counted in place. */
function distinctWords(text: string, list: [number, number][], from: number, to: number) {
  let n = 0;
  for (let i = from; i < to; i++) if (!repeats(text, list, from, i)) n++;
  return n;
}

/** Whether match `i` is, in any case, the word of a match from `from` on before it. */
function repeats(text: string, list: [number, number][], from: number, i: number): boolean {
  const [a, b] = list[i];
  for (let j = from; j < i; j++) if (sameWord(text, a, b, list[j][0], list[j][1])) return true;
  return false;
}

/** Whether `text[a, b)` and `text[c, d)` are one word in any case (as `toLowerCase` has it). */
function sameWord(text: string, a: number, b: number, c: number, d: number): boolean {
  if (b - a === d - c) {
    let k = 0;
    for (; k < b - a; k++) {
      let x = text.charCodeAt(a + k), y = text.charCodeAt(c + k);
      if (x > 0x7f || y > 0x7f) break; // not ASCII: compared as lowercased below
      if (x >= 65 && x <= 90) x += 32;
      if (y >= 65 && y <= 90) y += 32;
      if (x !== y) return false;
    }
    if (k === b - a) return true;
  } else if (ascii(text, a, b) && ascii(text, c, d)) return false;
  return text.slice(a, b).toLowerCase() === text.slice(c, d).toLowerCase();
}

/** Whether `text[a, b)` is all ASCII. */
function ascii(text: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** A page's title and how much of the query it names, found once for a result. */
export interface Titled {
  text: string;
  /** Its matches (for its highlight). */
  matches: [number, number][];
  /** The query's words it names (`HeadingMatch.inHeading`). */
  named: number;
}

/** A page's title with its matches. */
export function titled(title: string, match: Matcher): Titled {
  const matches = findMatches(title, match);
  return {
    text: title,
    matches,
    named: matches.length ? headingMatch(title, matches, match).inHeading : 0,
  };
}

/**
 * Whether a heading names the query better than the page's title: the title does not match
 * most of the query, and the heading holds more of it.
 */
export function outnamesTitle(heading: HeadingMatch, title: Titled, match: Matcher): boolean {
  if (heading.inHeading === 0) return false;
  return title.named * 2 <= match.weight && title.named < heading.inHeading;
}

/**
 * The anchor a result links to: the best section's, when it is clearly the better target.
 * A query its title matches for the most part links to the page ("signals" on the page
 * "Signals"), and so does one whose words head several sections alike ("csrf" on a page
 * where every other heading names CSRF): the visitor wants the top of the page. A section
 * whose heading holds more of the query (or more of it as whole words) than the title and
 * every other heading is the target ("wobble" on the heading "Gizmo.wobble(amount)").
 */
function anchorOf(
  top: Scored | undefined,
  scored: Scored[],
  title: Titled,
  match: Matcher,
  lines: SectionLines,
) {
  if (!top || !outnamesTitle(top, title, match)) return "";
  const rival = scored.some((x) => x !== top && x.inHeading > 0 && !namesMore(top, x));
  return rival ? "" : anchorAt(lines, top.i);
}

/** The headings of sections `kept` (in order), one a line: a part of `lines` when they follow on. */
export function joinHeadings(lines: SectionLines, kept: number[]): string {
  if (!kept.length) return "";
  const first = kept[0], last = kept[kept.length - 1];
  if (last - first === kept.length - 1) {
    return lines.headings.slice(lines.starts[first], lines.starts[last + 1] - 1);
  }
  return kept.map((i) => headingAt(lines, i)).join("\n");
}

/**
 * The best-matching sections of a page (at most three, best first), the anchor its result
 * should point at ("" for the page itself), and the heading that names most of the query
 * (`lead`: none matched when its `inHeading` is 0).
 */
export interface SectionsAsk {
  url: string;
  title: Titled;
  /** The page's text (or a part of it), read as far as the sections need. */
  body: TextPrefix;
  lines: SectionLines;
  /** Where each section's heading starts in `body` (-1: not in it). */
  offsets: Int32Array;
  match: Matcher;
  /** The matches found in `body` so far. */
  found: [number, number][];
  /** Whether the query's words may be in headings (false: only their text is scored). */
  inHeadings?: boolean;
  /** Whether the body may hold accented letters (false: its text needs no folding). */
  accented?: boolean;
  /** Distinct query words in a heading count this many times those in its text. */
  headingWeight: number;
}

export function matchSections(
  ask: SectionsAsk,
): { sections: SectionHit[]; anchor: string; lead: HeadingMatch } {
  const { url, title, body, lines, offsets, match, found } = ask;
  const { inHeadings = true, accented = true, headingWeight } = ask;
  // Sections whose heading lies in the text read (a body may be read only in part); their
  // offsets rise in reading order, so none past it follows one that ends past it.
  const kept: number[] = [];
  for (let i = 0; i < lines.count; i++) {
    const at = offsets[i] ?? -1;
    if (at < 0) continue;
    if (at + headingLength(lines, i) > body.length) break;
    kept.push(i);
  }
  let titleKey: string | undefined;
  // Headings are matched together as one text: one scan, whatever their number. They are
  // lines of the body, so they need folding only if it does.
  const joined = inHeadings ? joinHeadings(lines, kept) : "";
  const headed = inHeadings ? findMatches(joined, match, { accented }) : [];
  let h = 0, k = 0, headAt = 0;
  const scored: Scored[] = [];
  for (let n = 0; n < kept.length; n++) {
    const i = kept[n], at = offsets[i], length = headingLength(lines, i);
    const end = n + 1 < kept.length ? offsets[kept[n + 1]] : body.length;
    const headEnd = headAt + length;
    const h0 = h;
    while (h < headed.length && headed[h][1] <= headEnd) h++;
    headAt = headEnd + 1;
    // Matches in the text (both lists are in text order: one sweep).
    while (k < found.length && found[k][0] < at + length) k++;
    const k0 = k;
    while (k < found.length && found[k][1] <= end) k++;
    if (h === h0 && k === k0) continue;
    // A heading that repeats the page title names the whole page, not a part of it.
    titleKey ??= title.text.trim().toLowerCase();
    if (headingAt(lines, i).trim().toLowerCase() === titleKey) continue;
    const { inHeading, whole } = h > h0 ? headingMatch(joined, headed, match, h0, h) : NO_MATCH;
    const score = inHeading * headingWeight +
      (k - k0 < 2 ? k - k0 : distinctWords(body.upTo(found[k - 1][1]), found, k0, k)) +
      Math.min(1, (k - k0) / 20);
    scored.push({ i, at, end, inHeading, whole, score });
  }
  const best = [...scored].sort((a, b) => b.score - a.score).slice(0, MAX_SECTIONS);
  const hits = best.map((x) => {
    const from = x.at + headingLength(lines, x.i);
    // Matches beyond what was scanned of the page are looked for in the section itself.
    const own = found.some(([a, b]) => a >= from && b <= x.end)
      ? found
      : findMatches(body.upTo(x.end).slice(from, x.end), match, { limit: 16, accented }).map((
        [a, b],
      ) => [a + from, b + from] as [number, number]);
    return {
      title: headingAt(lines, x.i),
      url: withAnchor(url, anchorAt(lines, x.i)),
      snippet: snippetIn(body, own, from, x.end)?.snippet ??
        body.upTo(from + 180).slice(from, from + 180).replace(/\n/g, " ").trim(),
    };
  });
  return {
    sections: hits,
    anchor: anchorOf(best[0], scored, title, match, lines),
    lead: scored.reduce((a, x) => namesMore(x, a) ? x : a, NO_MATCH as HeadingMatch),
  };
}
