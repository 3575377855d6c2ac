/**
 * BM25 over real term frequencies, per field (store/site_db.ts keeps them), with the
 * weights of weights.ts; the scores of tokens many pages hold are kept for the next query.
 */
import { docCount, postings, type Scores, type SiteDb } from "../store/site_db.ts";
import { type Field, FIELDS } from "../store/postings.ts";
import { DEFAULT_RANKING, type Ranking } from "./weights.ts";

/** Tokens in this many documents or more have their scores kept (they recur across queries). */
const CACHE_DF = 50;
/** Scores kept at most, over all tokens: this many per document, up to CACHE_ENTRIES. */
const CACHE_PER_DOC = 50;
const CACHE_ENTRIES = 100_000;
/** What a kept token takes beside its scores (two arrays, their object, a Map entry). */
const CACHE_TOKEN_BYTES = 400;
const cacheEntries = (db: SiteDb) => Math.min(CACHE_ENTRIES, CACHE_PER_DOC * docCount(db));

export const NO_SCORES: Scores = { size: 0, ids: new Uint32Array(0), values: new Float64Array(0) };

/**
 * Per-document sums, indexed by internal id, with the documents in the order first added
 * (as a Map's keys): typed arrays reused from search to search instead of a Map per word.
 */
export class Sums {
  private values = new Float64Array(256);
  private has = new Uint8Array(256);
  /** Documents added, in order. */
  readonly ids: number[] = [];

  get size(): number {
    return this.ids.length;
  }

  add(id: number, s: number) {
    if (id >= this.has.length) this.grow(id);
    if (this.has[id]) this.values[id] += s;
    else {
      this.has[id] = 1;
      this.values[id] = s;
      this.ids.push(id);
    }
  }

  private grow(id: number) {
    const size = Math.max(id + 1, this.has.length * 2);
    const values = new Float64Array(size), has = new Uint8Array(size);
    values.set(this.values);
    has.set(this.has);
    [this.values, this.has] = [values, has];
  }

  /** The sums (each times `weight`) as scores, in order; leaves it empty. */
  take(weight = 1): Scores {
    const n = this.ids.length;
    if (!n) return NO_SCORES;
    const ids = new Uint32Array(n), values = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const id = this.ids[i];
      ids[i] = id;
      values[i] = this.values[id] * weight;
      this.has[id] = 0;
    }
    this.ids.length = 0;
    return { size: n, ids, values };
  }
}

/** Sums not in use (ranking is synchronous: a few serve every search). */
const spare: Sums[] = [];

/** Empty sums to fill; given back with `done`. */
export const sums = (): Sums => spare.pop() ?? new Sums();

/** Gives back sums taken (`take` emptied them). */
export function done(s: Sums) {
  if (!s.size && spare.length < 8) spare.push(s);
}

/** Bytes a site's kept scores take now (indexes.ts counts them in the index's). */
export function scoreCacheBytes(db: SiteDb): number {
  let n = 0;
  for (const s of db.scores.values()) {
    n += CACHE_TOKEN_BYTES + s.ids.byteLength + s.values.byteLength;
  }
  return n;
}

/** Whether `r` scores as the default does: then a token's scores may be kept and reused. */
const scoresAsDefault = (r: Readonly<Ranking>) =>
  r.k1 === DEFAULT_RANKING.k1 && r.b === DEFAULT_RANKING.b &&
  r.fieldWeight === DEFAULT_RANKING.fieldWeight;

/**
 * One token's BM25 per document over all fields, kept for common tokens (under the default
 * ranking's BM25 knobs). Never to be changed.
 */
export function exactScores(db: SiteDb, token: string, r: Readonly<Ranking>): Scores {
  const cached = scoresAsDefault(r);
  const kept = cached ? db.scores.get(token) : undefined;
  if (kept) return kept;
  const m = sums();
  for (const field of FIELDS) scoreField(db, field, token, false, m, r);
  const scores = m.take();
  done(m);
  if (cached && scores.size >= CACHE_DF) {
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

/**
 * Adds the BM25 of every document holding one of `tokens` in any field (boosted per field)
 * into `out`; pushes each token (or prefix's expansion) that matched onto `matched`.
 */
export function score(
  db: SiteDb,
  tokens: Iterable<string>,
  prefix: boolean,
  out: Sums,
  matched: string[],
  r: Readonly<Ranking>,
) {
  for (const token of tokens) {
    if (prefix) {
      for (const field of FIELDS) scoreField(db, field, token, true, out, r, matched);
      continue;
    }
    const { size, ids, values } = exactScores(db, token, r);
    if (size) matched.push(token);
    for (let i = 0; i < size; i++) out.add(ids[i], values[i]);
  }
}

function scoreField(
  db: SiteDb,
  field: Field,
  token: string,
  prefix: boolean,
  out: Sums,
  r: Readonly<Ranking>,
  matched?: string[],
) {
  const n = docCount(db);
  const found = postings(db, field, token, prefix);
  const avg = db.index.totals[field] / Math.max(1, n) || 1;
  const lengths = db.index.lengths[field];
  const b = r.b[field], k1 = r.k1, weight = r.fieldWeight[field];
  let expansions = 0;
  for (const { term: w, ids, tfs } of found) {
    if (++expansions > r.maxExpansions) break;
    if (!ids.length) continue;
    matched?.push(w);
    const idf = Math.log(1 + (n - ids.length + 0.5) / (ids.length + 0.5));
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i], tf = tfs[i];
      if (!tf) continue;
      const norm = k1 * (1 - b + (b * (lengths.get(id) ?? 0)) / avg);
      const s = (idf * tf * (k1 + 1)) / (tf + norm) * weight;
      out.add(id, s);
    }
  }
}
