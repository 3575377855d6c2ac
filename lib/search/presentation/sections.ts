/**
 * A result's sections: where in a page the query's words are. Each section's
 * heading stands as its own line in the body where the section starts, so the
 * body is cut at those lines; sections are scored by the distinct query words
 * in their heading (most) and text, and the best few become sub-results. The
 * result itself links to a section only when that section is the better target
 * than the page as a whole (`anchorOf`).
 */
import { findMatches, type Matcher, snippetOf } from "./highlight.ts";
import type { SectionHit } from "../../wire_types.ts";
import type { Section } from "../store/packed_sections.ts";
import { RANKING } from "../query/weights.ts";
import { fold } from "../analysis/tokens.ts";

export type { SectionHit };

export const MAX_SECTIONS = 3;

/** A page URL pointing at an anchor. */
export const withAnchor = (url: string, anchor: string) =>
  anchor ? `${url}#${anchor.replace(/[\s"<>`]/g, encodeURIComponent)}` : url;

/** How well a heading names the query: its distinct query words, and how many are whole words. */
export interface HeadingMatch {
  inHeading: number;
  whole: number;
}

interface Scored extends HeadingMatch {
  s: Section;
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
): HeadingMatch => named(distinctWords(text, found, from, to), match.roots);

/**
 * How much of the query matched words name: the roots they stand for ("models" and "model"
 * are one), and how many of those appear as words of their own.
 */
function named(found: Set<string>, roots: string[]): HeadingMatch {
  const hit = new Set<string>(), whole = new Set<string>();
  for (const word of found) {
    const w = fold(word);
    const root = roots.find((r) => w.startsWith(r));
    if (root === undefined) continue;
    hit.add(root);
    if (w === root) whole.add(root);
  }
  return { inHeading: hit.size, whole: whole.size };
}

const NO_MATCH: HeadingMatch = { inHeading: 0, whole: 0 };

/** Distinct words (lowercased) of a text's matches `from` to `to`. */
function distinctWords(text: string, list: [number, number][], from = 0, to = list.length) {
  return new Set(list.slice(from, to).map(([a, b]) => text.slice(a, b).toLowerCase()));
}

/**
 * Whether a heading names the query better than the page's title: the title does not match
 * most of the query, and the heading holds more of it.
 */
export function outnamesTitle(heading: HeadingMatch, title: string, match: Matcher): boolean {
  if (heading.inHeading === 0) return false;
  const inTitle = headingMatch(title, findMatches(title, match), match).inHeading;
  return inTitle * 2 <= match.size && inTitle < heading.inHeading;
}

/**
 * The anchor a result links to: the best section's, when it is clearly the better target.
 * A query its title matches for the most part links to the page ("signals" on the page
 * "Signals"), and so does one whose words head several sections alike ("csrf" on a page
 * where every other heading names CSRF): the visitor wants the top of the page. A section
 * whose heading holds more of the query (or more of it as whole words) than the title and
 * every other heading is the target ("wobble" on the heading "Gizmo.wobble(amount)").
 */
function anchorOf(top: Scored | undefined, scored: Scored[], title: string, match: Matcher) {
  if (!top || !outnamesTitle(top, title, match)) return "";
  const rival = scored.some((x) => x !== top && x.inHeading > 0 && !namesMore(top, x));
  return rival ? "" : top.s.anchor;
}

/**
 * The best-matching sections of a page (at most three, best first), the anchor its result
 * should point at ("" for the page itself), and the heading that names most of the query
 * (`lead`: none matched when its `inHeading` is 0).
 */
export function matchSections(
  url: string,
  title: string,
  body: string,
  sections: Section[],
  offsets: Int32Array,
  match: Matcher,
  found: [number, number][],
  inHeadings = true,
  /** Whether the body may hold accented letters (false: its text needs no folding). */
  accented = true,
): { sections: SectionHit[]; anchor: string; lead: HeadingMatch } {
  // Sections whose heading lies in the text read (a body may be read only in part).
  const starts: { s: Section; at: number }[] = [];
  sections.forEach((s, i) => {
    const at = offsets[i] ?? -1;
    if (at >= 0 && at + s.heading.length <= body.length) starts.push({ s, at });
  });
  const titleKey = title.trim().toLowerCase();
  // Headings are matched together as one text: one scan, whatever their number. They are
  // lines of the body, so they need folding only if it does.
  const joined = starts.map((x) => x.s.heading).join("\n");
  const headed = inHeadings ? findMatches(joined, match, 500, false, accented) : [];
  let h = 0, k = 0, headAt = 0;
  const scored: Scored[] = [];
  const distinct = (text: string, from: number, to: number, list: [number, number][]) =>
    to - from < 2 ? to - from : distinctWords(text, list, from, to).size;
  for (let i = 0; i < starts.length; i++) {
    const { s, at } = starts[i];
    const end = starts[i + 1]?.at ?? body.length;
    const headEnd = headAt + s.heading.length;
    const h0 = h;
    while (h < headed.length && headed[h][1] <= headEnd) h++;
    headAt = headEnd + 1;
    // Matches in the text (both lists are in text order: one sweep).
    while (k < found.length && found[k][0] < at + s.heading.length) k++;
    const k0 = k;
    while (k < found.length && found[k][1] <= end) k++;
    if (h === h0 && k === k0) continue;
    // A heading that repeats the page title names the whole page, not a part of it.
    if (s.heading.trim().toLowerCase() === titleKey) continue;
    const { inHeading, whole } = h > h0 ? headingMatch(joined, headed, match, h0, h) : NO_MATCH;
    const score = inHeading * RANKING.sectionHeadingWeight + distinct(body, k0, k, found) +
      Math.min(1, (k - k0) / 20);
    scored.push({ s, at, end, inHeading, whole, score });
  }
  const best = [...scored].sort((a, b) => b.score - a.score).slice(0, MAX_SECTIONS);
  const hits = best.map((x) => {
    const from = x.at + x.s.heading.length;
    // Matches beyond what was scanned of the page are looked for in the section itself.
    const own = found.some(([a, b]) => a >= from && b <= x.end)
      ? found
      : findMatches(body.slice(from, x.end), match, 16, false, accented).map(([a, b]) =>
        [a + from, b + from] as [number, number]
      );
    return {
      title: x.s.heading,
      url: withAnchor(url, x.s.anchor),
      snippet: snippetOf(body, own, from, x.end)?.snippet ??
        body.slice(from, from + 180).replace(/\n/g, " ").trim(),
    };
  });
  return {
    sections: hits,
    anchor: anchorOf(best[0], scored, title, match),
    lead: scored.reduce((a, x) => namesMore(x, a) ? x : a, NO_MATCH as HeadingMatch),
  };
}
