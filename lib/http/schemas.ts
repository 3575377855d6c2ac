/** One zod schema per request shape, shared by routes and tests. */
import { MAX_FEEDBACK_COMMENT_CHARS as MAX_COMMENT_CHARS, MAX_QUERY_CHARS } from "../wire_types.ts";
import { z } from "zod";
import { invalid } from "../errors.ts";
import { PLAN_NAMES } from "../limits/plans.ts";
import { DEFAULT_DAYS, DEFAULT_LIMIT, MAX_DAYS, MAX_LIMIT } from "../analytics/report.ts";
import { MAX_PATTERN, MAX_PATTERNS, patternError } from "../crawl/patterns.ts";
import { FILTER_LIMITS, FILTER_NAME, filtersError } from "../sites/filters.ts";

/** Parses `data` or throws INVALID_PARAMETER naming the first bad field. */
export function parse<T extends z.ZodType>(schema: T, data: unknown, prefix = ""): z.output<T> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  // A segment written "[n]" is an index (a pattern's, as docs/api.md names it): no dot before it.
  const name = (prefix + issue.path.map(String).join(".")).replace(/\.(?=\[)|\.$/g, "");
  const bare = issue.message.split(" ")[0] === name.split(".").at(-1);
  throw invalid(name, bare || !name ? issue.message : `${name}: ${issue.message}`);
}

/** A whole number written in digits, within [min, max]. */
const wholeNumber = (name: string, min: number, max: number) =>
  z.string().regex(/^\d{1,12}$/, `${name} must be a whole number`).transform(Number)
    .refine((n) => n >= min, `${name} must be at least ${min}`)
    .refine((n) => n <= max, `${name} must be at most ${max}`);

const codePoints = (s: string) => [...s].length;

export const MAX_PAGE = 1000;
/** Results per page when none is asked (spec: 10, capped by the plan). */
export const DEFAULT_PER_PAGE = 10;

/** GET /api/search parameters (after repeated ones were refused). */
export const SearchParams = z.object({
  q: z.string({ error: "q is required" }).transform((s) => s.trim())
    .refine((s) => s.length > 0, "q must not be empty")
    .refine(
      (s) => codePoints(s) <= MAX_QUERY_CHARS,
      `q must be at most ${MAX_QUERY_CHARS} characters`,
    ),
  page: wholeNumber("page", 1, MAX_PAGE).optional().transform((n) => n ?? 1),
  per_page: wholeNumber("per_page", 1, 1000).optional().transform((n) => n ?? DEFAULT_PER_PAGE),
  /** A live typing session's id (lib/limits/sessions.ts, lib/analytics/typing.ts). */
  session: z.string().regex(
    /^[A-Za-z0-9_-]{8,64}$/,
    "session must be 8 to 64 letters, digits, _ or -",
  )
    .optional(),
});

/** Filters in one search (`filter=` given at most this many times). */
export const MAX_SEARCH_FILTERS = 20;

/** `filter=NAME:VALUE` parameters → name → values (OR-ed within a name, AND-ed across names). */
export const SearchFilters = z.array(z.string()).max(
  MAX_SEARCH_FILTERS,
  `filter may be given at most ${MAX_SEARCH_FILTERS} times`,
).transform((list, ctx) => {
  const out = new Map<string, string[]>();
  for (const f of list) {
    const at = f.indexOf(":");
    const name = f.slice(0, at), value = f.slice(at + 1).trim();
    if (at < 1 || !FILTER_NAME.test(name) || !value || [...value].length > FILTER_LIMITS.chars) {
      ctx.addIssue({
        code: "custom",
        message: `filter must be NAME:VALUE (a name of letters, digits, _, - or ., a value ` +
          `of 1 to ${FILTER_LIMITS.chars} characters), not "${f.slice(0, 80)}"`,
      });
      return z.NEVER;
    }
    const values = out.get(name) ?? [];
    if (!values.includes(value)) values.push(value);
    out.set(name, values);
  }
  return out;
});

/** `facets=true|false` (default true). */
export const FacetsParam = z.enum(["true", "false"], { error: "facets must be true or false" })
  .optional().transform((s) => s !== "false");

const plan = z.enum(PLAN_NAMES as [string, ...string[]], {
  error: `plan must be one of ${PLAN_NAMES.join(", ")}`,
});

/** A browser origin such as "https://example.com" (scheme, host, optional port). */
const origin = z.string().max(300).refine((s) => {
  try {
    const u = new URL(s);
    return (u.protocol === "https:" || u.protocol === "http:") && u.origin === s;
  } catch {
    return false;
  }
}, "must be an origin like https://example.com, without a path or a trailing slash");

