/**
 * Ranking for site search: BM25 per field (bm25.ts, weighted by weights.ts). Complete
 * words match exactly; the word being typed (the last one) also as a prefix; a word no page
 * uses is corrected to its most used neighbour one edit away (analysis/typos.ts), an
 * identifier as a whole, and the correction is kept only when it lets some page match
 * more of the query than any page did without it. Documents that contain more of the
 * query's words (pages it names count more: named.ts) rank first, BM25 orders the rest;
 * owner's synonyms and names the site states (stated.ts) find words as other phrases.
 */
import type { Scores, SiteDb } from "../store/site_db.ts";
import { isStopWord, terms, words, written } from "../analysis/tokens.ts";
import { correct } from "../analysis/typos.ts";
import { DEFAULT_RANKING, type Ranking } from "./weights.ts";
import { boundSpans, type Expand } from "./expand.ts";
import { mineStated, statedSpans } from "./stated.ts";
import { headingBonus, nameBonus } from "./named.ts";
import { formGroups, passageFit, readPassages } from "./passages.ts";
import { topK } from "./top_k.ts";
import { prepareOrder } from "../store/word_order.ts";
import { accumulate, clear, type Correction, type Scratch, scratch } from "./accumulate.ts";
import { readHeadingsAhead } from "./heading_words.ts";

/** What a site's searches use that is read off their path after each change, a step at a time. */
export function* prepareIndex(db: SiteDb): Generator<void> {
  db.vocab.prepareFilter();
  yield* prepareOrder(db.vocab);
  yield* mineStated(db);
  yield* readPassages(db);
}

/** What a site's first searches read of each page, read ahead while none come (heading lines). */
export function readAhead(db: SiteDb): Generator<void> {
  return readHeadingsAhead(db, languages(db)[0]);
}

export interface Ranked {
  /** Internal document ids, best first: the first `limit` of them. */
  ids: number[];
  /** How many documents match. */
  found: number;
  /** Every matching document (`RankOptions.matches`), before `only`, in no order. */
  matches?: Uint32Array;
  /** Query words replaced by the word pages use. */
  corrections: Correction[];
  /** Every form that matched (indexed forms and words as written), for highlighting. */
  matched: string[];
  /** The query's words as searched for (stop words left out unless all are), lowercased. */
  words: string[];
  /** Those of `words` that only qualify the query (Ranking.qualifier). */
  qualifiers: string[];
}

/** The languages a query is read in: those of the site's pages, most used first. */
function languages(db: SiteDb): string[] {
  const langs = [...db.langs.entries()].sort((a, b) => b[1] - a[1]).map(([l]) => l);
  return langs.length ? langs : ["en"];
}

/** The words of a query that are searched for: stop words only when nothing else is left. */
function queryWords(q: string, langs: string[]): string[] {
  const raw = [...words(q, langs[0])];
  const kept = raw.filter((w) => !langs.every((l) => isStopWord(w, l)));
  return [...new Set((kept.length ? kept : raw).map((w) => w.toLowerCase()))];
}

/** How many pages a ranking sorts, what it is narrowed to, and what it returns besides them. */
export interface RankOptions {
  /** Pages sorted, best first (the rest are counted): all by default. */
  limit?: number;
  /** Other phrases for the query's words (the owner's synonyms, lib/levers). */
  expand?: Expand;
  /** Knobs of ranking (DEFAULT_RANKING when left out). */
  ranking?: Readonly<Ranking>;
  /** Only documents it keeps are ranked and counted (the visitor's filters). */
  only?: (id: number) => boolean;
  /** Return every match too (facets count them): the first pages are ranked as without. */
  matches?: boolean;
}

/**
 * Ranks the documents that match a query word (the first `limit` sorted), with synonyms. The
 * first pages are the same whatever else is asked: facets and filters never rank more.
 */
