/**
 * Every knob of ranking in one table, the way Pagefind documents its ranking options: what
 * each does, its range, and the value we run with. Measured on the judged queries of the
 * shared sets (BENCHMARKS.md, `deno task eval`); change one only with those figures beside it.
 */
import type { Field } from "../store/postings.ts";
import { isChangeRecord } from "../analysis/change_record.ts";

export interface Ranking {
  /**
   * BM25's weight of a match per field (> 0; 1 is the body's). A page whose title holds the
   * word outranks one whose body does: title 3, section headings (with their anchors) 2,
   * description 1.5, body 1.
   */
  fieldWeight: Record<Field, number>;
  /**
   * BM25's term-frequency saturation k1 (0 to ~3): 0 counts a word once however often a
   * page uses it; higher lets repetition count longer.
   */
  k1: number;
  /**
   * BM25's length normalisation b per field (0 to 1): 1 ranks a long field's match as
   * far below a short field's as its length says; 0 ignores length. Full on short fields,
   * gentle on long ones, so a reference page that uses a word a hundred times is not
   * beaten by a short page using it twice (body 0.3 → 0.2 and headings 0.3 → 0.1 each
   * gained on the judged sets).
   */
  b: Record<Field, number>;
  /**
   * Words that only qualify a query (query/accumulate.ts): in `share` of the pages or more
   * (0 to 1) and `ratio` times as many as the query's rarest word (0 turns it off). A page
   * counts them after the words that mean: matching all of them never makes up for one of
   * those.
   */
  qualifier: { ratio: number; share: number };
  /** A prefix's expansions against the word as typed (0 to 1), unless it is being typed. */
  prefixWeight: number;
  /** A corrected word against the word itself (0 to 1): it stands for the word meant. */
  typoWeight: number;
  /** Words a prefix expands to at most (a one-letter prefix would list the vocabulary). */
  maxExpansions: number;
  /**
   * A page found through one of the site's synonyms (lib/levers) against the word typed
   * (0 to 1): nearly as sure, so the typed word's own pages keep a slight edge.
   */
  synonymWeight: number;
  /**
   * A page found through a name the site's own text gives a word (lib/meaning: "Content
   * Delivery Network (CDN)", "also known as") against the word typed (0 to 1): below an
   * owner's synonym, as no person chose it.
   */
  statedWeight: number;
  /** Letters a prefix needs before it is expanded (1 or more). */
  minPrefix: number;
  /** Query words looked at for a correction at most (each costs a scan of its edits). */
  maxTypoWords: number;
  /** Letters of a word that may be corrected: shorter ones have too many neighbours. */
  typoLength: { min: number; max: number };
  /**
   * A correction is kept only when it raises the result set: a page then matches more of the
   * query's words than any did without it, or a page it matches enters the first this many
   * results (1 or more; a first page's worth), or puts a page it matches among the first
   * `correctionTop` (0 to `correctionPage`) where it was not. Else the word is looked up as typed.
   */
  correctionPage: number;
  correctionTop: number;
  /**
   * Share of a page's text in code blocks (0 to 1) from which it counts as a listing, and
   * the weight of a listing beside prose pages that match as many words (0 to 1).
   */
  codeShare: number;
  codePrior: number;
  /**
   * The weight of a page that records changes (release notes, a changelog: analysis/
   * change_record.ts) beside pages that match as many words (0 to 1): it mentions a site's
   * names in passing, and the page that defines one is what a search for it wants.
   */
  changePrior: number;
  /**
   * A section's score: distinct query words in its heading count this many times those in
   * its text (≥ 1), so the section a heading names comes first among a page's sections.
   */
  sectionHeadingWeight: number;
  /**
   * A page the query names (named.ts). By its title: its whole title is words of the query,
   * at least `minTitle` of them for a query of two words or more (a one-word title such as
   * "Templates" names a topic, not the thing asked for; a one-word query names it) and all of the query's words but `slack` (a category word: "module",
   * "setting"); it counts as matching `words` more query words (0 turns it off), so it comes
   * before contents pages that list every word. By its headings, for a query of at most
   * `headingWords` words (a name; a question's words are in many headings and named by none):
   * one heading, or two (a heading and its subheading: "CACHES", "KEY_PREFIX"), made of query
   * words only and naming every one of them; among the first `pool` pages, such a page counts
   * `heading` more. MRR@10 plain / typo on the judged sets, both on: +0.03 to +0.05 on three,
   * the fourth the same.
   * A longer query of two words typed or more (a dotted name's parts are one name) is named by
   * one heading that is its words exactly (a FAQ's question). A query of more than `slack` and
   * at most `looseWords` words, all typed apart, with a rare word (in at most `rare.pages` pages
   * or `rare.share` of them: a thing's name) is named by a heading holding every rare one, all
   * its words but `slack` or the rare ones alone (the others qualify it), and at most `extra`
   * other words ("Invoking the frobctl Program", "FROB_HOST" for "FROB_HOST setting"), where no
   * heading names it exactly. A title names a query only with all of its names ("frob_limit"),
   * never by the words that qualify them ("Configuration parameters"). Section
   * numbers are no words. MRR@10 plain / typo on the judged sets: up to +0.05 on four, the
   * others the same (BENCHMARKS.md).
   */
  named: {
    words: number;
    minTitle: number;
    slack: number;
    heading: number;
    headingWords: number;
    looseWords: number;
    extra: number;
    rare: { pages: number; share: number };
    pool: number;
  };
  /**
   * A long page judged by its best passage (passages.ts): among the first `pool` pages, a page
   * of `minWords` body words or more (0 turns it off) and two sections or more, whose body
   * holds query words that none of its sections holds together, counts one word less, so a
   * page whose one section answers comes first. Words of its title or description, or in
   * `spread` of its sections or more (0 to 1: what the page is about), count as in every
   * section; a query of one word, and a page with a heading that is the query's rarest word
   * alone (a lookup's or an option's own heading), are left as they are. A page's sections'
   * words are read once, off the search path (query/passages.ts). MRR@10 plain / typo on the
   * judged sets: +0.004 to +0.045 on three, the others the same or above.
   */
  passages: { minWords: number; spread: number; pool: number };
}

