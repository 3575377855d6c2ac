/**
 * One pass of ranking (rank.ts): every query word's BM25 added into per-document arrays
 * reused from search to search (no Map or object per matching page), with the words being
 * typed, corrected or found through synonyms, and what each correction added.
 */
import { docCount, type Scores, type SiteDb } from "../store/site_db.ts";
import { fold, isStopWord, terms, written } from "../analysis/tokens.ts";
import { done, exactScores, NO_SCORES, score, sums } from "./bm25.ts";
import type { Ranking } from "./weights.ts";
import type { Alternatives } from "./expand.ts";
import { completed } from "./complete.ts";

const JOINED = /[_.-]/;
const DOTTED = /[.-]/;

/** A query word replaced by the word pages use. */
export interface Correction {
  from: string;
  to: string;
}

/** A word's indexed forms in the site's languages, each once. */
function formsOf(word: string, langs: string[]): string[] {
  const first = terms(word, langs[0]);
  if (langs.length === 1 && first.length < 2) return first;
  return [...new Set(langs.flatMap((l) => terms(word, l)))];
}

/** A word's prefixes to expand: its forms and itself folded (one letter would list too many). */
const prefixesOf = (forms: string[], word: string, minPrefix: number) =>
  new Set([...forms, fold(word)].filter((p) => p.length >= minPrefix));

/** Per-document sums of a pass, indexed by internal id. */
export interface Scratch {
  score: Float64Array;
  words: Uint16Array;
  /** The documents with a score, in the order they got one: the first `count`. */
  touched: Uint32Array;
  count: number;
  /** Makes room for ids up to `id`. */
  grow(id: number): void;
}

const made: Scratch = {
  score: new Float64Array(1024),
  words: new Uint16Array(1024),
  touched: new Uint32Array(1024),
  count: 0,
  grow(id: number) {
    if (id < made.words.length) return;
    const size = Math.max(id + 1, made.words.length * 2);
    const score = new Float64Array(size), words = new Uint16Array(size);
    const touched = new Uint32Array(size);
    score.set(made.score);
    words.set(made.words);
    touched.set(made.touched);
    [made.score, made.words, made.touched] = [score, words, touched];
  },
};

/**
 * The zeroed per-document arrays of every site's passes: ranking is synchronous, so one set
 * serves the process (as large as the largest site's ids).
 */
export const scratch = (): Scratch => made;

/**
 * Scores one query may read, over all its words, their forms and their synonyms' phrases: past
 * this it ranks what it has. Two hundred thousand is every word of a 12-word query on a site
 * of 16,000 pages that all hold them, and takes about 10 ms; no query of the sets we measure
 * comes near it, while a long query of common words, or a synonym list built to multiply
 * phrases, would otherwise read millions.
 */
export const MAX_POSTINGS = 200_000;

/** What a score joined in a map (a synonym's phrases and the words they stand for) costs beside one added to the arrays. */
const PHRASE_COST = 8;

/**
 * A query word to look up; `fix` names the correction it came from; `at`: its query word;
 * `part`: one of the parts of a dotted name.
 */
interface Unit {
  word: string;
  last: boolean;
  fix?: number;
  at: number;
  part?: boolean;
}

/** Leaves the arrays zeroed for the next query. */
export function clear(acc: Scratch) {
  const { score, words, touched } = acc;
  for (let i = 0; i < acc.count; i++) score[touched[i]] = words[touched[i]] = 0;
  acc.count = 0;
}

/** One pass's query: its words, and how each is looked up. */
export interface Pass {
  query: string[];
  /** Whether the last word is still being typed (it matches as a prefix too). */
  typing: boolean;
  langs: string[];
  /** A word's correction, or null where none is wanted. */
  fixOf: (word: string) => string | null;
  /** Other phrases for spans of the query (synonyms, names the site states). */
  spans: Alternatives[];
  ranking: Readonly<Ranking>;
}

