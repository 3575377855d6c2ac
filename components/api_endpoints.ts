/**
 * The endpoints /docs/api describes, in the order a reader meets them. Numbers come from the
 * modules that enforce them (plans, schemas, lever limits), so the page cannot drift from them.
 */
import { DEFAULT_DAYS, DEFAULT_LIMIT, MAX_DAYS, MAX_LIMIT } from "../lib/analytics/report.ts";
import type { ErrorCode } from "../lib/errors.ts";
import { DEFAULT_PER_PAGE, MAX_PAGE } from "../lib/http/schemas.ts";
import { MAX_QUERY_CHARS } from "../lib/wire_types.ts";
import { LIMITS } from "../lib/levers/limits.ts";

/** Who may call an endpoint: the public key, a site admin key (or the operator), the operator. */
export type Auth = "public" | "admin" | "operator" | "none";

export interface Endpoint {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  auth: Auth;
  summary: string;
  /** Query parameters or body fields, with their rules. */
  params?: [string, string][];
  /** The query string of the curl example (without `?`). */
  query?: string;
  /** The JSON body of the curl example. */
  body?: unknown;
  /** Other curl options of the example (a raw upload). */
  raw?: string[];
  /** Errors particular to this endpoint (the key and validation errors apply everywhere). */
  errors?: ErrorCode[];
}

export interface EndpointGroup {
  id: string;
  title: string;
  intro: string;
  endpoints: Endpoint[];
}

const SITE = "/api/admin/sites/:id";

