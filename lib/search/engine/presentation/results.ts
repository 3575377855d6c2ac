/**
 * Results as docs/api.md shapes them: a ranked page's title, description, highlights (plain
 * text with offsets) and best sections, and the URL it links to (a section's anchor only
 * when that section is the better target, sections.ts).
 */
import type { Highlight, PageHit, SectionHit } from "./hits.ts";
import { rank } from "../query/rank.ts";
import type { Correction } from "../query/accumulate.ts";
import type { Expand } from "../query/expand.ts";
import { DEFAULT_RANKING, type Ranking } from "../query/weights.ts";
import { curate, curatedLimit, type Placement, type SectionPlacement } from "../query/curated.ts";
import { sealForLookup, shownAt, type ShownDoc, type SiteDb, textAt } from "../store/site_db.ts";
import { headingLength } from "../store/packed_sections.ts";
import type { FacetValue } from "../store/filter_postings.ts";
import { fold } from "../analysis/tokens.ts";
import {
  findMatches,
  firstMatches,
  highlightField,
  makeMatcher,
  type Matcher,
  SNIPPET_SCAN_CHARS,
  snippetIn,
} from "./highlight.ts";
import {
  type HeadingMatch,
  headingMatch,
  joinHeadings,
  matchSections,
  MAX_SECTIONS,
  namesMore,
  outnamesTitle,
  sectionNamed,
  type Titled,
  titled,
  withAnchor,
} from "./sections.ts";

export interface SearchResult {
  found: number;
  hits: PageHit[];
  corrections: Correction[];
  /** Per filter name, its largest values among the matches (when asked for). */
  facets?: Record<string, FacetValue[]>;
}

/** One search: what is asked, which page of it, and how it is ranked (docs/api.md "Search"). */
export interface SearchOptions {
  query: string;
  /** The page of results, from 1. */
  page?: number;
  /** Results per page. */
  perPage?: number;
  /** Other phrases for the query's words (the owner's synonyms). */
  expand?: Expand;
  /** An owner's curation of this query: pages pinned first, pages hidden. */
  placement?: Placement;
  /** Name → values: values of a name are OR-ed, names AND-ed (docs/api.md "Filters"). */
  filters?: ReadonlyMap<string, readonly string[]>;
  /** Whether to count the matches' values of each filter name. */
  facets?: boolean;
  /** Knobs of ranking for this search: DEFAULT_RANKING when left out. */
  ranking?: Readonly<Ranking>;
}

/** Words of the pages a search highlights at most (typed words and corrections always). */
const MAX_HIGHLIGHT_WORDS = 64;

/** A result's text is read this far first; beyond it only around a heading that matches. */
const FIRST_READ_CHARS = 8_000;
/** Text read past a deeper heading, for its section's snippet. */
const SECTION_READ_CHARS = 2_000;

/**
 * The sections of a page beyond the text read first whose headings match, found in the
 * stretch of text around the heading that names most of the query (none past
 * SNIPPET_SCAN_CHARS); its anchor only when no other heading, read first (`lead`) or
 * later, names as much of the query.
 */
