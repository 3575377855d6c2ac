/**
 * Ranking for site search: BM25 per field (bm25.ts, weighted by weights.ts). Complete
 * words match exactly; the word being typed (the last one) also as a prefix; a word no page
 * uses is corrected to its most used neighbour one edit away (analysis/typos.ts), an
 * identifier as a whole, and the correction is kept only when it lets some page match
 * more of the query than any page did without it. Documents that contain more of the
 * query's words (pages it names count more: named.ts) rank first, BM25 orders the rest;
 * owner's synonyms and names the site states (stated.ts) find words as other phrases.
 */
import type { SiteDb } from "../store/site_db.ts";
import { fold, isStopWord, terms, words, written } from "../analysis/tokens.ts";
import { correct } from "../analysis/typos.ts";
import { exactScores, NO_SCORES, score, toScores, weighted } from "./bm25.ts";
import { RANKING } from "./weights.ts";
import type { Alternatives, Expand } from "./expand.ts";
import { mineStated, statedEquivalences, statedSpans } from "./stated.ts";
import { nameBonus } from "./named.ts";
import { headingBonusOver } from "./heading_pool.ts";
import { formGroups, passageFit, readPassages } from "./passages.ts";
import { topK } from "./top_k.ts";
import { completed } from "./complete.ts";

export { type Alternatives, type Expand, statedEquivalences, topK };

/** What a site's searches use that is read off their path after each change, a step at a time. */
export function* prepareIndex(db: SiteDb): Generator<void> {
  yield* mineStated(db);
  yield* readPassages(db);
}

const JOINED = /[_.-]/;
const DOTTED = /[.-]/;

export interface Correction {
  from: string;
  to: string;
}

export interface Ranked {
  /** Internal document ids, best first: the first `limit` of them. */
  ids: number[];
  /** How many documents match. */
  found: number;
  /** Query words replaced by the word pages use. */
  corrections: Correction[];
  /** Every form that matched (indexed forms and words as written), for highlighting. */
  matched: string[];
  /** The query's words as searched for (stop words left out unless all are), lowercased. */
  words: string[];
}

/** The languages a query is read in: those of the site's pages, most used first. */
function languages(db: SiteDb): string[] {
  const langs = [...db.langs.entries()].sort((a, b) => b[1] - a[1]).map(([l]) => l);
  return langs.length ? langs : ["en"];
}

const formsOf = (word: string, langs: string[]) => new Set(langs.flatMap((l) => terms(word, l)));

interface Scratch {
  score: Float64Array;
  words: Uint16Array;
  grow(id: number): void;
}

const scratches = new WeakMap<SiteDb, Scratch>();

/** A site's zeroed per-document arrays (ranking is synchronous, so one set serves all). */
function scratch(db: SiteDb): Scratch {
  let s = scratches.get(db);
  if (!s) {
    const made: Scratch = {
      score: new Float64Array(1024),
      words: new Uint16Array(1024),
      grow(id: number) {
        if (id < made.words.length) return;
        const size = Math.max(id + 1, made.words.length * 2);
        const score = new Float64Array(size), words = new Uint16Array(size);
        score.set(made.score);
        words.set(made.words);
        [made.score, made.words] = [score, words];
      },
    };
    scratches.set(db, s = made);
  }
  return s;
}

/** The words of a query that are searched for: stop words only when nothing else is left. */
function queryWords(q: string, langs: string[]): string[] {
  const raw = [...words(q, langs[0])];
  const kept = raw.filter((w) => !langs.every((l) => isStopWord(w, l)));
  return [...new Set((kept.length ? kept : raw).map((w) => w.toLowerCase()))];
}

/** A query word to look up; `fix` names the correction it came from; `at`: its query word. */
interface Unit {
  word: string;
  last: boolean;
  fix?: number;
  at: number;
}

