/**
 * A query's levers as ranking and presentation apply them (lib/levers compiles them from the
 * site's synonyms and curations): synonyms expand words while ranking; a curation's pinned
 * pages come first on page 1, in its order, whether or not they match, and hidden pages never
 * show. A pin of a page the index no longer has is skipped.
 */
import type { Ranked } from "./rank.ts";
import type { SiteDb } from "../store/site_db.ts";
import { FIELDS } from "../store/postings.ts";

/** An owner's curation of a query: pages (by URL) pinned first in order, pages hidden. */
export interface Placement {
  pin: string[];
  hide: ReadonlySet<string>;
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
): { ids: number[]; found: number; pinned: Set<number> } {
  const hidden = new Set<number>();
  for (const url of placement.hide) {
    const id = db.docs.idOf(url);
    if (id !== undefined) hidden.add(id);
  }
  const pins: number[] = [];
  for (const url of placement.pin) {
    const id = db.docs.idOf(url);
    if (id !== undefined && !hidden.has(id) && !pins.includes(id)) pins.push(id);
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
  return { ids: [...pinned, ...rest], found, pinned };
}
