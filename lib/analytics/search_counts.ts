/**
 * The counts a finished search of a query as typed adds to, made once per site, day and text:
 * a query searched again (most searches are) costs two map reads, not normalizing its text and
 * writing two keys out as JSON again.
 */
import { normalizeQuery, queryKey, totalKey, typedForm } from "./keys.ts";

/** What a search of one text counts, on one site and day. */
export interface SearchCounts {
  day: string;
  /** The query as it is counted (normalizeQuery): empty when nothing is left of it. */
  query: string;
  /** How it was typed, when that differs from `query` and fits a key (typedForm). */
  form: string | null;
  /** The ids (the key's parts as JSON) of the day's searches and of the query's. */
  totalId: string;
  queryId: string;
}

/** Texts kept per site, and sites kept: past either, the oldest are made again when asked. */
const MAX_TEXTS = 2048;
const MAX_SITES = 1024;

export class SearchCountIds {
  #sites = new Map<string, Map<string, SearchCounts>>();

  /** The counts of `q` as typed, searched on `siteId` on `day`. */
  of(siteId: string, day: string, q: string): SearchCounts {
    let texts = this.#sites.get(siteId);
    const kept = texts?.get(q);
    if (kept?.day === day) return kept;
    if (!texts) {
      if (this.#sites.size >= MAX_SITES) this.#sites.delete(this.#sites.keys().next().value!);
      this.#sites.set(siteId, texts = new Map());
    }
    const query = normalizeQuery(q);
    const made = {
      day,
      query,
      form: typedForm(q, query),
      totalId: JSON.stringify(totalKey(siteId, day, "searches")),
      queryId: JSON.stringify(queryKey(siteId, day, query)),
    };
    if (!kept && texts.size >= MAX_TEXTS) texts.delete(texts.keys().next().value!);
    texts.set(q, made);
    return made;
  }
}
