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

/**
 * Site and text pairs kept (~8192 × a few hundred bytes: a few MB in all, whatever the number of
 * sites); past it the oldest go and are made again when asked.
 */
const MAX_KEPT = 8192;

export class SearchCountIds {
  /** By site id and text, joined by NUL: site ids hold none, and the text comes last. */
  #kept = new Map<string, SearchCounts>();

  /** The counts of `q` as typed, searched on `siteId` on `day`. */
  of(siteId: string, day: string, q: string): SearchCounts {
    const key = siteId + "\u0000" + q;
    const kept = this.#kept.get(key);
    if (kept?.day === day) return kept;
    const query = normalizeQuery(q);
    const made = {
      day,
      query,
      form: typedForm(q, query),
      totalId: JSON.stringify(totalKey(siteId, day, "searches")),
      queryId: JSON.stringify(queryKey(siteId, day, query)),
    };
    if (!kept && this.#kept.size >= MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(key, made);
    return made;
  }
}
