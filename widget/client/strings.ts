/// <reference lib="dom" />
/**
 * Every line a visitor reads in widget.js, results.js and the islands results page, worded once.
 * `{name}` marks a value; a plural message has one form per Intl.PluralRules category.
 */
import { ApiFailure } from "./http.ts";

type Plural = { one?: string; other: string; [category: string]: string | undefined };

export const EN = {
  searchSite: "Search this site",
  placeholder: "Search this site…",
  search: "Search",
  results: "Results",
  suggestions: "Suggestions",
  recent: "Recent searches",
  clear: "Clear",
  close: "Close",
  hintLive: "↑ ↓ to choose · Enter to open · Esc to close",
  hintPlain: "Enter to search · Esc to close",
  seeAll: { one: "See the result", other: "See all {count} results" } as Plural,
  showingFor: "Showing results for “{query}”",
  noResultsFor: "No results for “{query}”.",
  noResults: "No results.",
  available: { one: "{count} result available.", other: "{count} results available." } as Plural,
  typeToSearch: "Type what you are looking for.",
  searching: "Searching…",
  resultsFor: {
    one: "{count} result for “{query}”",
    other: "{count} results for “{query}”",
  } as Plural,
  pageOf: "page {page} of {pages}",
  checkSpelling: "Check the spelling, or try fewer or different words.",
  pastLast: "This page is past the last result.",
  firstPage: "Go to page 1",
  tryAgain: "Try again",
  previous: "Previous",
  next: "Next",
  pageN: "Page {page}",
  pages: "Pages of results",
  aiAnswer: "AI answer",
  followupPlaceholder: "Ask a follow-up question…",
  followupLabel: "Ask a follow-up question",
  ask: "Ask",
  aiNote: "AI answers can be wrong. Check the linked pages.",
  thinking: "Thinking…",
  wasHelpful: "Was this answer helpful?",
  helpful: "Helpful",
  notHelpful: "Not helpful",
  thanks: "Thanks for the feedback.",
  sources: "Sources",
  sourceN: "Source {n}: {title}",
  pageSource: "Page",
  documentSource: "Document",
  externalSource: "General AI knowledge",
  noAnswer: "No answer found on this site.",
  needsScript: "The AI answer appears here (it needs JavaScript).",
  aiPaused: "AI answers are paused for this site this month. The search results are not affected.",
  aiBusy: "Too many AI answers were asked for from here just now. Please try again in a minute.",
  aiFailed: "The AI answer could not be loaded right now. The search results are complete.",
  busy: "Search is busy right now. Please try again in a minute.",
  monthly: "This site's search has reached its monthly limit.",
  offline: "Search could not be reached. Check your connection and try again.",
  badQuery: "That search could not be run. Try shorter or different words.",
  badKey: "This search key is not valid.",
  unavailable: "Search is not available on this page.",
  trouble: "Search is having trouble right now. Please try again shortly.",
};

export type Key = keyof typeof EN;
export type Strings = { [K in Key]: typeof EN[K] extends Plural ? Plural : string };

let table: Strings = EN;
let lang = "en";

/** Makes `next` (in language `tag`) the table every later message comes from. */
export function useStrings(next: Strings, tag: string): void {
  [table, lang] = [next, tag];
}

/** The message `key` with its `{name}` values filled in; plural messages by `vars.count`. */
export function t(key: Key, vars: Record<string, string | number> = {}): string {
  const m = table[key] ?? EN[key];
  let text: string;
  if (typeof m === "string") text = m;
  else {
    const n = Number(vars.count ?? 0);
    text = m[new Intl.PluralRules(lang).select(n)] ?? m.other;
  }
  return text.replace(/\{(\w+)\}/g, (all, name: string) => {
    const v = vars[name];
    if (v === undefined) return all;
    return typeof v === "number" ? new Intl.NumberFormat(lang).format(v) : v;
  });
}

/** The line a visitor reads for a failed search (an ApiFailure, or the server's ApiError). */
export function friendly(err: unknown): string {
  const f = (err ?? {}) as { status?: unknown; code?: unknown };
  switch (f.code) {
    case "SEARCH_RATE_LIMIT_EXCEEDED":
      return t("busy");
    case "MONTHLY_SEARCH_QUOTA_EXCEEDED":
      return t("monthly");
    case "NETWORK_ERROR":
      return t("offline");
    case "INVALID_PARAMETER":
      return t("badQuery");
  }
  if (f.status === 401) return t("badKey");
  if (f.status === 403) return t("unavailable");
  return t("trouble");
}

/** The line a visitor reads when an answer cannot be shown (the results stay). */
export function answerFailure(err: unknown): string {
  const code = err instanceof ApiFailure ? err.code : "";
  if (code === "AI_CREDITS_EXHAUSTED") return t("aiPaused");
  if (code === "SUMMARY_RATE_LIMIT_EXCEEDED") return t("aiBusy");
  return t("aiFailed");
}
