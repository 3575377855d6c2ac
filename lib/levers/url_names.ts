/**
 * Names the site's URLs give its pages (lib/meaning/url_names.ts), as its levers hold them:
 * each crawl publishes the names it found (a redirect, a canonical URL) as the site's "names"
 * list (suggestions_names.ts), and searches use them like two-way synonyms at
 * DEFAULT_RANKING.statedWeight, below the owner's own synonyms, which win where both apply.
 */
import type { Equivalence } from "../search/engine/mod.ts";
import { slugName } from "../meaning/url_names.ts";
import { type Expand } from "../search/mod.ts";
import { DEFAULT_RANKING } from "../search/engine/mod.ts";
import { compileSynonyms } from "./synonyms.ts";

/** The expansion of a site's URL names, at the weight of what its pages state. */
export function compileNames(names: Equivalence[]): Expand | undefined {
  const expand = compileSynonyms(names.map((n, i) => ({ id: `name${i}`, words: [...n.words] })));
  if (!expand) return undefined;
  return (words, known) =>
    expand(words, known).map((a) => ({ ...a, weight: DEFAULT_RANKING.statedWeight }));
}

/** The owner's synonyms, then the names where no synonym of the owner's applies. */
export function withNames(own: Expand | undefined, names: Expand | undefined): Expand | undefined {
  if (!own || !names) return own ?? names;
  return (words, known) => {
    const out = own(words, known);
    for (const n of names(words, known)) {
      if (!out.some((o) => n.from < o.to && o.from < n.to)) out.push(n);
    }
    return out;
  };
}

/** The old name and the page's name of a URL name, as the owner reads them. */
export const nameSides = (n: Equivalence) => {
  const [from, to] = n.urls!;
  return [slugName(from)!, slugName(to)!] as const;
};