/** Ranks every document that matches a query word (the first `limit` sorted), with synonyms. */
export function rank(db: SiteDb, q: string, limit = Infinity, expand?: Expand): Ranked {
  const langs = languages(db);
  const typing = !/\s$/.test(q);
  const query = queryWords(q, langs);
  // Corrections are looked for once per word, whatever the passes.
  const fixes = new Map<string, string | null>();
  const fixOf = (w: string) => {
    if (!fixes.has(w)) {
      fixes.set(
        w,
        fixes.size < RANKING.maxTypoWords ? correct(db, w, langs, RANKING.typoLength) : null,
      );
    }
    return fixes.get(w)!;
  };
  const acc = scratch(db);
  const refused = new Set<string>();
  const spans = [...(expand?.(query, (w) => db.vocab.has(written(w))) ?? [])];
  // What the site's own pages say a word means, where the owner's synonyms say nothing.
  for (const s of statedSpans(db, query)) {
    if (!spans.some((o) => s.from < o.to && o.from < s.to)) spans.push(s);
  }
  for (;;) {
    const pass = accumulate(
      db,
      query,
      typing,
      langs,
      acc,
      (w) => refused.has(w) ? null : fixOf(w),
      spans,
    );
    // A correction that does not raise the result set was not needed: the query is ranked
    // again without it.
    let needless: Correction[];
    try {
      needless = pass.corrections.filter((_, i) => !raises(acc, pass.touched, pass.fixed[i]));
    } catch (e) {
      clear(acc, pass.touched);
      throw e;
    }
    if (needless.length) {
      clear(acc, pass.touched);
      for (const c of needless) refused.add(c.from);
      continue;
    }
    let ids: number[];
    try {
      for (const [id, p] of db.prior) {
        if (id < acc.words.length && acc.words[id]) acc.score[id] *= p;
      }
      nameBonus(db, new Set(pass.matched), acc.words, pass.counted);
      // The first pages are ranked again by their best passage and the words headings name.
      const { pool } = RANKING.passages, named = Math.max(limit, RANKING.named.pool);
      ids = topK(pass.touched, Math.min(Math.max(pool, named), pass.touched.length), acc);
      passageFit(db, ids.slice(0, pool), formGroups(query, langs, pass.corrections), acc.words);
      ids = topK(ids, Math.min(named, ids.length), acc);
      headingBonusOver(
        db,
        ids,
        new Set(pass.matched),
        acc.words,
        langs[0],
        pass.units,
        query.length,
      );
      ids = topK(ids, Math.min(limit, ids.length), acc);
    } finally {
      clear(acc, pass.touched);
    }
    return {
      ids,
      found: pass.touched.length,
      corrections: pass.counted > 0 ? pass.corrections : [],
      matched: [...new Set(pass.matched)],
      words: query,
    };
  }
}

/** Leaves the arrays zeroed for the next query. */
function clear(acc: Scratch, touched: number[]) {
  for (const id of touched) {
    acc.score[id] = 0;
    acc.words[id] = 0;
  }
}

/** What a correction added to one page: its words matched, and their score. */
interface Share {
  words: number;
  score: number;
}

/**
 * Whether a correction raises the result set: some page matches more of the query's words
 * with it than the best page does without it, it brings pages onto the first page that would
 * not be there without it, or a page it matched among the very first (`fixed`: what it added
 * to each page it matched).
 */
function raises(acc: Scratch, touched: number[], fixed: Map<number, Share>): boolean {
  let withIt = 0, without = 0;
  for (const id of touched) {
    const n = acc.words[id];
    if (n > withIt) withIt = n;
    const rest = n - (fixed.get(id)?.words ?? 0);
    if (rest > without) without = rest;
  }
  if (withIt > without) return true;
  // The first page with it, against what each of its pages would weigh without it.
  const page = RANKING.correctionPage;
  const first = topK([...touched], Math.min(page, touched.length), acc);
  if (!first.some((id) => fixed.has(id))) return false;
  // Holey arrays indexed by id: only the pages matched without it.
  const rest = { score: [] as number[], words: [] as number[] };
  const ids: number[] = [];
  for (const id of touched) {
    const share = fixed.get(id);
    const words = acc.words[id] - (share?.words ?? 0);
    if (words === 0) continue;
    ids.push(id);
    rest.words[id] = words;
    rest.score[id] = acc.score[id] - (share?.score ?? 0);
  }
  const before = topK(ids, Math.min(page, ids.length), rest);
  const shown = new Set(before), top = new Set(before.slice(0, RANKING.correctionTop));
  return first.some((id, i) =>
    !shown.has(id) || (i < RANKING.correctionTop && fixed.has(id) && !top.has(id))
  );
}

