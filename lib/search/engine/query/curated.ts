/**
 * A query's levers as ranking and presentation apply them (lib/levers compiles them from the
 * site's synonyms and curations): synonyms expand words while ranking; a curation's pinned
 * pages come first on page 1, in its order, whether or not they match, and hidden pages never
 * show. A pin or hide may name a section (`/page#anchor`): a pinned section's page comes first
 * and links that section; a hidden section is never linked for the query (its page still
 * shows, at its top or another section). A pin of a page the index no longer has is skipped.
 */
import type { Ranked } from "./rank.ts";
import type { SiteDb } from "../store/site_db.ts";
import { FIELDS } from "../store/postings.ts";

/** An owner's curation of a query: pages (by URL) pinned first in order, pages hidden. */
export interface Placement {
  pin: string[];
  hide: ReadonlySet<string>;
}

/** What a curated page shows of its sections: the one a pin links, those never linked. */
export interface SectionPlacement {
  /** Per pinned page, the fragment its pin names. */
  pinned: Map<number, string>;
  /** Per page, the fragments of its hidden sections. */
  hidden: Map<number, string[]>;
}

/**
 * A pin's or hide's URL as the index holds it: a page, or (when no page has the URL as it
 * stands) a section of the page before its "#".
 */
function target(db: SiteDb, url: string): { id: number; fragment: string } | undefined {
  const id = db.docs.idOf(url);
  if (id !== undefined) return { id, fragment: "" };
  const at = url.indexOf("#");
  if (at <= 0 || at === url.length - 1) return undefined;
  const page = db.docs.idOf(url.slice(0, at));
  return page === undefined ? undefined : { id: page, fragment: url.slice(at + 1) };
}

/** How many ranked ids a curated page needs: the page's own, and room for those taken out. */
export const curatedLimit = (
  placement: Placement,
  page: number,
  perPage: number,
) => page * perPage + placement.hide.size + placement.pin.length;

/**
 * Ranked ids (the first `curatedLimit` of `found`) with a curation applied: pins first (at most
 * a page of them), hidden ones out, and the count kept exact without ranking every match.
 */
export function curate(
  db: SiteDb,
  ranked: Ranked,
  placement: Placement,
  perPage: number,
): { ids: number[]; found: number; pinned: Set<number>; sections: SectionPlacement } {
  const hidden = new Set<number>();
  const sections: SectionPlacement = { pinned: new Map(), hidden: new Map() };
  for (const url of placement.hide) {
    const t = target(db, url);
    if (!t) continue;
    if (!t.fragment) hidden.add(t.id);
    else sections.hidden.set(t.id, [...sections.hidden.get(t.id) ?? [], t.fragment]);
  }
  const pins: number[] = [];
  for (const url of placement.pin) {
    const t = target(db, url);
    // A page pinned twice (itself, or two of its sections) stands at its first pin.
    if (!t || hidden.has(t.id) || pins.includes(t.id)) continue;
    pins.push(t.id);
    if (t.fragment) sections.pinned.set(t.id, t.fragment);
  }
  const pinned = new Set(pins.slice(0, perPage));
  // Ranked ids are matches; past them (when some were left unranked) a page matched if it
  // holds one of the forms the query matched, in any field.
  const listed = new Set(ranked.ids);
  const matched = (id: number) =>
    listed.has(id) ||
    (ranked.ids.length < ranked.found &&
      FIELDS.some((f) => ranked.matched.some((t) => db.index.get(f, id, t) > 0)));
  let found = ranked.found;
  for (const id of hidden) if (matched(id)) found--;
  for (const id of pinned) if (!matched(id)) found++;
  const rest = ranked.ids.filter((id) => !hidden.has(id) && !pinned.has(id));
  return { ids: [...pinned, ...rest], found, pinned, sections };
}
