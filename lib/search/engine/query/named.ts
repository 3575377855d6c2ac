/**
 * Pages the query names (Ranking.named): a page whose whole title is words of the query,
 * holding nearly all of them ("shop.orders.refunds" for "module shop.orders.refunds"), or
 * whose headings name every query word ("QUEUES" then "MAX_DEPTH" for "QUEUES-MAX_DEPTH"),
 * is what the query is about, more than a contents page or a guide that merely uses every
 * word; so is a page with a heading that asks the query's question word for word, or that
 * names the thing a short query asks about ("Invoking the frobctl Program"). Source listings
 * are left out of the title rule: a module's code page is titled with its name, its
 * documentation often is not.
 */
import { docCount, postings, type SiteDb } from "../store/site_db.ts";
import type { Ranking } from "./weights.ts";
import { exactScores } from "./bm25.ts";
import { keptHeadings, LINE_HEAD } from "./heading_words.ts";
import { formMask, type HeadingNumbers } from "./heading_numbers.ts";
import { headingForms } from "./heading_pool.ts";

/** Headings of a page looked at as naming the query, at most (pairs of them are tried). */
const MAX_NAMING = 40;

/** No rare words: a query every naming heading must hold whole. */
const NONE: ReadonlySet<string> = new Set();

/**
 * Adds the bonus to `words` (per document id) of every page whose title holds only the forms
 * the query matched, at least all but `named.slack` of its `queryWords` matching words, and
 * every form of `names`: the query's names ("frob_limit", "acme.tools.saw"), which carry its
 * meaning, where a title of its other words ("Configuration parameters" for "frob_limit
 * configuration parameter") names only what qualifies it.
 */
export function nameBonus(
  db: SiteDb,
  words: { [id: number]: number },
  { forms, queryWords, names, unit, ranking: r }: {
    forms: Iterable<string>;
    queryWords: number;
    names: ReadonlySet<string>;
    /** What a query word that means counts in `words` (accumulate.ts). */
    unit: number;
    ranking: Readonly<Ranking>;
  },
) {
  const { words: bonus, minTitle, slack } = r.named;
  if (!bonus) return;
  // A one-word query that is a page's whole title names that page ("download").
  const need = queryWords === 1 ? 1 : Math.max(minTitle, queryWords - slack);
  // Per page: title words that are query words, and how many distinct query words they are.
  const slots = db.index.slots;
  if (inTitle.length < slots) {
    [inTitle, distinct, named] = [
      new Uint32Array(slots),
      new Uint16Array(slots),
      new Uint16Array(slots),
    ];
  }
  clearTitled();
  for (const form of forms) {
    const isName = names.has(form);
    for (const { ids, tfs } of postings(db, "title", form)) {
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i];
        if (!tfs[i] || !words[id]) continue;
        if (!distinct[id]) titled.push(id);
        inTitle[id] += tfs[i];
        distinct[id]++;
        if (isName) named[id]++;
      }
    }
  }
  const lengths = db.index.lengths.title;
  let wholes = 0;
  for (const id of titled) {
    const whole = inTitle[id] >= (lengths.get(id) ?? Infinity);
    if (whole && distinct[id] >= need && named[id] >= names.size && (db.prior.get(id) ?? 1) >= 1) {
      words[id] += bonus * unit;
      wholes++;
    }
  }
  // A one-word query held by one title only ("Shipping and delivery" for "shipping") names
  // that page as a heading of the word alone would (headingBonus): the page given to the
  // word is the topic, where a section headed by it sits in a page about something else.
  if (queryWords === 1 && !wholes && titled.length === 1 && (db.prior.get(titled[0]) ?? 1) >= 1) {
    words[titled[0]] += r.named.heading * unit;
  }
  clearTitled();
}

/**
 * Per page of `titled`: its title's words that are query words, the distinct ones, and the
 * query's names among them (reused).
 */
let inTitle = new Uint32Array(0), distinct = new Uint16Array(0), named = new Uint16Array(0);
const titled: number[] = [];

function clearTitled() {
  for (const id of titled) inTitle[id] = distinct[id] = named[id] = 0;
  titled.length = 0;
}

/**
 * Adds Ranking.named.heading to `words` of each page of `ids` with a heading that names the
 * query. A heading's words are its words less stop words and section numbers ("9.8"); it
 * names the query when they are query words only and name every one of them (alone, or for a
 * query of at most `headingWords` words with one other heading: "CACHES", "KEY_PREFIX"), or,
 * for a query of more than `slack` and at most `looseWords` words with a rare word, when they
 * hold every rare one, all of the query's words but `slack` or the rare ones alone (the rest
 * qualify the name: "frob_limit (integer)" for "frob_limit configuration parameter"), and at
 * most `extra` words besides ("Invoking the frobctl Program" for "frobctl program usage"),
 * where no heading names it exactly. Of `typed` words as typed: a dotted name's parts are one
 * name, which a heading of some of its parts does not name, so longer queries need two words
 * typed, and the loose rule every word typed apart.
 */