/** Adds every query word's scores into `acc`; returns what it matched and corrected. */
function accumulate(
  db: SiteDb,
  query: string[],
  typing: boolean,
  langs: string[],
  acc: Scratch,
  fixOf: (word: string) => string | null,
  spans: Alternatives[],
) {
  const corrections: Correction[] = [];
  /** Per correction: page → what it added there. */
  const fixed: Map<number, Share>[] = [];
  const matched: string[] = [];
  const fix = (from: string, to: string) => {
    corrections.push({ from, to });
    fixed.push(new Map());
    return corrections.length - 1;
  };

  // An identifier no page has as written (get_objcet_or_404) is corrected whole, then split.
  const units: Unit[] = [];
  query.forEach((word, i) => {
    let w = word, from: number | undefined;
    if (JOINED.test(w) && !db.vocab.has(written(w))) {
      const fixedWord = fixOf(w);
      if (fixedWord) [w, from] = [fixedWord, fix(word, fixedWord)];
    }
    const parts = DOTTED.test(w) ? w.split(DOTTED).filter(Boolean) : [w];
    parts.forEach((p, j) =>
      units.push({
        word: p,
        last: i === query.length - 1 && j === parts.length - 1,
        fix: from,
        at: i,
      })
    );
  });

  /** One word's scores (as typed, as being typed, corrected, or as a prefix) and its fix. */
  const hitsOf = (unit: Unit, loose: boolean) => {
    const { word, last } = unit;
    let by = unit.fix;
    const forms = formsOf(word, langs);
    // One form (the usual case): its scores as they are, without a copy.
    let hits = NO_SCORES;
    if (forms.size === 1) {
      const [form] = forms;
      hits = exactScores(db, form);
      if (hits.size) matched.push(form);
    } else {
      const all = new Map<number, number>();
      matched.push(...score(db, forms, false, all));
      hits = toScores(all);
    }
    // Prefixes of one letter would list a good part of the vocabulary: not expanded.
    const prefixes = new Set([...forms, fold(word)].filter((p) => p.length >= RANKING.minPrefix));
    if (hits.size === 0 && last && typing) {
      const all = new Map<number, number>();
      matched.push(...score(db, prefixes, true, all));
      // A word whose forms are shorter than what is typed ("shipp": "ship", of "shipping").
      if (!all.size) matched.push(...score(db, completed(db, word, langs), false, all));
      hits = toScores(all);
    }
    if (hits.size === 0 && !db.vocab.has(written(word))) {
      const fixedWord = fixOf(word);
      if (fixedWord) {
        const partial = new Map<number, number>();
        matched.push(...score(db, formsOf(fixedWord, langs), false, partial), fixedWord);
        hits = toScores(weighted(partial, RANKING.typoWeight));
        if (partial.size && loose) by = fix(word, fixedWord);
      }
    }
    if (hits.size === 0 && loose) {
      const partial = new Map<number, number>();
      matched.push(...score(db, prefixes, true, partial));
      hits = toScores(weighted(partial, RANKING.prefixWeight));
    }
    return { hits, by };
  };

  /** Documents holding every word of a synonym's phrase, with the sum of its words' scores. */
  const phraseHits = (phrase: string[]): Map<number, number> => {
    let out: Map<number, number> | null = null;
    for (const w of phrase) {
      if (langs.every((l) => isStopWord(w, l))) continue;
      const { hits } = hitsOf({ word: w, last: false, at: -1 }, false);
      const next = new Map<number, number>();
      for (let i = 0; i < hits.size; i++) {
        const id = hits.ids[i], prev: number | undefined = out ? out.get(id) : 0;
        if (prev !== undefined) next.set(id, prev + hits.values[i]);
      }
      out = next;
      if (!out.size) break;
    }
    return out ?? new Map();
  };

  // Per-document sums in arrays indexed by internal id (no object per matching page).
  const touched: number[] = [];
  const add = (id: number, s: number, n: number, by?: number) => {
    acc.grow(id);
    if (acc.words[id] === 0) touched.push(id);
    acc.score[id] += s;
    acc.words[id] += n;
    const mine = by === undefined ? undefined : fixed[by];
    if (mine) {
      const share = mine.get(id) ?? { words: 0, score: 0 };
      share.words += n;
      share.score += s;
      mine.set(id, share);
    }
  };
  let counted = 0;
  try {
    for (let u = 0; u < units.length;) {
      const span = spans.find((x) => x.from === units[u].at);
      // Pages a synonym of the words from here finds, each with its best phrase's score.
      const viaPhrases = new Map<number, number>();
      const weight = span?.weight ?? RANKING.synonymWeight;
      for (const phrase of span?.phrases ?? []) {
        // A phrase weighs as much as the words it stands for, however many words it has.
        const per = weight * Math.min(1, (span!.to - span!.from) / phrase.length);
        for (const [id, sc] of phraseHits(phrase)) {
          const v = sc * per;
          if ((viaPhrases.get(id) ?? -1) < v) viaPhrases.set(id, v);
        }
      }
      if (!span || !viaPhrases.size) {
        const { hits, by } = hitsOf(units[u++], true);
        if (hits.size === 0) continue; // a stop word, or a word no page has
        counted++;
        for (let i = 0; i < hits.size; i++) add(hits.ids[i], hits.values[i], 1, by);
        continue;
      }
      // Words a synonym stands for: a page counts them all when found through any one phrase.
      let end = u;
      while (end < units.length && units[end].at < span.to) end++;
      const group = units.slice(u, end), n = group.length;
      u = end;
      const best = new Map<number, [number, number]>();
      const mark = corrections.length;
      for (const unit of group) {
        const { hits } = hitsOf(unit, true);
        for (let i = 0; i < hits.size; i++) {
          const have = best.get(hits.ids[i]) ?? [0, 0];
          best.set(hits.ids[i], [have[0] + hits.values[i], have[1] + 1]);
        }
      }
      // The words typed are not "corrected" when a synonym of them found pages.
      corrections.length = mark;
      fixed.length = mark;
      for (const [id, v] of viaPhrases) {
        const have = best.get(id);
        if (!have || have[1] < n || have[0] < v) best.set(id, [v, n]);
      }
      counted++;
      for (const [id, [sc, k]] of best) add(id, sc, k);
    }
  } catch (e) {
    clear(acc, touched);
    throw e;
  }
  return { touched, counted, corrections, fixed, matched, units: units.length };
}