/**
 * The ranking searches run with unless they say otherwise (`SearchOptions.ranking`). Four
 * knobs shape the index itself, when a page is added or its passages read: `codeShare`,
 * `codePrior`, `changePrior`, `passages.minWords` and `passages.spread`; they are always these. Every other
 * one applies per search.
 */
export const DEFAULT_RANKING: Readonly<Ranking> = deepFreeze({
  fieldWeight: { title: 3, headings: 2, description: 1.5, body: 1 },
  k1: 1.2,
  b: { title: 0.75, description: 0.75, headings: 0.1, body: 0.2 },
  qualifier: { ratio: 10, share: 0.05 },
  prefixWeight: 0.5,
  typoWeight: 0.9,
  synonymWeight: 0.9,
  statedWeight: 0.6,
  maxExpansions: 100,
  minPrefix: 2,
  maxTypoWords: 4,
  typoLength: { min: 4, max: 40 },
  correctionPage: 10,
  correctionTop: 3,
  codeShare: 0.7,
  codePrior: 0.3,
  changePrior: 0.5,
  sectionHeadingWeight: 3,
  named: {
    words: 2,
    minTitle: 2,
    slack: 1,
    heading: 1,
    headingWords: 2,
    looseWords: 4,
    extra: 1,
    rare: { pages: 3, share: 0.005 },
    pool: 30,
  },
  passages: { minWords: 1000, spread: 0.2, pool: 20 },
});

/** `value` and every object in it made read-only: a search cannot change another's knobs. */
function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (typeof v === "object" && v) deepFreeze(v);
  return Object.freeze(value);
}

/** Knobs to change for one search; a nested group's knobs each on their own. */
export type RankingOverrides = {
  [K in keyof Ranking]?: Ranking[K] extends object ? Partial<Ranking[K]> : Ranking[K];
};

/**
 * The default ranking with `overrides` applied: the default itself when there are none, and
 * the default's own groups where none of theirs change (the score cache, bm25.ts, is kept for
 * searches whose BM25 knobs are the default's).
 */
export function rankingWith(overrides?: RankingOverrides): Readonly<Ranking> {
  if (!overrides) return DEFAULT_RANKING;
  const out: Record<string, unknown> = { ...DEFAULT_RANKING };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const base = out[key];
    out[key] = typeof value === "object" && typeof base === "object"
      ? { ...base, ...value }
      : value;
  }
  return out as unknown as Ranking;
}

/**
 * A page's prior: listings come after prose pages that match as well, and so do pages that
 * record changes.
 */
export function priorOf(
  { codeShare = 0, title = "", headings = [] }: {
    codeShare?: number;
    title?: string;
    headings?: readonly string[];
  },
): number {
  const r = DEFAULT_RANKING;
  return (codeShare >= r.codeShare ? r.codePrior : 1) *
    (isChangeRecord(title, headings) ? r.changePrior : 1);
}