/** A site-relative path: "/", "/pricing", "/blog/post#section". */
export const sitePath = z.string().min(1).max(1000).refine(
  // A KV key holds at most 2 KiB; the path is part of one.
  (s) => new TextEncoder().encode(s).length <= 1000,
  "must be at most 1000 bytes in UTF-8",
).refine(
  // deno-lint-ignore no-control-regex -- control characters are exactly what we refuse
  (s) => s.startsWith("/") && !s.startsWith("//") && !/[\s\u0000-\u001f\u007f\\]/.test(s),
  "must be a site-relative path starting with / (no spaces, no //)",
);

export const CreateSite = z.object({
  name: z.string().trim().min(1).max(200),
  plan,
  domain: z.string().trim().max(253).regex(/^[a-z0-9.-]+(:\d+)?$/i, "must be a host name")
    .nullable().optional(),
}).strict();

const limitValue = z.number().int().min(0).max(1e12).nullable().optional();

/** Include or exclude URL patterns of crawls (lib/crawl/patterns.ts says what they match). */
function urlPatterns(name: string) {
  return z.array(z.string({ error: `${name} must hold strings` }).min(1).max(MAX_PATTERN), {
    error: `${name} must be an array of URL patterns`,
  }).max(MAX_PATTERNS, `${name} takes at most ${MAX_PATTERNS} patterns`).superRefine(
    (list, ctx) => {
      const error = patternError(list);
      if (error) {
        ctx.addIssue({ code: "custom", message: error.message, path: [`[${error.index}]`] });
      }
    },
  );
}

export const PatchSite = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  aiSummaries: z.boolean().optional(),
  externalKnowledge: z.boolean().optional(),
  followups: z.boolean().optional(),
  allowedOrigins: z.array(origin).max(50).optional(),
  resultsPage: sitePath.optional(),
  lang: z.string().regex(/^[a-z]{2,3}$/, "lang must be a language code such as en, de or ja")
    .nullable().optional(),
  recrawl: z.enum(["daily", "weekly"], { error: "recrawl must be daily, weekly or null" })
    .nullable().optional(),
  include: urlPatterns("include").optional(),
  exclude: urlPatterns("exclude").optional(),
  plan: plan.optional(),
  limits: z.object({
    searchesPerMinute: limitValue,
    searchesPerMonth: limitValue,
    aiCreditsPerMonth: limitValue,
    maxPerPage: z.number().int().min(1).max(1000).nullable().optional(),
  }).strict().optional(),
}).strict();

export const MAX_BODY_CHARS = 2_000_000;

/** Text that came as valid UTF-8 (readJson turns invalid bytes into lone surrogates). */
const NOT_UTF8 = (name: string) => `${name} is not valid UTF-8 text; send it encoded as UTF-8`;

export const PageItem = z.object({
  url: sitePath.refine((s) => s.isWellFormed(), NOT_UTF8("url")),
  title: z.string().trim().min(1).max(500).refine((s) => s.isWellFormed(), NOT_UTF8("title")),
  description: z.string().max(1000).refine((s) => s.isWellFormed(), NOT_UTF8("description"))
    .optional(),
  body: z.string().max(MAX_BODY_CHARS, `body must be at most ${MAX_BODY_CHARS} characters`)
    .refine((s) => s.isWellFormed(), NOT_UTF8("body")),
  headings: z.array(z.string().max(200)).max(200).optional(),
  /** Sections in reading order; each heading is a line of the body where its section starts. */
  sections: z.array(
    z.object({ heading: z.string().max(200), anchor: z.string().max(200) }).strict(),
  ).max(1000).optional(),
  lang: z.string().regex(
    /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/,
    "must be a language tag like en or pt-BR",
  )
    .optional(),
  /** The page's own filters: `{"category": ["Brewing", "Guides"]}` (lib/sites/filters.ts). */
  filters: z.record(z.string(), z.array(z.string()))
    .superRefine((f, ctx) => {
      const why = filtersError(f);
      if (why) ctx.addIssue({ code: "custom", message: why });
    }).optional(),
}).strict();

export const UpsertPages = z.object({
  pages: z.array(z.unknown()).min(1, "pages must not be empty").max(
    500,
    "at most 500 pages at once",
  ),
}).strict();

const MAX_QUESTION_CHARS = 600;

/** POST /api/summarize; unknown fields (model, max_tokens, …) are ignored. */
export const SummaryBody = z.object({
  query: z.string({ error: "query is required and must be a string" }).transform((s) => s.trim())
    .refine((s) => s.length > 0, "query must not be empty")
    .refine(
      (s) => codePoints(s) <= MAX_QUESTION_CHARS,
      `query must be at most ${MAX_QUESTION_CHARS} characters`,
    ),
  mode: z.enum(["initial", "followup"], { error: "mode must be initial or followup" }).default(
    "initial",
  ),
  stream: z.boolean({ error: "stream must be true or false" }).default(false),
  conversationId: z.string({ error: "conversationId must be a string" }).max(100).optional(),
}).refine((b) => b.mode !== "followup" || b.conversationId, {
  message: "conversationId is required for a follow-up",
  path: ["conversationId"],
});

