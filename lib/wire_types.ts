/**
 * The JSON the API answers: the one home of these types, and of the bounds the browser scripts
 * hold to as well, for the server and the browser code (widget/, islands/). A result's own
 * shape is the search engine's; only types are imported, so the browser bundles hold nothing
 * of the engine.
 */
import type { PageHit } from "./search/engine/mod.ts";

/** The longest query the API takes, in characters (`q`, a curation's or an answer pin's query). */
export const MAX_QUERY_CHARS = 200;

/** The longest comment a visitor's vote on an answer carries (`POST /api/feedback`). */
export const MAX_FEEDBACK_COMMENT_CHARS = 500;

export type { Highlight, SectionHit } from "./search/engine/mod.ts";

/** One result of `GET /api/search`: the engine's, and what a click on it sends back. */
export interface SearchHit extends PageHit {
  /** What a click event on this result sends back, so that it counts (POST /api/events). */
  click?: string;
}

/** `GET /api/search`'s answer. */
export interface SearchResponse {
  results: SearchHit[];
  meta: {
    found: number;
    page: number;
    per_page: number;
    corrections?: { from: string; to: string }[];
    facets?: Record<string, { value: string; count: number }[]>;
    [k: string]: unknown;
  };
}

/** `GET /api/site`: what the browser scripts need before they draw. */
export interface SiteInfo {
  name?: string;
  resultsPage?: string;
  aiSummaries?: boolean;
  followups?: boolean;
  performance_tier?: string;
  /** The site's default language (a BCP 47 tag), when it has one. */
  lang?: string;
}

/** A source an answer used. */
export interface AnswerSource {
  type: "page" | "document" | "external" | string;
  title?: string;
  url?: string;
  documentId?: string;
  label?: string;
}

/** The `meta` event of a streamed answer (and the head of a non-streamed one). */
export interface AnswerMeta {
  conversationId?: string;
  conversationEnabled?: boolean;
  mode?: "initial" | "followup";
  turn?: number;
  turnsRemaining?: number;
  sources?: AnswerSource[];
}

/** The `done` event of a streamed answer. */
export interface AnswerDone {
  answer?: string;
  truncated?: boolean;
  creditsRemaining?: number;
  /** False when nothing on the site answers the question (no source, no credit spent). */
  answered?: boolean;
  /** How the support check went: sentences read, supported by a passage, removed. */
  check?: { sentences: number; supported: number; removed: number };
  /** Exactly the sources the answer cites, in order of first citation. */
  sources?: AnswerSource[];
}

/** The error envelope's inner object (also an `error` event's data). */
export interface ErrorJson {
  code: string;
  type?: string;
  status?: number;
  message?: string;
  retry_after?: number;
  param?: string | null;
  request_id?: string;
}

/** One day of the analytics report. */
export interface DayRow {
  date: string;
  searches: number;
  answers: number;
  noResults: number;
}

/** A row of the analytics report's `topQueries`, shown in its most often typed form. */
export interface TopQueryRow {
  query: string;
  count: number;
  noResults: number;
  clicks: number;
  /** clicks ÷ count, to 4 places. */
  ctr: number;
}

/** A row of `noResultQueries` and `noClickQueries`. */
export interface QueryCountRow {
  query: string;
  count: number;
}

/** A crawl job as `GET /api/admin/sites/:id/crawl/:job` answers it. */
export interface CrawlJobJson {
  id: string;
  status: "queued" | "running" | "done" | "failed" | "interrupted" | string;
  url: string;
  counts: Partial<
    Record<
      "discovered" | "fetched" | "indexed" | "unchanged" | "removed" | "skipped" | "failed",
      number
    >
  >;
  progress?: { done: number; total: number };
  /** Skipped and failed URLs per reason, exact (the lists are paged by …/crawl/:jobId/urls). */
  reasons?: Record<string, number>;
  /** Why a failed job failed, in words. */
  error?: string | null;
  skipped?: { url: string; reason: string; duplicateOf?: string }[];
  failed?: { url: string; reason: string }[];
  startedAt?: string;
  finishedAt?: string | null;
  /** What started it: an owner, the schedule, a re-fetch of named URLs, IndexNow, the sitemap watch. */
  trigger?: "manual" | "schedule" | "refetch" | "indexnow" | "watch" | string;
  /** For a re-fetch: how many URLs it names. */
  urls?: number;
}