export const GROUPS: EndpointGroup[] = [
  {
    id: "public",
    title: "Public endpoints",
    intro:
      "Called from visitors' browsers with the site's public key, as the X-API-Key header or the key query parameter (the header wins). A site with allowed origins refuses other browser origins.",
    endpoints: [
      {
        method: "GET",
        path: "/api/search",
        auth: "public",
        summary: "Ranked results with highlights, sections and facets.",
        params: [
          ["q", `required; trimmed, 1 to ${MAX_QUERY_CHARS} characters`],
          ["page", `whole number from 1 to ${MAX_PAGE}; default 1`],
          [
            "per_page",
            `whole number ≥ 1; default ${DEFAULT_PER_PAGE}, capped at the plan's maximum`,
          ],
          [
            "filter",
            "NAME:VALUE, repeatable: values of one name are OR-ed, names AND-ed (built-in: section, type, lang)",
          ],
          ["facets", "false leaves meta.facets out"],
        ],
        query: "q=shipping&per_page=5",
        errors: [
          "ORIGIN_NOT_ALLOWED",
          "SEARCH_RATE_LIMIT_EXCEEDED",
          "MONTHLY_SEARCH_QUOTA_EXCEEDED",
        ],
      },
      {
        method: "POST",
        path: "/api/summarize",
        auth: "public",
        summary: "An AI answer from the site's pages, with its sources; stream: true streams SSE.",
        params: [
          ["query", "required; 1 to 600 characters"],
          ["mode", "initial (default) or followup"],
          ["stream", "true for server-sent events (meta, delta, done or error)"],
          ["conversationId", "required for a follow-up"],
        ],
        body: { query: "How long does shipping take?", stream: false },
        errors: [
          "SUMMARIES_DISABLED",
          "FOLLOWUP_REQUIRES_PAID_PLAN",
          "CONVERSATION_NOT_FOUND",
          "CONVERSATION_TURN_LIMIT_REACHED",
          "AI_CREDITS_EXHAUSTED",
          "SUMMARY_RATE_LIMIT_EXCEEDED",
          "UPSTREAM_ERROR",
        ],
      },
      {
        method: "GET",
        path: "/api/site",
        auth: "public",
        summary:
          "What the browser scripts need before they draw: name, results page, AI settings, plan. Spends no quota.",
      },
      {
        method: "POST",
        path: "/api/feedback",
        auth: "public",
        summary: "A visitor's vote on an answer.",
        params: [
          ["conversationId", "required"],
          ["turn", "required; whole number ≥ 1"],
          ["helpful", "required; true or false"],
          ["comment", "optional; at most 500 characters"],
        ],
        body: { conversationId: "cv_CONVERSATION_ID", turn: 1, helpful: true },
      },
      {
        method: "POST",
        path: "/api/events",
        auth: "public",
        summary: "A click on a result, for analytics. Answers 204.",
        params: [
          ["type", "click"],
          ["query", `required; at most ${MAX_QUERY_CHARS} characters`],
          ["position", "required; whole number ≥ 1"],
          ["url", "required; the result's url"],
        ],
        body: { type: "click", query: "shipping", position: 1, url: "/shipping" },
        errors: ["EVENT_RATE_LIMIT_EXCEEDED"],
      },
      {
        method: "GET",
        path: "/healthz",
        auth: "none",
        summary: "200 when storage answers, else 503.",
      },
    ],
  },
  {
    id: "site",
    title: "Site admin",
    intro:
      "Authorization: Bearer with the site's admin key (sk_…, shown once) or the operator token. An admin key reaches only its own site; another site's id answers 404.",
    endpoints: [
      {
        method: "GET",
        path: SITE,
        auth: "admin",
        summary: "The site and its settings, without secrets.",
      },
      {
        method: "PATCH",
        path: SITE,
        auth: "admin",
        summary: "Change settings; the operator may also change plan and limits.",
        params: [
          ["aiSummaries, externalKnowledge, followups", "true or false"],
          ["allowedOrigins", "at most 50 origins like https://example.com"],
          ["resultsPage", "the site-relative path of the results page"],
          ["recrawl", "daily, weekly or null"],
          ["include, exclude", "URL patterns of crawls"],
          ["plan, limits", "operator only"],
        ],
        body: { aiSummaries: true, allowedOrigins: ["https://www.example.com"] },
        errors: ["OPERATOR_ONLY"],
      },
      {
        method: "GET",
        path: `${SITE}/usage`,
        auth: "admin",
        summary: "Searches this minute and this month, and AI credits: used, limit, resets_at.",
      },
      {
        method: "POST",
        path: `${SITE}/keys/rotate`,
        auth: "admin",
        summary:
          "A new public or admin key. The old admin key stops at once; the old public key after graceSeconds.",
        params: [
          ["key", "public or admin"],
          ["graceSeconds", "public key only; 0 to 604800 (7 days), default 86400 (1 day)"],
        ],
        body: { key: "public", graceSeconds: 3600 },
      },
      {
        method: "GET",
        path: `${SITE}/analytics`,
        auth: "admin",
        summary:
          "Searches, answers and no-result searches per day; top queries with clicks and CTR, queries with no results and with no clicks; answer feedback.",
        params: [
          ["days", `1 to ${MAX_DAYS}; default ${DEFAULT_DAYS}`],
          ["limit", `rows of each query list, 1 to ${MAX_LIMIT}; default ${DEFAULT_LIMIT}`],
        ],
        query: "days=7&limit=50",
      },
    ],
  },
  {
    id: "content",
    title: "Content",
    intro: "Pages and documents the site's search and answers are made from.",
    endpoints: [
      {
        method: "PUT",
        path: `${SITE}/pages`,
        auth: "admin",
        summary: "Add or replace pages (at most 500 a call); answers a result per page.",
        params: [
          ["pages[].url", "site-relative path, e.g. /pricing"],
          ["pages[].title, body", "required"],
          ["pages[].description, lang", "optional"],
          ["pages[].filters", "optional; {NAME: [VALUE, …]}, at most 10 names and 20 values"],
        ],
        body: {
          pages: [{ url: "/shipping", title: "Shipping", body: "We ship within two days." }],
        },
        errors: ["PAYLOAD_TOO_LARGE"],
      },
      {
        method: "GET",
        path: `${SITE}/pages`,
        auth: "admin",
        summary: "The site's pages, by cursor.",
        params: [["cursor", "from the previous answer"], ["limit", "1 to 1000; default 100"]],
      },
      {
        method: "DELETE",
        path: `${SITE}/pages`,
        auth: "admin",
        summary: "Remove one page.",
        params: [["url", "required; the page's path"]],
        query: "url=/old-page",
      },
      {
        method: "POST",
        path: `${SITE}/documents`,
        auth: "admin",
        summary:
          "Upload a document (PDF, Markdown, text or HTML as the raw body) that answers may cite. Business and Enterprise.",
        params: [["title", "query parameter; optional"]],
        query: "title=Returns+policy",
        raw: ["-H 'Content-Type: application/pdf'", "--data-binary @returns.pdf"],
        errors: ["PLAN_FEATURE_UNAVAILABLE", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"],
      },
      {
        method: "GET",
        path: `${SITE}/documents`,
        auth: "admin",
        summary: "The site's documents.",
      },
      {
        method: "GET",
        path: `${SITE}/documents/:docId`,
        auth: "admin",
        summary: "One document.",
      },
      {
        method: "DELETE",
        path: `${SITE}/documents/:docId`,
        auth: "admin",
        summary: "Remove a document and its passages.",
      },
    ],
  },
  {
    id: "crawl",
    title: "Crawls",
    intro:
      "The crawler reads a sitemap or follows links from a start page, honouring robots.txt, noindex and canonical links.",
    endpoints: [
      {
        method: "POST",
        path: `${SITE}/crawl`,
        auth: "admin",
        summary: "Start a crawl; answers 202 with the job.",
        params: [
          ["url", "required; a sitemap or start page (http or https)"],
          ["maxPages", "optional; whole number ≥ 1"],
          ["include, exclude", "optional URL patterns"],
        ],
        body: { url: "https://www.example.com/sitemap.xml", maxPages: 500 },
        errors: ["CRAWL_IN_PROGRESS"],
      },
      {
        method: "GET",
        path: `${SITE}/crawl`,
        auth: "admin",
        summary: "The site's recent crawl jobs.",
      },
      {
        method: "GET",
        path: `${SITE}/crawl/:jobId`,
        auth: "admin",
        summary: "One job: status, counts, progress {done, total}.",
      },
      {
        method: "GET",
        path: `${SITE}/crawl/:jobId/urls`,
        auth: "admin",
        summary: "The URLs a crawl skipped or failed, with the reason, by cursor.",
        params: [["kind", "skipped or failed"], ["cursor", "from the previous answer"]],
        query: "kind=skipped",
      },
      {
        method: "POST",
        path: `${SITE}/recrawl`,
        auth: "admin",
        summary:
          "Re-fetch named pages now, beside any running crawl; answers 202 {queued}. Changed pages are searchable within seconds; pages now gone leave the index.",
        params: [["urls", "required; 1 to 1,000 paths or URLs of the site's host"]],
        body: { urls: ["/pricing", "https://www.example.com/blog/launch"] },
        errors: ["REFETCH_RATE_LIMIT_EXCEEDED"],
      },
      {
        method: "GET",
        path: `${SITE}/urls/status`,
        auth: "admin",
        summary:
          "Why a URL is or is not searchable: reason, a sentence on what to do, when it was last fetched.",
        params: [["url", "required; a path or URL of the site"]],
        query: "url=/pricing",
      },
    ],
  },
  {
    id: "levers",
    title: "Synonyms, curations and suggestions",
    intro:
      "An owner's levers on the ranking. A search shows a change within a second; PUT replaces the whole list.",
    endpoints: [
      {
        method: "GET",
        path: `${SITE}/synonyms`,
        auth: "admin",
        summary: "The site's synonyms, each with its id.",
      },
      {
        method: "PUT",
        path: `${SITE}/synonyms`,
        auth: "admin",
        summary: "Replace the synonyms: words (two-way) or word and means (one-way).",
        params: [
          ["synonyms", `at most ${LIMITS.synonyms} entries`],
          [
            "words, means",
            `at most ${LIMITS.wordsPerEntry} phrases of up to ${LIMITS.wordsPerPhrase} words`,
          ],
        ],
        body: {
          synonyms: [{ words: ["tee", "t-shirt"] }, { word: "nyc", means: ["new york"] }],
        },
      },
      {
        method: "GET",
        path: `${SITE}/curations`,
        auth: "admin",
        summary: "The site's curations, each with its id.",
      },
      {
        method: "PUT",
        path: `${SITE}/curations`,
        auth: "admin",
        summary:
          "Replace the curations: pages pinned first (page 1 only) or hidden for a query; placed results carry pinned: true.",
        params: [
          ["curations", `at most ${LIMITS.curations}`],
          ["query", `required; at most ${LIMITS.queryChars} characters`],
          ["match", "exact (the normalised query) or contains (the phrase)"],
          [
            "pin",
            `at most ${LIMITS.pins} paths, in order; a section (/api.html#filters) is linked`,
          ],
          ["hide", `at most ${LIMITS.hides} paths; a hidden section is never linked`],
        ],
        body: { curations: [{ query: "refund", match: "exact", pin: ["/support/refunds"] }] },
      },
      {
        method: "GET",
        path: `${SITE}/answers`,
        auth: "admin",
        summary: "The site's answer pins, each with its id.",
      },
      {
        method: "PUT",
        path: `${SITE}/answers`,
        auth: "admin",
        summary:
          "Replace the answer pins: a matching question gets the answer as written, with pinned: true, citing the pages given, for no credit.",
        params: [
          ["answers", `at most ${LIMITS.answers}`],
          ["query", `required; at most ${LIMITS.queryChars} characters`],
          ["match", "exact (the normalised question) or contains (the phrase)"],
          ["answer", `required; at most ${LIMITS.answerChars} characters`],
          ["sources", `at most ${LIMITS.answerSources} paths of the site's pages`],
        ],
        body: {
          answers: [{
            query: "do you ship to canada",
            answer: "No, we only ship within Europe.",
            sources: ["/shipping"],
          }],
        },
      },
      {
        method: "POST",
        path: `${SITE}/answers/selfcheck`,
        auth: "admin",
        summary:
          "Run the site's own questions (headings that ask, <dt>/<dd>, <details>, FAQPage JSON-LD) through the answerer, for no credit: questions, f1, citedFirst, abstained, worst.",
      },
      {
        method: "GET",
        path: `${SITE}/answers/selfcheck`,
        auth: "admin",
        summary:
          "The last 20 self-check runs, newest first (one also follows each crawl that ends done, with the built-in summarizer).",
      },
      {
        method: "POST",
        path: `${SITE}/levers/preview`,
        auth: "admin",
        summary:
          "Results for a query with and without unsaved synonyms and curations, and the warnings of the pins they add.",
        params: [
          ["q", `required; at most ${LIMITS.queryChars} characters`],
          ["synonyms, curations", "optional; lists as PUT takes them (else the stored ones)"],
        ],
        body: { q: "tee", synonyms: [{ words: ["tee", "t-shirt"] }] },
      },
      {
        method: "GET",
        path: `${SITE}/suggestions`,
        auth: "admin",
        summary:
          "Fixes from the site's own analytics: a synonym for a query that finds little, a pin for a page visitors click far down, or a gap: a query that found nothing for 3 visitors.",
        params: [["days", `1 to ${MAX_DAYS}; default ${DEFAULT_DAYS}`]],
      },
      {
        method: "POST",
        path: `${SITE}/suggestions/dismissed`,
        auth: "admin",
        summary: "Dismiss a suggestion so it is not offered again. Answers 204.",
        params: [
          ["kind", "synonym, pin or gap"],
          ["query", "required"],
          ["to / url", "the synonym's word, or the pinned page's path"],
        ],
        body: { kind: "synonym", query: "tshirt", to: "t-shirt" },
      },
    ],
  },
  {
    id: "operator",
    title: "Operator",
    intro: "Authorization: Bearer with the operator token (SITESEARCH_OPERATOR_TOKEN).",
    endpoints: [
      {
        method: "POST",
        path: "/api/admin/sites",
        auth: "operator",
        summary: "Create a site: answers 201 with its public key and its admin key (shown once).",
        params: [["name", "required"], ["plan", "required"], ["domain", "optional host name"]],
        body: { name: "Example", plan: "free", domain: "www.example.com" },
      },
      {
        method: "GET",
        path: "/api/admin/sites",
        auth: "operator",
        summary: "All sites, by cursor.",
      },
      {
        method: "DELETE",
        path: SITE,
        auth: "operator",
        summary: "Remove a site and all its data.",
      },
      {
        method: "GET",
        path: "/api/admin/stats",
        auth: "operator",
        summary: "The process's own figures: memory, indexes, HTTP connections.",
      },
    ],
  },
];
