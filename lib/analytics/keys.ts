/** Where analytics live in KV: one prefix per site and UTC day; no IP address or key is stored. */

import { fold } from "../search/engine/mod.ts";

/** A UTC day as "2026-11-15". */
export function dayOf(ms: number): string {
  const day = Math.floor(ms / 86_400_000);
  // Every search asks: the day's text is made once a day, not once a search.
  if (day !== lastDay.day) lastDay = { day, text: new Date(ms).toISOString().slice(0, 10) };
  return lastDay.text;
}
let lastDay = { day: NaN, text: "" };

/** Daily totals: searches, answers, noResults, clicks, clickPositions (sum of positions). */
export const totalKey = (
  site: string,
  day: string,
  metric: Metric,
) => ["an", site, day, "t", metric];
/** Per normalised query and day: how often it was searched, and how often it found nothing. */
export const queryKey = (site: string, day: string, q: string) => ["an", site, day, "q", q];
export const emptyQueryKey = (site: string, day: string, q: string) => ["an", site, day, "z", q];
/** Per normalised query and day: clicks on its results (every one, as the daily total counts). */
export const queryClickKey = (site: string, day: string, q: string) => ["an", site, day, "k", q];
/** Per normalised query and day: visitors it found nothing for, each counted once a day. */
export const emptyVisitorKey = (site: string, day: string, q: string) => ["an", site, day, "v", q];
/**
 * Per normalised query, typed form and day: how often it was typed so (only forms that differ
 * from the normalised one; the report shows the most frequent). Written only where both fit
 * FORM_KEY_BYTES, so the key stays under 2 KiB.
 */
export const formKey = (site: string, day: string, q: string, form: string) => [
  "an",
  site,
  day,
  "f",
  q,
  form,
];
const FORM_KEY_BYTES = 1_600;
const utf8 = new TextEncoder();
/** The form a query was typed in as counted beside its normalised one, or null when too long. */
export function typedForm(q: string, normalized: string): string | null {
  const form = q.trim().replace(/\s+/g, " ");
  if (!form || form === normalized) return null;
  return utf8.encode(form + normalized).length <= FORM_KEY_BYTES ? form : null;
}

/**
 * Per normalised query, result page (its path, no #section) and day: clicks, and the sum of
 * their positions (lib/levers suggests a pin where clicks go to one page shown low).
 */
export const clickKey = (
  site: string,
  day: string,
  q: string,
  url: string,
) => ["an", site, day, "c", q, url];
export const clickPositionKey = (
  site: string,
  day: string,
  q: string,
  url: string,
) => ["an", site, day, "p", q, url];

/**
 * Per day, a query that found no pages and the later query of the same typing session that did
 * (lib/levers suggests the one as a synonym of the other). Both are cut to REFORMULATION_CHARS:
 * two queries share one key's 2 KiB.
 */
export const reformulationKey = (site: string, day: string, from: string, to: string) => [
  "an",
  site,
  day,
  "r",
  cut(from, REFORMULATION_CHARS),
  cut(to, REFORMULATION_CHARS),
];
/** 4 UTF-8 bytes a character at most: two such queries and the rest of a key fit 2 KiB. */
const REFORMULATION_CHARS = 200;
const cut = (text: string, chars: number) =>
  text.length <= chars ? text : [...text].slice(0, chars).join("");

/** A clicked result's page as counted per query: its path without the #section, or null. */
export function clickedPage(url: string): string | null {
  const path = url.split("#")[0];
  // Kept short: it is part of a KV key (2 KiB) beside the query.
  return path.startsWith("/") && path.length <= 500 ? path : null;
}

export const METRICS = [
  "searches",
  "answers",
  "noResults",
  "clicks",
  "clickPositions",
  "answered",
  "abstained",
  "sentencesRemoved",
  "pinned",
] as const;
export type Metric = typeof METRICS[number];

/**
 * A query is part of a KV key, which holds at most 2 KiB: cut there, whatever a caller passes
 * (validated queries are far shorter), so no flush can fail on a key too large.
 */
const MAX_QUERY = 400;

/**
 * Sentence punctuation a query may end with ("custom filters?"): not "#" or "+", which end
 * names ("c#", "c++").
 */
const TRAILING = /[\s.,;:!?…。、，！？؟]+$/u;

/**
 * A query as it is counted: trimmed, whitespace collapsed, lower-cased and accents dropped as
 * the search reads words (fold), trailing sentence punctuation removed.
 */
export function normalizeQuery(q: string): string {
  return cut(fold(q.trim().replace(/\s+/g, " ")).replace(TRAILING, ""), MAX_QUERY);
}