/** `POST /api/admin/sites/:id/recrawl`'s answer: how many of the named URLs are queued. */
export interface RefetchJson {
  queued: number;
}

/** Why a URL is or is not searchable (`GET /api/admin/sites/:id/urls/status?url=…`). */
export interface UrlStatusJson {
  url: string;
  searchable: boolean;
  /**
   * `indexed`, `robots`, `noindex`, `canonical`, `excluded`, `not_included`, `too_large`,
   * `not_html`, `http_<status>`, `redirect`, `not_linked`, `not_crawled` or `off_site`.
   */
  reason: string;
  /** What it means and what to do about it, in a sentence or two. */
  detail: string;
  /** When a crawl last fetched it (ISO), or null. */
  lastFetched: string | null;
  /** The URL it defers to (`canonical`) or redirects to (`redirect`). */
  canonical?: string;
}

/** The sitemap watch, as `GET /api/admin/sites/:id/crawl` answers it under `watch`. */
export interface SitemapWatchJson {
  /** The sitemap watched (the site's last crawl started from it), or null: nothing is watched. */
  sitemap: string | null;
  /** How often it is read: every 15 minutes on paid plans, daily on Free. */
  every: "15m" | "daily";
  /** When it was last read (ISO), or null. */
  lastLookedAt: string | null;
  /** When it is read next (ISO), or null. */
  nextAt: string | null;
  /** What the last look found: pages changed (fetched), added, removed; null before the first. */
  found: { changed: number; added: number; removed: number } | null;
  /** Why the last look could not read the sitemap, in words, or null. */
  error: string | null;
}

/** An owner's synonym: a two-way group, or a one-way mapping (`word` also finds `means`). */
export type Synonym =
  | { id: string; words: string[] }
  | { id: string; word: string; means: string[] };

/** An owner's curation of the queries it matches: pages pinned in order, pages hidden. */
export interface Curation {
  id: string;
  query: string;
  match: "exact" | "contains";
  pin: string[];
  hide: string[];
}

/** An answer the owner fixed for a question (…/answers): served as it stands, for no credit. */
export interface AnswerPin {
  id: string;
  query: string;
  match: "exact" | "contains";
  answer: string;
  /** Pages of the site the answer cites, as site-relative paths. */
  sources: string[];
}

/** One run of the answers' self-check (…/answers/selfcheck). */
export interface SelfCheckRun {
  at: string;
  questions: number;
  /** Mean F1 of the answers' words against the sections' (0 to 1). */
  f1: number;
  /** Share of questions whose first cited page is the page that asks them. */
  citedFirst: number;
  /** Share answered "not on this site". */
  abstained: number;
  worst: { question: string; expected: string; got: string }[];
}

/**
 * A pin of a page the site no longer has (skipped for visitors), or of a section its page no
 * longer has (the result links the page's top): reported to the owner.
 */
export interface PinWarning {
  curation: string;
  query: string;
  url: string;
  reason: "page_not_found" | "section_not_found";
  message: string;
}

/** A fix suggested from the site's own analytics, with the entry that applies it. */
export type Suggestion =
  | {
    kind: "synonym";
    query: string;
    to: string;
    searches: number;
    why: string;
    /** The synonym to add as it is. */
    apply: { word: string; means: string[] };
  }
  | {
    kind: "pin";
    query: string;
    url: string;
    searches: number;
    why: string;
    apply: { query: string; match: "exact"; pin: string[]; hide: string[] };
  };

/** A query that finds nothing, searched by several visitors: a page to write (or a synonym). */
export interface GapSuggestion {
  kind: "gap";
  query: string;
  searches: number;
  why: string;
}

/** What GET …/suggestions lists: fixes to apply (`Suggestion`) and gaps to fill. */
export type AnySuggestion = Suggestion | GapSuggestion;