/** A rotated-out public key works this long unless the call says otherwise (docs/api.md, Keys). */
export const DEFAULT_GRACE_SECONDS = 86_400;

export const RotateKey = z.object({
  key: z.enum(["public", "admin"]),
  graceSeconds: z.number({ error: "graceSeconds must be a whole number" }).int()
    .min(0, "graceSeconds must be at least 0").max(604_800, "graceSeconds must be at most 604800")
    .optional(),
}).strict().refine((r) => r.key === "public" || !r.graceSeconds, {
  message: "graceSeconds applies to the public key only; admin keys rotate at once.",
  path: ["graceSeconds"],
}).transform((r) => ({
  key: r.key,
  graceSeconds: r.graceSeconds ?? (r.key === "public" ? DEFAULT_GRACE_SECONDS : 0),
}));

export const ListParams = z.object({
  cursor: z.string().max(500).optional(),
  limit: wholeNumber("limit", 1, 1000).optional().transform((n) => n ?? 100),
});

/** POST /api/admin/sites/:id/crawl: a sitemap or start page, and optionally fewer pages. */
export const StartCrawl = z.object({
  url: z.string({ error: "url is required" }).trim().min(1, "url is required")
    .max(2000, "url must be at most 2,000 characters")
    .refine((s) => URL.canParse(s), "url must be an absolute URL such as https://example.com/")
    .refine(
      (s) => ["http:", "https:"].includes(URL.parse(s)?.protocol ?? "http:"),
      "url must use http or https",
    ),
  maxPages: z.number({ error: "maxPages must be a whole number" }).int().min(1).optional(),
  include: urlPatterns("include").optional(),
  exclude: urlPatterns("exclude").optional(),
}).strict();

/** Query of GET /api/admin/sites/:id/crawl/:jobId/urls: one list, paged by cursor. */
export const CrawlUrlsParams = z.object({
  kind: z.enum(["skipped", "failed"], { error: "kind must be skipped or failed" }),
  cursor: z.string().regex(/^\d{1,9}$/, "cursor must be a cursor this endpoint answered")
    .optional(),
  limit: wholeNumber("limit", 1, 1000).optional().transform((n) => n ?? 100),
  reason: z.string().regex(/^[a-z0-9_]{1,40}$/, "reason must be a reason a crawl reports")
    .optional(),
});

/** Body of POST /api/admin/sites/:id/recrawl: the site's own URLs to fetch now. */
export const Refetch = z.object({
  urls: z.array(z.string({ error: "each of urls must be a string" }), {
    error: "urls must be a list of the site's URLs",
  }).min(1, "urls must name at least one URL of the site")
    .max(1000, "urls takes at most 1,000 URLs"),
}).strict();

/** Query of GET /api/admin/sites/:id/urls/status. */
export const UrlStatusParams = z.object({
  url: z.string({ error: "url is required: a path such as /about or a URL of the site" }),
});

/** Query of POST /api/admin/sites/:id/documents. */
export const DocumentParams = z.object({
  title: z.string().trim().min(1, "title must not be empty").max(500).optional(),
});

/** POST /api/feedback body: a vote on one answered turn, with an optional short comment. */
export const FeedbackBody = z.object({
  conversationId: z.string({ error: "conversationId is required and must be a string" })
    .min(1, "conversationId must not be empty").max(100, "conversationId is too long"),
  turn: z.number({ error: "turn is required and must be a number" })
    .int("turn must be a whole number").min(1, "turn must be at least 1")
    .max(1000, "turn must be at most 1000"),
  helpful: z.boolean({ error: "helpful is required and must be true or false" }),
  comment: z.string({ error: "comment must be a string" })
    .refine(
      (s) => codePoints(s) <= MAX_COMMENT_CHARS,
      `comment must be at most ${MAX_COMMENT_CHARS} characters`,
    ).optional(),
});

/** POST /api/events: a click on a search result (position counted from 1). */
export const ClickEvent = z.object({
  type: z.literal("click", { error: "type must be click" }),
  query: z.string({ error: "query is required" }).trim().min(1, "query must not be empty")
    .max(MAX_QUERY_CHARS, `query must be at most ${MAX_QUERY_CHARS} characters`),
  position: z.number({ error: "position must be a whole number" })
    .int("position must be a whole number").min(1, "position must be at least 1")
    .max(MAX_PAGE * 100, "position is too large"),
  url: z.string({ error: "url is required" }).min(1).max(2000),
  /** The result's `click` token; without a valid one the click is accepted and not counted. */
  click: z.string().max(64).optional(),
}).strict();

/** GET /api/admin/sites/:id/analytics. */
export const AnalyticsParams = z.object({
  days: wholeNumber("days", 1, MAX_DAYS).optional().transform((n) => n ?? DEFAULT_DAYS),
  limit: wholeNumber("limit", 1, MAX_LIMIT).optional().transform((n) => n ?? DEFAULT_LIMIT),
});