export function headingBonus(
  db: SiteDb,
  ids: number[],
  words: { [id: number]: number },
  { forms, lang, queryWords, typed, unit, ranking: r }: {
    forms: Set<string>;
    lang: string;
    queryWords: number;
    typed: number;
    /** What a query word that means counts in `words` (accumulate.ts). */
    unit: number;
    ranking: Readonly<Ranking>;
  },
) {
  const { heading: weight, headingWords, looseWords, extra, slack } = r.named;
  const need = Math.min(forms.size, queryWords);
  if (!weight || !need || (need > headingWords && typed < 2)) return;
  // The rare words a heading holding not all query words must hold (none: it holds all).
  const rare = typed >= queryWords && need > slack && need <= looseWords
    ? rareForms(db, forms, r)
    : NONE;
  const loose = rare.size > 0;
  const least = loose ? Math.min(need - slack, rare.size) : need, spare = loose ? extra : 0;
  // Longer lines hold more than query words (a word is about twice its form at most).
  const longest = (Math.max(...[...forms].map((f) => f.length)) * 2 + 8) * (need + spare + 1);
  const read = keptHeadings(db, lang), mask = formMask(forms);
  read.words.begin();
  // Pages a heading names exactly, and pages one names all but `slack` words of.
  const exactly: number[] = [], closely: number[] = [];
  const q: Naming = {
    words: read.words,
    forms,
    mask,
    longest,
    need,
    pairs: need <= headingWords,
    spare,
    loose,
    least,
    rare,
    own: new Set(),
  };
  // Only a page whose headings hold enough of the query's forms is read.
  const held = headingForms(db, ids, forms, rare, queryWords);
  for (let j = 0; j < ids.length; j++) {
    const id = ids[j];
    if (held.held[j] < least || held.rare[j] < rare.size) continue;
    const lines = read.lines(db, id);
    // A site that took its share of the shared numbering reads on in its own (heading_words.ts).
    if (read.words !== q.words) (q.words = read.words).begin();
    const names = lines ? naming(lines.chunk, lines.at, lines.end, q) : 0;
    if (names === 2) exactly.push(id);
    else if (names === 1) closely.push(id);
  }
  // A heading that names the query only nearly counts where none names it exactly.
  for (const id of exactly.length ? exactly : closely) words[id] += weight * unit;
}

/** What the named-heading check asks of each page's heading lines (`naming`). */
interface Naming {
  words: HeadingNumbers;
  forms: Set<string>;
  /** `forms`' formMask. */
  mask: number;
  /** Characters of a line that may name the query, at most. */
  longest: number;
  need: number;
  pairs: boolean;
  /** Other words a naming line may hold (the loose rule's). */
  spare: number;
  loose: boolean;
  least: number;
  rare: ReadonlySet<string>;
  /** A line's query forms (reused). */
  own: Set<string>;
}

/**
 * Whether a page's heading lines (`lines[from, to)`, heading_words.ts) name the query: 2
 * exactly, 1 all but `slack` of its words (the loose rule), 0 not. Each heading made of query
 * words only is taken as the set of them it names; lines too long are passed over, and the
 * page is done once one or two of them name it.
 * (A function of its own: V8 optimizes it apart from the rest of the check.)
 */
function naming(lines: Uint16Array, from: number, to: number, q: Naming): number {
  const { words, forms, mask, longest, spare, own } = q;
  const named: Set<string>[] = [];
  let close = false;
  for (let at = from; at < to && named.length < MAX_NAMING;) {
    const chars = lines[at], bits = lines[at + 1] | (lines[at + 2] << 16);
    const first = at + LINE_HEAD, end = first + lines[at + 3];
    at = end;
    // A line none of whose forms is the query's names nothing (most lines).
    if (chars === 0 || chars > longest || !(bits & mask)) continue;
    // Most lines fail on their first words: a line is read only while it may still name.
    own.clear();
    let others = 0;
    for (let k = first; k < end; k++) {
      const w = lines[k];
      if (words.ofQuery(w, forms, mask)) words.addForms(w, own);
      else if (++others > spare) break;
    }
    if (others > spare || !own.size) continue;
    if (others === 0) {
      named.push(new Set(own));
      if (namesWithOne(named, q.need, q.pairs)) return 2;
    }
    if (q.loose && own.size >= q.least) close ||= [...q.rare].every((f) => own.has(f));
  }
  return close ? 1 : 0;
}

/** The query's rare forms (Ranking.named.rare): in few pages, so they name a thing. */
function rareForms(db: SiteDb, forms: Set<string>, r: Readonly<Ranking>): Set<string> {
  const { pages, share } = r.named.rare;
  const most = Math.max(pages, share * docCount(db));
  // A correction's word as written is among the forms, and in no page's index.
  return new Set([...forms].filter((f) => {
    const n = exactScores(db, f, r).size;
    return n > 0 && n <= most;
  }));
}

/**
 * Whether the last of `named` names `need` query words, alone or with one before it (a
 * heading and a subheading): asked after each, it tells whether any one or two do.
 */
function namesWithOne(named: Set<string>[], need: number, pairs: boolean): boolean {
  const last = named[named.length - 1];
  if (last.size >= need) return true;
  if (!pairs) return false;
  for (let i = 0; i < named.length - 1; i++) {
    // The size of the two together, counted without making them a set.
    let both = last.size;
    for (const f of named[i]) if (!last.has(f) && ++both >= need) return true;
  }
  return false;
}
