/**
 * Pages the query names (RANKING.named): a page whose whole title is words of the query,
 * holding nearly all of them ("celery.utils.saferepr" for "module celery.utils.saferepr"), or
 * whose headings name every query word ("CACHES" then "KEY_PREFIX" for "CACHES-KEY_PREFIX"),
 * is what the query is about, more than a contents page or a guide that merely uses every
 * word. Source listings are left out of the title rule: a module's code page is titled with
 * its name, its documentation often is not.
 */
import { firstWord, terms, words as wordsOf } from "../analysis/tokens.ts";
import { postings, type SiteDb } from "../store/site_db.ts";
import { RANKING } from "./weights.ts";

/** Headings of a page looked at as naming the query, at most (pairs of them are tried). */
const MAX_NAMING = 40;

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

/**
 * Adds RANKING.named.heading to `words` of each page of `ids` with one heading, or two, made
 * of query words only and naming all `queryWords` of them (a dotted name's parts each count).
 */
export function headingBonus(
  db: SiteDb,
  ids: number[],
  forms: Set<string>,
  words: { [id: number]: number },
  lang: string,
  queryWords: number,
) {
  const { heading: weight, headingWords } = RANKING.named;
  const need = Math.min(forms.size, queryWords);
  // A name is a few words; a question's words are in many headings, named by none.
  if (!weight || !need || need > headingWords) return;
  // Longer lines hold more than query words (a word is about twice its form at most).
  const longest = (Math.max(...[...forms].map((f) => f.length)) * 2 + 8) * need;
  // Whether all of a word's forms are the query's: headings of the pages share many words.
  const known = new Map<string, boolean>();
  const ofQuery = (word: string) => {
    let yes = known.get(word);
    if (yes === undefined) known.set(word, yes = terms(word, lang).every((t) => forms.has(t)));
    return yes;
  };
  for (const id of ids) {
    // Only a page whose headings hold enough of the query's forms is read.
    let held = 0;
    for (const f of forms) if (db.index.get("headings", id, f) > 0 && ++held >= need) break;
    if (held < need) continue;
    const headings = db.docs.sectionHeadings(id);
    if (!headings) continue;
    // Each heading made of query words only, as the set of them it names; lines too long
    // are passed over unread, and the page is done once two of them name the query.
    const named: Set<string>[] = [];
    let yes = false;
    for (let at = 0; at < headings.length && !yes && named.length < MAX_NAMING;) {
      let end = headings.indexOf("\n", at);
      if (end < 0) end = headings.length;
      const from = at;
      at = end + 1;
      if (end === from || end - from > longest) continue;
      const line = headings.slice(from, end);
      // Most lines fail on their first word: only that one is stemmed before the rest.
      const first = firstWord(line, lang);
      if (first === undefined || !ofQuery(first)) continue;
      const own = [...wordsOf(line, lang)].flatMap((w) => terms(w, lang));
      if (own.length && own.every((t) => forms.has(t))) {
        named.push(new Set(own));
        yes = namesWithOne(named, need);
      }
    }
    if (yes) words[id] += weight;
  }
}

/**
 * Whether the last of `named` names `need` query words, alone or with one before it (a
 * heading and a subheading): asked after each, it tells whether any one or two do.
 */
function namesWithOne(named: Set<string>[], need: number): boolean {
  const last = named[named.length - 1];
  if (last.size >= need) return true;
  for (let i = 0; i < named.length - 1; i++) {
    if (new Set([...named[i], ...last]).size >= need) return true;
  }
  return false;
}
