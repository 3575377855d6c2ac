/**
 * Ranking for site search, on top of Orama's per-property BM25 index:
 * complete words match exactly, the word being typed (the last one) also as a
 * prefix, and a word that matches nothing is retried with one typo. Documents
 * that contain more of the query's words rank first, BM25 orders the rest.
 *
 * Orama's own `search` either prefix-expands every word (noisy: "form" scores
 * "formset" like "form") or, with `exact`, filters on case-sensitive raw text,
 * so this calls its index component per word instead (Orama is pinned, see deno.json).
 */
import { docCount, indexData, PROPS, type SiteDb } from "./site_db.ts";

/** Title weighs most, then section headings, then description, then body. */
export const BOOST: Record<string, number> = { title: 3, headings: 2, description: 1.5, body: 1 };
/** Orama's BM25 parameters and formula, applied to the compact frequencies. */
const K = 1.2, B = 0.75, D = 0.5;
/** Orama's English splitter: `_`, `'` and `-` stay inside a token (get_object_or_404). */
const SPLIT = /[^A-Za-zàèéìòóù0-9_'-]+/;
/** Prefix expansions and typo corrections count for less than the word as typed. */
const PREFIX_WEIGHT = 0.5;
const TYPO_WEIGHT = 0.7;

interface Scored {
  score: number;
  words: number;
}

export interface Ranked {
  /** Internal document ids, best first. */
  ids: number[];
  /** Words of the pages that stood in for a mistyped query word (for highlighting). */
  corrections: string[];
}

const tokenize = (db: SiteDb, text: string) =>
  db.orama.tokenizer.tokenize(text, "english") as string[];

/** BM25 of every document holding one of `tokens` (exactly, as a prefix, or within `tolerance`). */
function scoreTokens(db: SiteDb, tokens: string[], exact: boolean, tolerance: number) {
  const data = indexData(db);
  const n = docCount(db);
  const out = new Map<number, number>();
  for (const token of tokens) {
    for (const prop of PROPS) {
      const found = data.indexes[prop].node.find({ term: token, exact, tolerance });
      const avg = data.avgFieldLength[prop];
      const lengths = data.fieldLengths[prop];
      for (const w in found) {
        const matching = data.tokenOccurrences[prop][w] ?? 0;
        const idf = Math.log(1 + (n - matching + 0.5) / (matching + 0.5));
        for (const id of found[w]) {
          const tf = db.tf.get(prop, id, w);
          const bm25 = (idf * (D + tf * (K + 1))) / (tf + K * (1 - B + (B * lengths[id]) / avg));
          out.set(id, (out.get(id) ?? 0) + bm25 * BOOST[prop]);
        }
      }
    }
  }
  return out;
}

const scoreWord = (db: SiteDb, word: string, exact: boolean, tolerance: number) =>
  scoreTokens(db, tokenize(db, word), exact, tolerance);

/**
 * Words one typo away from `word` that pages use, looked up in the small title and
 * description vocabularies first; the body's is large and slow to search fuzzily.
 */
function corrections(db: SiteDb, word: string): string[] {
  const token = tokenize(db, word)[0];
  if (!token) return [];
  const trees = indexData(db);
  for (const props of [["title", "description", "headings"], ["body"]]) {
    const found = new Set<string>();
    for (const p of props) {
      for (
        const w of Object.keys(
          trees.indexes[p].node.find({ term: token, exact: false, tolerance: 1 }),
        )
      ) {
        found.add(w);
      }
    }
    if (found.size) return [...found].slice(0, 5);
  }
  return [];
}

/** Ranks every document that matches any word of the query. */
export function rank(db: SiteDb, q: string): Ranked {
  // A compound no page has as one token (TEMPLATES-OPTIONS) is searched as its parts.
  const words = [
    ...new Set(
      q.toLowerCase().split(SPLIT).filter(Boolean).flatMap((w) =>
        /[_'-]/.test(w) && scoreWord(db, w, true, 0).size === 0
          ? w.split(/[_'-]+/).filter(Boolean)
          : [w]
      ),
    ),
  ];
  const typing = !/\s$/.test(q);
  const acc = new Map<number, Scored>();
  const fixes: string[] = [];
  let counted = 0;
  words.forEach((word, i) => {
    const last = i === words.length - 1;
    const hits = new Map<number, number>();
    const add = (list: Map<number, number>, weight: number) => {
      for (const [id, s] of list) hits.set(id, (hits.get(id) ?? 0) + s * weight);
    };
    add(scoreWord(db, word, true, 0), 1);
    // A word being typed that is not yet a whole word anywhere ("postg"): its completions.
    if (hits.size === 0) add(scoreWord(db, word, false, 0), last && typing ? 1 : PREFIX_WEIGHT);
    if (hits.size === 0 && word.length >= 4) {
      const fixed = corrections(db, word);
      add(scoreTokens(db, fixed, true, 0), TYPO_WEIGHT);
      fixes.push(...fixed);
    }
    if (hits.size === 0) return; // a stop word, or a word no page has
    counted++;
    for (const [id, s] of hits) {
      const cur = acc.get(id);
      if (cur) [cur.score, cur.words] = [cur.score + s, cur.words + 1];
      else acc.set(id, { score: s, words: 1 });
    }
  });
  const ids = [...acc.entries()]
    .sort((a, b) => b[1].words - a[1].words || b[1].score - a[1].score)
    .map(([id]) => id);
  return { ids, corrections: counted > 0 ? fixes : [] };
}
