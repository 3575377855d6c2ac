/**
 * A query's levers as ranking and presentation apply them (lib/levers compiles them from the
 * site's synonyms and curations): synonyms expand words while ranking; a curation's pinned
 * pages come first on page 1, in its order, whether or not they match, and hidden pages never
 * show. A pin of a page the index no longer has is skipped.
 */
import type { Expand } from "./rank.ts";

export interface SearchLevers {
  expand?: Expand;
  placement?: { pin: string[]; hide: ReadonlySet<string> };
}

/** Ranked ids with a curation applied: pins first (at most a page of them), hidden ones out. */
export function curate(
  ranked: number[],
  placement: NonNullable<SearchLevers["placement"]>,
  perPage: number,
  idOf: (url: string) => number | undefined,
): { ids: number[]; found: number; pinned: Set<number> } {
  const hidden = new Set<number>();
  for (const url of placement.hide) {
    const id = idOf(url);
    if (id !== undefined) hidden.add(id);
  }
  const pins: number[] = [];
  for (const url of placement.pin) {
    const id = idOf(url);
    if (id !== undefined && !hidden.has(id) && !pins.includes(id)) pins.push(id);
  }
  const pinned = new Set(pins.slice(0, perPage));
  const rest = ranked.filter((id) => !hidden.has(id) && !pinned.has(id));
  return { ids: [...pinned, ...rest], found: pinned.size + rest.length, pinned };
}