/** Adds every query word's scores into `acc`; returns what it matched and corrected. */
export function accumulate(db: SiteDb, acc: Scratch, pass: Pass) {
  const { query, typing, langs, fixOf, spans, ranking: r } = pass;
  const corrections: Correction[] = [];
  /** Per correction: the scores added through it (one word's each). */
  const fixed: Scores[][] = [];
  const matched: string[] = [];
  const fix = (from: string, to: string) => {
    corrections.push({ from, to });
    fixed.push([]);
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
        part: parts.length > 1,
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
    const found = sums();
    if (forms.length === 1) {
      hits = exactScores(db, forms[0], r);
      if (hits.size) matched.push(forms[0]);
    } else {
      score(db, forms, false, found, matched, r);
      hits = found.take();
    }
    if (hits.size === 0 && last && typing) {
      score(db, prefixesOf(forms, word, r.minPrefix), true, found, matched, r);
      // A word whose forms are shorter than what is typed ("shipp": "ship", of "shipping").
      if (!found.size) {
        const whole = completed(db, word, { langs, minPrefix: r.minPrefix });
        score(db, whole, false, found, matched, r);
      }
      hits = found.take();
    }
    if (hits.size === 0 && !db.vocab.has(written(word))) {
      const fixedWord = fixOf(word);
      if (fixedWord) {
        score(db, formsOf(fixedWord, langs), false, found, matched, r);
        matched.push(fixedWord);
        if (found.size && loose) by = fix(word, fixedWord);
        hits = found.take(r.typoWeight);
      }
    }
    if (hits.size === 0 && loose) {
      score(db, prefixesOf(forms, word, r.minPrefix), true, found, matched, r);
      hits = found.take(r.prefixWeight);
    }
    done(found);
    return { hits, by };
  };

  /** Scores read so far (MAX_POSTINGS). */
  let spent = 0;
  const spend = (hits: Scores, cost = 1) => {
    spent += hits.size * cost;
    return hits;
  };
  const spentAll = () => spent >= MAX_POSTINGS;

  /** Documents holding every word of a synonym's phrase, with the sum of its words' scores. */
  const phraseHits = (phrase: string[]): Map<number, number> => {
    let out: Map<number, number> | null = null;
    for (const w of phrase) {
      if (langs.every((l) => isStopWord(w, l))) continue;
      if (spentAll()) return new Map();
      const hits = spend(hitsOf({ word: w, last: false, at: -1 }, false).hits, PHRASE_COST);
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
  clear(acc);
  // Ids are below the slots given so far: no word's scores need the arrays to grow.
  acc.grow(db.index.slots);
  /** Adds one word's scores (`by`: the correction it came from, which keeps them). */
  const addHits = (hits: Scores, by: number | undefined, n: number) => {
    const { score, words, touched } = acc, { size, ids, values } = hits;
    if (by !== undefined) fixed[by]?.push(hits);
    for (let i = 0; i < size; i++) {
      const id = ids[i];
      if (words[id] === 0) touched[acc.count++] = id;
      score[id] += values[i];
      words[id] += n;
    }
  };
  const add = (id: number, s: number, n: number) => {
    acc.grow(id);
    if (acc.words[id] === 0) acc.touched[acc.count++] = id;
    acc.score[id] += s;
    acc.words[id] += n;
  };
  let counted = 0;
  const qualifying = qualifiers(db, units, langs, r);
  // A word that means counts `unit`, one that qualifies 1: however many of these a page
  // matches, they never make up for a word that means.
  const unit = qualifying.size + 1;
  try {
    for (let u = 0; u < units.length && !spentAll();) {
      const span = spans.find((x) => x.from === units[u].at);
      // Pages a synonym of the words from here finds, each with its best phrase's score.
      const viaPhrases = new Map<number, number>();
      const weight = span?.weight ?? r.synonymWeight;
      for (const phrase of span?.phrases ?? []) {
        if (spentAll()) break;
        // A phrase weighs as much as the words it stands for, however many words it has.
        const per = weight * Math.min(1, (span!.to - span!.from) / phrase.length);
        for (const [id, sc] of phraseHits(phrase)) {
          const v = sc * per;
          if ((viaPhrases.get(id) ?? -1) < v) viaPhrases.set(id, v);
        }
      }
      if (!span || !viaPhrases.size) {
        const { hits, by } = hitsOf(units[u], true);
        spend(hits);
        if (hits.size === 0) { // a stop word, or a word no page has
          u++;
          continue;
        }
        counted++;
        addHits(hits, by, qualifying.has(u++) ? 1 : unit);
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
        const hits = spend(hitsOf(unit, true).hits, PHRASE_COST);
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
      for (const [id, [sc, k]] of best) add(id, sc, k * unit);
    }
  } catch (e) {
    clear(acc);
    throw e;
  }
  // Where some words only qualify, the forms of those that mean (named.ts: a title must hold them).
  const means = qualifying.size
    ? units.flatMap((u, i) => qualifying.has(i) ? [] : formsOf(u.word, langs))
    : [];
  const qualifies = [...qualifying].map((i) => units[i].word);
  return { counted, corrections, fixed, matched, units: units.length, unit, means, qualifies };
}

/**
 * The units of a query that only qualify it (Ranking.qualifier): a word as typed in many of
 * the pages and in many times as many as the query's rarest word ("configuration parameter"
 * in "frob_limit configuration parameter", "command line option" beside "--dry-run"). The
 * rarest words carry a query's meaning: a page that names them comes before one that only
 * adds qualifiers, which order pages that match as many of the rest. A name's parts and a
 * word no page has as typed always mean.
 */
function qualifiers(db: SiteDb, units: Unit[], langs: string[], r: Readonly<Ranking>): Set<number> {
  const { ratio, share } = r.qualifier;
  const out = new Set<number>();
  if (!ratio || units.length < 2) return out;
  const pages = units.map((u) =>
    u.part || u.fix !== undefined
      ? 0
      : Math.max(0, ...formsOf(u.word, langs).map((f) => exactScores(db, f, r).size))
  );
  const found = pages.filter((n) => n > 0);
  if (found.length < 2) return out;
  const common = Math.max(share * docCount(db), Math.min(...found) * ratio);
  pages.forEach((n, i) => {
    if (n >= common) out.add(i);
  });
  return out;
}
