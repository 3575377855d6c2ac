/**
 * BM25 over real term frequencies, per field (store/site_db.ts keeps them), with the
 * weights of weights.ts; the scores of tokens many pages hold are kept for the next query.
 */
import {
  docCount,
  type Field,
  FIELDS,
  postings,
  type Scores,
  type SiteDb,
} from "../store/site_db.ts";
import { RANKING } from "./weights.ts";

/** Tokens in this many documents or more have their scores kept (they recur across queries). */
const CACHE_DF = 50;
/** Scores kept at most, over all tokens: this many per document, up to CACHE_ENTRIES. */
const CACHE_PER_DOC = 50;
const CACHE_ENTRIES = 100_000;
/** What a kept token takes beside its scores (two arrays, their object, a Map entry). */
const CACHE_TOKEN_BYTES = 400;
const cacheEntries = (db: SiteDb) => Math.min(CACHE_ENTRIES, CACHE_PER_DOC * docCount(db));

export const NO_SCORES: Scores = { size: 0, ids: new Uint32Array(0), values: new Float64Array(0) };

export function toScores(m: Map<number, number>): Scores {
  if (!m.size) return NO_SCORES;
  const ids = new Uint32Array(m.size), values = new Float64Array(m.size);
  let i = 0;
  for (const [id, s] of m) ids[i] = id, values[i++] = s;
  return { size: m.size, ids, values };
}

/** Bytes a site's kept scores take now (indexes.ts counts them in the index's). */
export function scoreCacheBytes(db: SiteDb): number {
  let n = 0;
  for (const s of db.scores.values()) {
    n += CACHE_TOKEN_BYTES + s.ids.byteLength + s.values.byteLength;
  }
  return n;
}

/** One token's BM25 per document over all fields, kept for common tokens. Never to be changed. */
export function exactScores(db: SiteDb, token: string): Scores {
  const kept = db.scores.get(token);
  if (kept) return kept;
  const m = new Map<number, number>();
  const words: string[] = [];
  for (const field of FIELDS) scoreField(db, field, token, false, m, words);
  const scores = toScores(m);
  if (scores.size >= CACHE_DF) {
    // Oldest first out, until the new one fits.
    const most = cacheEntries(db);
    let entries = 0;
    for (const s of db.scores.values()) entries += s.size;
    for (const [old, s] of db.scores) {
      if (entries + scores.size <= most) break;
      db.scores.delete(old);
      entries -= s.size;
    }
    if (scores.size <= most) db.scores.set(token, scores);
  }
  return scores;
}

/** Adds scores into `out`. */
function addScores(scores: Scores, out: Map<number, number>) {
  const { ids, values } = scores;
  for (let i = 0; i < scores.size; i++) {
    out.set(ids[i], (out.get(ids[i]) ?? 0) + values[i]);
  }
}

/** Every score times `weight`, in place. */
export function weighted(m: Map<number, number>, weight: number): Map<number, number> {
  for (const [id, s] of m) m.set(id, s * weight);
  return m;
}

/** BM25 of every document holding one of `tokens` in any field, boosted per field. */
export function score(
  db: SiteDb,
  tokens: Iterable<string>,
  prefix: boolean,
  out: Map<number, number>,
) {
  const matched: string[] = [];
  for (const token of tokens) {
    if (prefix) {
      for (const field of FIELDS) scoreField(db, field, token, true, out, matched);
      continue;
    }
    const scores = exactScores(db, token);
    if (scores.size) matched.push(token);
    addScores(scores, out);
  }
  return matched;
}

function scoreField(
  db: SiteDb,
  field: Field,
  token: string,
  prefix: boolean,
  out: Map<number, number>,
  matched: string[],
) {
  const n = docCount(db);
  const found = postings(db, field, token, prefix);
  const avg = db.index.totals[field] / Math.max(1, n) || 1;
  const lengths = db.index.lengths[field];
  const b = RANKING.b[field], k1 = RANKING.k1, weight = RANKING.fieldWeight[field];
  let expansions = 0;
  for (const { term: w, ids, tfs } of found) {
    if (++expansions > RANKING.maxExpansions) break;
    if (!ids.length) continue;
    matched.push(w);
    const idf = Math.log(1 + (n - ids.length + 0.5) / (ids.length + 0.5));
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i], tf = tfs[i];
      if (!tf) continue;
      const norm = k1 * (1 - b + (b * (lengths.get(id) ?? 0)) / avg);
      const s = (idf * tf * (k1 + 1)) / (tf + norm) * weight;
      out.set(id, (out.get(id) ?? 0) + s);
    }
  }
}