function laterSections(
  db: SiteDb,
  id: number,
  doc: ShownDoc,
  { title, match, lead, wanted, headingWeight }: {
    title: Titled;
    match: Matcher;
    lead: HeadingMatch;
    /** Whether its sections are wanted without an anchor (none was found before). */
    wanted: boolean;
    /** Ranking.sectionHeadingWeight. */
    headingWeight: number;
  },
) {
  const none = { sections: [], anchor: "" };
  const { sectionAt: offsets, sections: lines } = doc;
  // A title that names most of the query leaves no section a better target.
  if (!wanted && !outnamesTitle({ inHeading: match.weight, whole: 0 }, title, match)) {
    return none;
  }
  // The sections (by number) whose headings lie past the text read first (their offsets
  // rise in reading order).
  const later: number[] = [];
  for (let i = 0; i < lines.count; i++) {
    const at = offsets[i] ?? -1, end = at + headingLength(lines, i);
    if (end > SNIPPET_SCAN_CHARS) break;
    if (at >= 0 && end > doc.body.length) later.push(i);
  }
  // The later headings are matched together, one scan, as sections.ts does; then only
  // those that hold a match one by one. They are lines of the body: folded only if it is.
  const joined = joinHeadings(lines, later);
  const hits = findMatches(joined, match, { limit: MATCHES_SCANNED, accented: doc.accented });
  if (!hits.length) return none;
  let best = -1, bestMatch = lead, rivals = 0, pos = 0, k = 0;
  for (const i of later) {
    const end = pos + headingLength(lines, i), k0 = k;
    while (k < hits.length && hits[k][1] <= end) k++;
    pos = end + 1;
    if (k === k0) continue;
    const m = headingMatch(joined, hits, match, k0, k);
    if (best < 0 || namesMore(m, bestMatch)) [best, bestMatch, rivals] = [i, m, 0];
    else if (!namesMore(bestMatch, m)) rivals++;
  }
  const clear = best >= 0 && rivals === 0 && namesMore(bestMatch, lead) &&
    outnamesTitle(bestMatch, title, match);
  // Its text is read (inflated) only where it gives the result its target or its sections.
  if (best < 0 || !(clear || wanted)) return none;
  const from = offsets[best], to = from + headingLength(lines, best) + SECTION_READ_CHARS;
  const { text, at } = textAt(db, id, from, to);
  // Offsets into the stretch: sections before it fall below 0 and are left out.
  const shifted = offsets.map((o) => (o < at ? -1 : o - at));
  const found = matchSections({
    url: doc.id,
    title,
    body: { length: text.length, upTo: () => text },
    lines,
    offsets: shifted,
    match,
    found: [],
    accented: doc.accented,
    headingWeight,
  });
  return { sections: found.sections, anchor: clear ? found.anchor : "" };
}

/** Matches looked for in a result's text: enough for a snippet and the sections' scores. */
const MATCHES_SCANNED = 64;

/** The description shown for a result: the page's own, else the start of its text. */
function describe(doc: ShownDoc): string {
  if (doc.description) return doc.description;
  // The page's own title as its first line would only repeat the result's title.
  let start = doc.body.upTo(600).slice(0, 600);
  const nl = start.indexOf("\n");
  if (nl > 0 && doc.title.trim().toLowerCase() === start.slice(0, nl).trim().toLowerCase()) {
    start = start.slice(nl + 1);
  }
  // Only runs of spaces and other white space are replaced: most text has few (no new string).
  const text = start.slice(0, 400).replace(/\s{2,}|[^\S ]/g, " ").trim();
  if (text.length <= 160) return text;
  const cut = text.lastIndexOf(" ", 157);
  return text.slice(0, cut > 80 ? cut : 157) + "…";
}

/**
 * A result's link and sections as a curation places them: a pinned section linked (the top of
 * the page when it has no such section any more), a hidden section never linked nor listed.
 */
function placeSections(
  doc: ShownDoc,
  placed: { pin?: string; hide?: string[] },
  shown: { anchor: string; sections: SectionHit[] },
): { anchor: string; sections: SectionHit[] } {
  let { anchor, sections } = shown;
  if (placed.pin !== undefined) anchor = sectionNamed(doc.sections, placed.pin) ?? "";
  if (placed.hide?.length) {
    const off = placed.hide.map((f) => sectionNamed(doc.sections, f))
      .filter((a): a is string => a !== undefined);
    if (off.includes(anchor)) anchor = "";
    const urls = new Set(off.map((a) => withAnchor(doc.id, a)));
    sections = sections.filter((x) => !urls.has(x.url));
  }
  return { anchor, sections };
}

