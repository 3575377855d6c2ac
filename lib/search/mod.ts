/**
 * Site search, the one entry point for the rest of the service. Layers, each importing
 * only those below it:
 *
 * - analysis/: text to words and indexed forms for any language (tokens.ts), stop words,
 *   typo corrections (typos.ts), what a site's page titles share (site_name.ts);
 * - store/: the index of a site (site_db.ts): postings, vocabulary, documents, packed text;
 * - persistence/: the index as bytes (snapshot_codec.ts) and its snapshots in KV;
 * - query/: ranking (rank.ts, bm25.ts), every weight in one table (weights.ts);
 * - presentation/: results, highlights and sections as docs/api.md shapes them;
 * - indexes.ts, documents.ts, budget.ts, result_cache.ts: one index per site, loaded,
 *   kept current and evicted, and encoded answers kept.
 */
export { type IndexReader, SearchIndexes, type SnapshotOptions } from "./indexes.ts";
export { IndexBudget } from "./budget.ts";
export { warmSearch, warmWhileQuiet } from "./warm.ts";
export { type CachedBody, ResultCache } from "./result_cache.ts";
export { Snapshots } from "./persistence/snapshot.ts";
export { type SearchHit, type SearchResult } from "./presentation/results.ts";
export type { Highlight } from "./presentation/highlight.ts";
export type { SectionHit } from "./presentation/sections.ts";
export {
  type Alternatives,
  type Correction,
  type Expand,
  rank,
  type Ranked,
} from "./query/rank.ts";
export type { SearchLevers } from "./query/curated.ts";
export { MAX_ALTERNATIVES } from "./query/expand.ts";
export { SITE_FILTER_LIMITS } from "./store/filter_postings.ts";
export { RANKING, type Ranking } from "./query/weights.ts";
export { addDoc, createSiteDb, type Doc, docAt, type SiteDb } from "./store/site_db.ts";
export {
  countTerms,
  fold,
  isCommonWord,
  isStopWord,
  languageOf,
  ownCopy,
  term,
  terms,
  words,
} from "./analysis/tokens.ts";
export { squash, STOP_WORDS, WORD_RE } from "./analysis/text.ts";
