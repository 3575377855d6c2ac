/**
 * A result's sections: where in a page the query's words are. Each section's
 * heading stands as its own line in the body where the section starts, so the
 * body is cut at those lines; sections are scored by the distinct query words
 * in their heading (most) and text, and the best few become sub-results.
 */
import { findMatches, type Matcher, snippetOf } from "./highlight.ts";
import type { Section } from "./site_db.ts";

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

/** Distinct matched words of a text, folded to lower case. */
function distinct(text: string, found: [number, number][]): Set<string> {
  return new Set(found.map(([s, e]) => text.slice(s, e).toLowerCase()));
}

/**
 * The best-matching sections of a page (at most three, best first) and the anchor its
 * result should point at ("" when the match is not in one section).
 */
export function matchSections(
  url: string,
  title: string,
  body: string,
  sections: Section[],
  match: Matcher,
  found: [number, number][],
): { sections: SectionHit[]; anchor: string } {
  // Find each heading's line in reading order; a heading cut off with the text is left out.
  const starts: { s: Section; at: number }[] = [];
  let pos = 0;
  for (const s of sections) {
    if (!s.heading) continue;
    let at = body.indexOf(s.heading, pos);
    while (
      at >= 0 &&
      !((at === 0 || body[at - 1] === "\n") &&
        (at + s.heading.length === body.length || body[at + s.heading.length] === "\n"))
    ) at = body.indexOf(s.heading, at + 1);
    if (at < 0) continue;
    starts.push({ s, at });
    pos = at + s.heading.length;
  }
  const titleKey = title.trim().toLowerCase();
  const scored = starts.map(({ s, at }, i) => {
    const end = starts[i + 1]?.at ?? body.length;
    const inHeading = distinct(s.heading, findMatches(s.heading, match)).size;
    const inText = distinct(body, found.filter(([a, b]) => a >= at && b <= end));
    // A heading that repeats the page title names the whole page, not a part of it.
    const whole = s.heading.trim().toLowerCase() === titleKey;
    return {
      s,
      at,
      end,
      whole,
      inHeading,
      score: inHeading * HEADING_WEIGHT + inText.size +
        Math.min(1, found.filter(([a, b]) => a >= at && b <= end).length / 20),
    };
  }).filter((x) => x.score > 0);
  const best = scored.filter((x) => !x.whole).sort((a, b) => b.score - a.score).slice(
    0,
    MAX_SECTIONS,
  );
  const hits = best.map((x) => ({
    title: x.s.heading,
    url: withAnchor(url, x.s.anchor),
    snippet: snippetOf(body, found, x.at + x.s.heading.length, x.end)?.snippet ??
      body.slice(x.at + x.s.heading.length, x.at + x.s.heading.length + 180).trim(),
  }));
  const top = best[0];
  return { sections: hits, anchor: top && top.inHeading > 0 ? top.s.anchor : "" };
}
