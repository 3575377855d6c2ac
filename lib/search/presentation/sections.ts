/**
 * A result's sections: where in a page the query's words are. Each section's
 * heading stands as its own line in the body where the section starts, so the
 * body is cut at those lines; sections are scored by the distinct query words
 * in their heading (most) and text, and the best few become sub-results.
 */
import { findMatches, type Matcher, snippetOf } from "./highlight.ts";
import type { Section } from "../store/packed_sections.ts";

export interface SectionHit {
  title: string;
  url: string;
  snippet: string;
}

export const MAX_SECTIONS = 3;
const HEADING_WEIGHT = 3;

/** A page URL pointing at an anchor. */
export const withAnchor = (url: string, anchor: string) =>
  anchor ? `${url}#${anchor.replace(/[\s"<>`]/g, encodeURIComponent)}` : url;

/**
 * The best-matching sections of a page (at most three, best first) and the anchor its
 * result should point at ("" when the match is not in one section).
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
): { sections: SectionHit[]; anchor: string } {
  // Sections whose heading lies in the text read (a body may be read only in part).
  const starts: { s: Section; at: number }[] = [];
  sections.forEach((s, i) => {
    const at = offsets[i] ?? -1;
    if (at >= 0 && at + s.heading.length <= body.length) starts.push({ s, at });
  });
  const titleKey = title.trim().toLowerCase();
  // Headings are matched together as one text: one scan, whatever their number.
  const joined = starts.map((x) => x.s.heading).join("\n");
  const headed = inHeadings ? findMatches(joined, match) : [];
  let h = 0, k = 0, headAt = 0;
  const scored: { s: Section; at: number; end: number; inHeading: number; score: number }[] = [];
  const distinct = (text: string, from: number, to: number, list: [number, number][]) => {
    if (to - from < 2) return to - from;
    return new Set(list.slice(from, to).map(([a, b]) => text.slice(a, b).toLowerCase())).size;
  };
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
    const inHeading = distinct(joined, h0, h, headed);
    const score = inHeading * HEADING_WEIGHT + distinct(body, k0, k, found) +
      Math.min(1, (k - k0) / 20);
    scored.push({ s, at, end, inHeading, score });
  }
  const best = scored.sort((a, b) => b.score - a.score).slice(0, MAX_SECTIONS);
  const hits = best.map((x) => {
    const from = x.at + x.s.heading.length;
    // Matches beyond what was scanned of the page are looked for in the section itself.
    const own = found.some(([a, b]) => a >= from && b <= x.end)
      ? found
      : findMatches(body.slice(from, x.end), match, 16).map(([a, b]) =>
        [a + from, b + from] as [number, number]
      );
    return {
      title: x.s.heading,
      url: withAnchor(url, x.s.anchor),
      snippet: snippetOf(body, own, from, x.end)?.snippet ??
        body.slice(from, from + 180).replace(/\n/g, " ").trim(),
    };
  });
  const top = best[0];
  return { sections: hits, anchor: top && top.inHeading > 0 ? top.s.anchor : "" };
}
