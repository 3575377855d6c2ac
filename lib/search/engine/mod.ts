/**
 * The search engine: pure code over one site's index, with no Deno API, no KV, no timers, no
 * memory policy and no wire types (it imports npm packages and Node's zlib and crypto, which
 * ask for no permission). The host around it (lib/search) keeps the indexes of many sites.
 *
 * - Make an index, add and remove pages: `createSiteDb`, `addDoc`, `removeDoc`, `docAt`.
 * - Search it: `search(db, { query, page, perPage, filters, facets, expand, placement,
 *   ranking })`; `rank` when only the order is wanted. Ranking's knobs are one documented
 *   object, `DEFAULT_RANKING`; `rankingWith(overrides)` changes some for one search.
 * - Keep it as bytes: `encodeSiteDb` and `decodeSiteDb`, with the extras read off the search
 *   path (`encodeTail`, `decodeTail`); `CODEC_VERSION` names the format. `encodingSiteDb` is
 *   the encoding in steps (`runSteps` runs any such generator to its end at once). The pages'
 *   packed bodies may be kept out of memory by the host (`DecodeOptions.keepBodies`, a
 *   `BodyArena` read synchronously).
 * - Work read off the search path after a change, a step at a time: `prepareIndex`,
 *   `readAhead` (generators: the host decides when each step runs).
 * - Words as every part of the service reads them: `words`, `terms`, `fold`, … (analysis/).
 *
 * Layers, each importing only those below it: analysis/ (text to words, any language) →
 * store/ (postings, vocabulary, documents, packed text) → query/ (ranking, weights.ts) →
 * presentation/ (results, highlights, sections); the snapshot codec reads the store.
 */
export {
  addDoc,
  createSiteDb,
  type Doc,
  docAt,
  docCount,
  headingsText,
  heldBytes,
  mostUsedWords,
  removeDoc,
  seal,
  type SiteDb,
} from "./store/site_db.ts";
export { search, type SearchOptions, type SearchResult } from "./presentation/results.ts";
export type { Highlight, PageHit, SectionHit } from "./presentation/hits.ts";
export { prepareIndex, rank, type Ranked, type RankOptions, readAhead } from "./query/rank.ts";
export type { Correction } from "./query/accumulate.ts";
export { type Alternatives, type Expand, MAX_ALTERNATIVES } from "./query/expand.ts";
export type { Placement } from "./query/curated.ts";
export { namesAnchor } from "./presentation/sections.ts";
export {
  DEFAULT_RANKING,
  priorOf,
  type Ranking,
  type RankingOverrides,
  rankingWith,
} from "./query/weights.ts";
export { adoptStated, statedColumns, statedEquivalences, statedSettled } from "./query/stated.ts";
export { adoptPassages, passageColumns } from "./query/passages.ts";
export { scoreCacheBytes } from "./query/bm25.ts";
export { keptHeadingsBytes } from "./query/heading_words.ts";
export {
  CODEC_VERSION,
  type DecodeOptions,
  decodeSiteDb,
  decodeStated,
  decodeTail,
  encodedLength,
  encodeSiteDb,
  encodeTail,
  encodingSiteDb,
  type Extras,
} from "./snapshot_codec.ts";
export { copying, runSteps } from "./steps.ts";
export type { PassageBlocks } from "./store/passage_blocks.ts";
export { type DocFilters, SITE_FILTER_LIMITS } from "./store/filter_postings.ts";
export { SiteName } from "./analysis/site_name.ts";
export { fold, isStopWord, languageOf, ownCopy, term, terms, words } from "./analysis/tokens.ts";
export { squash } from "./analysis/text.ts";
export {
  type Equivalence,
  type EquivalenceKind,
  MAX_PHRASE_WORDS,
  mergeEquivalences,
  mineEquivalences,
} from "./analysis/equivalences.ts";
export { freeBytes } from "./store/free_bytes.ts";
export type { BodyArena } from "./store/body_arena.ts";