/** Ranked, highlighted results for a query: page `page` of `perPage`, the site's levers applied. */
export function search(db: SiteDb, options: SearchOptions): SearchResult {
  const { query: q, page = 1, perPage = 10, placement, expand, filters } = options;
  const { facets: counting = false, ranking = DEFAULT_RANKING } = options;
  // Filters narrow the ranking; facets count every match. Neither ranks more than the pages
  // shown, so the first page is the same with facets as without. Documents move to new ids
  // at a lookup that seals the index: the filters' ids are taken after.
  if (filters?.size) sealForLookup(db);
  const chosen = db.filters.chosen(filters ?? new Map());
  const sets = [...chosen.values()];
  const only = sets.length ? (id: number) => sets.every((s) => s.has(id)) : undefined;
  const limit = placement ? curatedLimit(placement, page, perPage) : page * perPage;
  const ranked = rank(db, q, {
    limit,
    expand,
    ranking,
    only,
    matches: counting || (!!only && !!placement),
  });
  const { corrections, matched, words } = ranked;
  let { ids, found: total, pinned, sections: placed } = placement
    ? curate(db, ranked, placement, perPage)
    : { ...ranked, pinned: undefined, sections: undefined as SectionPlacement | undefined };
  let facets: SearchResult["facets"];
  if (ranked.matches) {
    // Every match as the curation leaves it (pins in, hidden out): what facets count, and
    // what a curated page's filtered count is taken from (a pin need not match, nor pass).
    const all = placement
      ? curate(
        db,
        { ...ranked, ids: Array.from(ranked.matches), found: ranked.matches.length },
        placement,
        perPage,
      ).ids
      : ranked.matches;
    if (counting) facets = db.filters.facets(all, chosen);
    if (only && placement) {
      ids = ids.filter(only);
      total = all.filter(only).length;
    }
  }
  // The words searched for, not the stop words between them ("the" is not marked everywhere).
  const typed = words.map(fold);
  // A one-letter word being typed may expand to many words: highlight a bounded few.
  const match = makeMatcher(
    [
      ...typed.filter((w) => !corrections.some((c) => fold(c.from) === w)),
      ...corrections.map((c) => c.to),
    ],
    matched.slice(0, MAX_HIGHLIGHT_WORDS),
    ranked.qualifiers.map(fold),
  );
  const present = (id: number): PageHit => {
    const doc = shownAt(db, id, FIRST_READ_CHARS);
    const title = titled(doc.title, match);
    const description = describe(doc);
    // The first matches make the snippet; sections are found by their headings too. A
    // body that holds none of the matched words (the match was in the title) is not read.
    const inBody = matched.some((t) => db.index.get("body", id, t) > 0);
    const found = inBody ? firstMatches(doc.body, match, MATCHES_SCANNED, doc.accented) : [];
    // Sections are scored only where the matched words are in headings or text.
    const inHeadings = matched.some((t) => db.index.get("headings", id, t) > 0);
    let { sections, anchor, lead } = inHeadings || found.length
      ? matchSections({
        url: doc.id,
        title,
        body: doc.body,
        lines: doc.sections,
        offsets: doc.sectionAt,
        match,
        found,
        inHeadings,
        accented: doc.accented,
        headingWeight: ranking.sectionHeadingWeight,
      })
      : { sections: [] as SectionHit[], anchor: "", lead: { inHeading: 0, whole: 0 } };
    // A heading that matches may lie beyond the text read first: its stretch is read alone.
    if (inHeadings && !anchor && doc.body.length >= FIRST_READ_CHARS) {
      const later = laterSections(db, id, doc, {
        title,
        match,
        lead,
        wanted: !sections.length,
        headingWeight: ranking.sectionHeadingWeight,
      });
      // Its sections come first where one is the target, or where none was found before.
      if (later.anchor || !sections.length) {
        anchor = later.anchor;
        const seen = new Set(later.sections.map((s) => s.url));
        sections = [...later.sections, ...sections.filter((s) => !seen.has(s.url))]
          .slice(0, MAX_SECTIONS);
      }
    }
    const pin = pinned?.has(id) ? placed?.pinned.get(id) : undefined;
    const hide = placed?.hidden.get(id);
    if (pin !== undefined || hide) {
      ({ anchor, sections } = placeSections(doc, { pin, hide }, { anchor, sections }));
    }
    const highlights = [
      title.matches.length ? { field: "title", snippet: doc.title, matches: title.matches } : null,
      highlightField("description", description, match),
      snippetIn(doc.body, found, 0, doc.body.length),
    ].filter((h): h is Highlight => h !== null);
    return {
      title: doc.title,
      description,
      url: withAnchor(doc.id, anchor),
      highlights,
      sections,
      ...(pinned?.has(id) ? { pinned: true as const } : {}),
    };
  };
  const hits = ids.slice((page - 1) * perPage, page * perPage).map(present);
  return { found: total, hits, corrections, ...(facets ? { facets } : {}) };
}