export function rank(db: SiteDb, q: string, o: RankOptions = {}): Ranked {
  const { limit = Infinity, expand, ranking: r = DEFAULT_RANKING } = o;
  const langs = languages(db);
  const typing = !/\s$/.test(q);
  const query = queryWords(q, langs);
  // Corrections are looked for once per word, whatever the passes.
  const fixes = new Map<string, string | null>();
  const fixOf = (w: string) => {
    if (!fixes.has(w)) {
      fixes.set(
        w,
        fixes.size < r.maxTypoWords ? correct(db, w, langs, r.typoLength) : null,
      );
    }
    return fixes.get(w)!;
  };
  const acc = scratch();
  const refused = new Set<string>();
  const found = [...(expand?.(query, (w) => db.vocab.has(written(w))) ?? [])];
  // What the site's own pages say a word means, where the owner's synonyms say nothing.
  for (const s of statedSpans(db, query, r.statedWeight)) {
    if (!found.some((o) => s.from < o.to && o.from < s.to)) found.push(s);
  }
  const spans = boundSpans(found);
  for (;;) {
    const pass = accumulate(db, acc, {
      query,
      typing,
      langs,
      fixOf: (w) => refused.has(w) ? null : fixOf(w),
      spans,
      ranking: r,
    });
    // A correction that does not raise the result set was not needed: the query is ranked
    // again without it.
    let needless: Correction[];
    try {
      needless = pass.corrections.filter((_, i) => !raises(acc, pass.fixed[i], pass.unit, r));
    } catch (e) {
      clear(acc);
      throw e;
    }
    if (needless.length) {
      clear(acc);
      for (const c of needless) refused.add(c.from);
      continue;
    }
    let ids: number[];
    const forms = new Set(pass.matched);
    let found = acc.count;
    // A copy of the typed array: a JS array of every match cost a search ~15 KB of heap.
    const matches = o.matches ? acc.touched.slice(0, found) : undefined;
    try {
      // Through the pages with a prior or the pages found, whichever are fewer (forEach: no
      // entry array per page, as for…of over a Map makes).
      if (db.prior.size <= found) {
        db.prior.forEach((p, id) => {
          if (id < acc.words.length && acc.words[id]) acc.score[id] *= p;
        });
      } else {
        for (let i = 0; i < found; i++) {
          const id = acc.touched[i], p = db.prior.get(id);
          if (p !== undefined) acc.score[id] *= p;
        }
      }
      nameBonus(db, acc.words, {
        forms,
        queryWords: pass.counted,
        names: nameForms(query, forms, langs[0], pass.means),
        unit: pass.unit,
        ranking: r,
      });
      // The matches in play: every one, or those the filters keep.
      const passing = o.only && kept(acc.touched, found, o.only);
      const touched = passing || acc.touched;
      if (passing) found = passing.length;
      // The first pages are ranked again by their best passage and the words headings name.
      const { pool } = r.passages, named = Math.max(limit, r.named.pool);
      ids = topK(touched, Math.min(Math.max(pool, named), found), acc, found);
      passageFit(
        db,
        ids.slice(0, pool),
        formGroups(query, langs, pass.corrections),
        acc.words,
        pass.unit,
      );
      ids = topK(ids, Math.min(named, ids.length), acc);
      headingBonus(db, ids, acc.words, {
        forms,
        lang: langs[0],
        queryWords: pass.units,
        typed: query.length,
        unit: pass.unit,
        ranking: r,
      });
      ids = topK(ids, Math.min(limit, ids.length), acc);
    } finally {
      clear(acc);
    }
    return {
      ids,
      found,
      ...(matches ? { matches } : {}),
      corrections: pass.counted > 0 ? pass.corrections : [],
      matched: [...forms],
      words: query,
      qualifiers: pass.qualifies,
    };
  }
}

/** A word written as a name: parts joined by "_", "." or "-" ("frob_limit", "acme.tools"). */
const NAME = /[\p{L}\p{N}][_.-][\p{L}\p{N}]/u;

/**
 * The matched forms of the query's names, each part of a dotted one, and of the words that
 * mean where others only qualify (`means`): what a title must hold to name the query.
 */
function nameForms(
  query: string[],
  matched: Set<string>,
  lang: string,
  means: string[],
): Set<string> {
  const out = new Set(means.filter((f) => matched.has(f)));
  for (const w of query) {
    if (!NAME.test(w)) continue;
    const parts = /[.-]/.test(w) ? w.split(/[.-]/).filter(Boolean) : [w];
    for (const p of parts) for (const f of terms(p, lang)) if (matched.has(f)) out.add(f);
  }
  return out;
}

/** The first `n` of `ids` that `only` keeps. */
function kept(ids: Uint32Array, n: number, only: (id: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (only(ids[i])) out.push(ids[i]);
  return out;
}

/** What a correction added to each page (words, score), and each page's weight without it. */
let shares = {
  words: new Uint16Array(0),
  score: new Float64Array(0),
  restWords: new Uint16Array(0),
  restScore: new Float64Array(0),
};

/**
 * Whether a correction raises the result set: some page matches more of the query's words
 * with it than the best page does without it, it brings pages onto the first page that would
 * not be there without it, or a page it matched among the very first (`fixed`: the scores
 * added through it, one word's each).
 */
function raises(acc: Scratch, fixed: Scores[], unit: number, r: Readonly<Ranking>): boolean {
  const size = acc.words.length;
  if (shares.words.length < size) {
    shares = {
      words: new Uint16Array(size),
      score: new Float64Array(size),
      restWords: new Uint16Array(size),
      restScore: new Float64Array(size),
    };
  }
  const { words: share, score: shareScore, restWords, restScore } = shares;
  for (const { size, ids, values } of fixed) {
    for (let i = 0; i < size; i++) share[ids[i]] += unit, shareScore[ids[i]] += values[i];
  }
  try {
    let withIt = 0, without = 0;
    const touched = acc.touched.subarray(0, acc.count);
    for (const id of touched) {
      const n = acc.words[id];
      if (n > withIt) withIt = n;
      if (n - share[id] > without) without = n - share[id];
    }
    if (withIt > without) return true;
    // The first page with it, against what each of its pages would weigh without it.
    const page = r.correctionPage;
    const first = topK(touched, Math.min(page, touched.length), acc);
    if (!first.some((id) => share[id] > 0)) return false;
    // Only the pages matched without it.
    const ids: number[] = [];
    for (const id of touched) {
      const words = acc.words[id] - share[id];
      if (words === 0) continue;
      ids.push(id);
      restWords[id] = words;
      restScore[id] = acc.score[id] - shareScore[id];
    }
    const before = topK(ids, Math.min(page, ids.length), { words: restWords, score: restScore });
    const shown = new Set(before), top = new Set(before.slice(0, r.correctionTop));
    return first.some((id, i) =>
      !shown.has(id) || (i < r.correctionTop && share[id] > 0 && !top.has(id))
    );
  } finally {
    for (const { size, ids } of fixed) {
      for (let i = 0; i < size; i++) share[ids[i]] = shareScore[ids[i]] = 0;
    }
  }
}
