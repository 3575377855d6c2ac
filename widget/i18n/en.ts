/**
 * The English visitor strings: the source every other table is checked against (its type is
 * derived from this one). `{name}` marks a placeholder; a message with a count has one form per
 * `Intl.PluralRules` category of its language (`other` always), and its count is `{count}`.
 */

/** The forms of a counted message, by `Intl.PluralRules` category. */
export type Plural =
  & { readonly other: string }
  & {
    readonly [C in Intl.LDMLPluralRule]?: string;
  };

export const en = {
  // The search box, the dialog and the live list
  search: "Search",
  searchLabel: "Search this site",
  searchPlaceholder: "Search this site…",
  close: "Close",
  clear: "Clear",
  hintLive: "↑ ↓ to choose · Enter to open · Esc to close",
  hintSubmit: "Enter to search · Esc to close",
  suggestions: "Suggestions",
  searchResults: "Search results",
  recentSearches: "Recent searches",
  loading: "Loading…",
  searching: "Searching…",
  typeToSearch: "Type what you are looking for.",
  featured: "Featured",
  filters: "Filters",
  clearFilters: "Clear filters",
  skipToContent: "Skip to content",
  // Counts, pages, corrections
  resultsFor: {
    one: "{count} result for “{query}”",
    other: "{count} results for “{query}”",
  },
  resultsAvailable: { one: "{count} result available.", other: "{count} results available." },
  seeAll: { one: "See {count} result", other: "See all {count} results" },
  noResultsFor: "No results for “{query}”.",
  noResults: "No results.",
  noResultsHint: "Check the spelling, or try fewer or different words.",
  pageOf: "Page {page} of {pages}",
  page: "Page {page}",
  previous: "Previous",
  next: "Next",
  pagination: "Pages of results",
  pastLastPage: "This page is past the last result.",
  firstPage: "Go to the first page",
  tryAgain: "Try again",
  showingResultsFor: "Showing results for “{corrected}”",
  searchInsteadFor: "Search instead for “{query}”",
  showResultsFor: "Show results for “{query}”",
  // Why a search failed (never a raw code)
  errBusy: "Search is busy right now. Please try again in a minute.",
  errQuota: "This site's search has reached its monthly limit.",
  errNetwork: "Search could not be reached. Check your connection and try again.",
  errInvalid: "That search could not be run. Try shorter or different words.",
  errUnavailable: "Search is not available on this page.",
  errServer: "Search is having trouble right now. Please try again shortly.",
  // The AI answer
  aiAnswer: "AI answer",
  thinking: "Thinking…",
  answerNeedsJs: "The AI answer appears here (it needs JavaScript).",
  noAnswer: "No answer found on this site.",
  aiPaused:
    "AI answers are paused for this site this month. The search results below are not affected.",
  aiRateLimit:
    "Too many AI answers were asked for from here just now. Please try again in a minute.",
  aiFailed: "The AI answer could not be loaded right now. The search results below are complete.",
  aiDisclaimer: "AI answers can be wrong. Check the linked pages.",
  ask: "Ask",
  askAi: "Ask AI",
  followupLabel: "Ask a follow-up question",
  followupPlaceholder: "Ask a follow-up question…",
  sources: "Sources",
  source: "Source",
  sourceN: "Source {n}: {title}",
  sourcePage: "Page",
  sourceDocument: "Document",
  sourceExternal: "General AI knowledge",
  helpful: "Was this answer helpful?",
  yes: "Yes",
  no: "No",
  thanks: "Thanks for the feedback.",
  feedbackFailed: "The feedback could not be sent.",
  // A thumbs-down's comment, and a long answer folded on a phone
  feedbackComment: "What was missing or wrong? (optional)",
  send: "Send",
  skip: "Skip",
  showMore: "Show more",
  showLess: "Show less",
  // The service's own header and footer around the hosted results page
  navLabel: "Main",
  navHome: "Home",
  navDashboard: "Dashboard",
  navApiReference: "API reference",
  navResultsDemo: "Results demo",
  navDemoSite: "Demo site",
  footerTagline: "SiteSearch: hosted site search with AI answers.",
} as const satisfies Record<string, string | Plural>;

type English = typeof en;

/** A language's strings: every key of English, a string or plural forms as English has. */
export type Table = { readonly [K in keyof English]: English[K] extends string ? string : Plural };

/** Keys of plain messages. */
export type TextKey = {
  [K in keyof English]: English[K] extends string ? K : never;
}[keyof English];

/** Keys of counted messages. */
export type PluralKey = Exclude<keyof English, TextKey>;
