/**
 * Pages the query names: a page whose whole title is words of the query, and which holds
 * nearly all of them ("celery.utils.saferepr" for "module celery.utils.saferepr"), is what the
 * query is about, more than a contents page that lists every word of it. Such a page counts
 * as matching RANKING.named.words more of the query's words. Source listings are left out:
 * a module's code page is titled with its name, its documentation often is not.
 */
import { postings, type SiteDb } from "../store/site_db.ts";
import { RANKING } from "./weights.ts";

/**
 * Adds the bonus to `words` (per document id) of every page whose title holds only the forms
 * the query matched, and at least all but `named.slack` of its `queryWords` matching words.
 */
export function nameBonus(
  db: SiteDb,
  forms: Iterable<string>,
  words: { [id: number]: number },
  queryWords: number,
) {
  const { words: bonus, minTitle, slack } = RANKING.named;
  if (!bonus) return;
  const need = Math.max(minTitle, queryWords - slack);
  // Per page: title words that are query words, and how many distinct query words they are.
  const inTitle = new Map<number, [number, number]>();
  for (const form of forms) {
    for (const { ids, tfs } of postings(db, "title", form)) {
      for (let i = 0; i < ids.length; i++) {
        if (!tfs[i] || !words[ids[i]]) continue;
        const [n, distinct] = inTitle.get(ids[i]) ?? [0, 0];
        inTitle.set(ids[i], [n + tfs[i], distinct + 1]);
      }
    }
  }
  const lengths = db.index.lengths.title;
  for (const [id, [n, distinct]] of inTitle) {
    const whole = n >= (lengths.get(id) ?? Infinity);
    if (whole && distinct >= need && (db.prior.get(id) ?? 1) >= 1) words[id] += bonus;
  }
}
