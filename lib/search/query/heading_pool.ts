/**
 * The named-heading check (named.ts) over the first pages, with each page's own heading
 * forms: a word being typed stands for every word it begins (hundreds for "in"), and
 * looking each up in each page's headings cost common-word queries tens of ms. Each form's
 * heading postings are read once instead; the pages named are the same.
 */
import { postings, type SiteDb } from "../store/site_db.ts";
import { headingBonus } from "./named.ts";

/** Adds named.ts's heading bonus to `words` of the pages of `ids`, as headingBonus does. */
export function headingBonusOver(
  db: SiteDb,
  ids: number[],
  forms: Set<string>,
  words: { [id: number]: number },
  lang: string,
  queryWords: number,
  typed: number,
) {
  // As many forms as query words or fewer: each looked up in each page is cheap.
  if (forms.size <= queryWords) {
    return headingBonus(db, ids, forms, words, lang, queryWords, typed);
  }
  // Each page's forms its headings hold, from each form's heading postings read once.
  const wanted = new Set(ids), held = new Map<number, Set<string>>();
  for (const f of forms) {
    for (const { ids: has, tfs } of postings(db, "headings", f)) {
      for (let i = 0; i < has.length; i++) {
        if (!tfs[i] || !wanted.has(has[i])) continue;
        const own = held.get(has[i]);
        if (own) own.add(f);
        else held.set(has[i], new Set([f]));
      }
    }
  }
  headingBonus(db, ids, forms, words, lang, queryWords, typed, held);
}
