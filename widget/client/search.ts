/// <reference lib="dom" />
/** The public API from the browser: search (with a typing session), site settings, click beacons. */
import { WORD_CLASS } from "../../lib/search/engine/analysis/word_chars.ts";
import type {
  Highlight,
  SearchHit as Hit,
  SearchResponse,
  SiteInfo,
} from "../../lib/wire_types.ts";
import { ApiFailure, bodyJson, call } from "./http.ts";

/** Filters to keep to (`[name, value]`, as `filter=name:value`) and whether to count facets. */
export interface Narrow {
  filters?: readonly (readonly [string, string])[];
  facets?: boolean;
}

export interface Api {
  search(
    q: string,
    page?: number,
    perPage?: number,
    signal?: AbortSignal,
    session?: string,
    narrow?: Narrow,
  ): Promise<SearchResponse>;
  /** A page-1 answer already in hand, without asking. */
  cached(q: string, perPage?: number): SearchResponse | undefined;
  site(): Promise<SiteInfo>;
  /** Reports a click on result `position` (from 1) of `query`; never delays the navigation. */
  /** Reports a click on a result: its URL and the `click` token it came with. */
  click(query: string, position: number, target: string, token?: string): void;
  origin: string;
  key: string;
}

/** Answers kept per page; the oldest goes first past this many. */
const CACHED = 60;

/** A client for one key; answers are kept for the page's life, so repeats cost nothing. */
export function api(origin: string, key: string): Api {
  const answers = new Map<string, SearchResponse>();
  let site: Promise<SiteInfo> | null = null;
  const url = (path: string, params: Record<string, string>, filters: Narrow["filters"] = []) => {
    const u = new URL(path, origin);
    for (const [k, v] of Object.entries({ ...params, key })) u.searchParams.set(k, v);
    for (const [name, value] of filters) u.searchParams.append("filter", `${name}:${value}`);
    return u.href;
  };
  const searchUrl = (q: string, page: number, perPage?: number, narrow: Narrow = {}) => {
    const params: Record<string, string> = { q };
    if (page > 1) params.page = String(page);
    if (perPage) params.per_page = String(perPage);
    // Facets cost the server a count over every match: asked for only where they are shown.
    if (!narrow.facets) params.facets = "false";
    return url("/api/search", params, narrow.filters);
  };
  return {
    origin,
    key,
    cached: (q, perPage) => answers.get(searchUrl(q, 1, perPage)),
    async search(q, page = 1, perPage, signal, session, narrow) {
      const href = searchUrl(q, page, perPage, narrow);
      const known = answers.get(href);
      if (known) return known;
      // The typing session only tells the server how to count; the answer is the same.
      const sent = session ? href + "&session=" + session : href;
      // The key travels as a parameter, so a cross-origin GET needs no preflight.
      const data = await bodyJson<SearchResponse>(
        await call(sent, { signal, credentials: "omit" }),
      );
      if (!data || !Array.isArray(data.results) || !data.meta) {
        throw new ApiFailure(500, "BAD_RESPONSE");
      }
      if (answers.size >= CACHED) answers.delete(answers.keys().next().value!);
      answers.set(href, data);
      return data;
    },
    click(query, position, target, token) {
      try {
        const body = JSON.stringify({ type: "click", query, position, url: target, click: token });
        navigator.sendBeacon(url("/api/events", {}), body); // text/plain: no preflight
      } catch { /* analytics are best effort */ }
    },
    site() {
      site ??= call(url("/api/site", {}), { credentials: "omit" }).then((r) =>
        bodyJson<SiteInfo>(r)
      );
      site.catch(() => (site = null));
      return site;
    },
  };
}

/** The query as the server ran it, when `meta.corrections` changed some of its words; else null. */
export function corrected(q: string, data: SearchResponse): string | null {
  const list = Array.isArray(data.meta.corrections) ? data.meta.corrections : [];
  let out = q;
  for (const c of list) {
    const { from, to } = (c ?? {}) as { from?: unknown; to?: unknown };
    if (typeof from !== "string" || typeof to !== "string" || !from) continue;
    const esc = from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const word = new RegExp(`(^|[^${WORD_CLASS}])${esc}(?![${WORD_CLASS}])`, "giu");
    out = out.replace(word, (_, before: string) => before + to);
  }
  return out !== q ? out : null;
}

/** The title, description and body snippet of a hit, each with its matches when it has any. */
export function parts(
  hit: Hit,
): { title: Highlight; description: Highlight | null; body: Highlight | null } {
  const hs = Array.isArray(hit.highlights) ? hit.highlights : [];
  const find = (f: Highlight["field"]) =>
    hs.find((h) => h && h.field === f && typeof h.snippet === "string") ?? null;
  const plain = (field: Highlight["field"], text: unknown): Highlight | null =>
    typeof text === "string" && text ? { field, snippet: text, matches: [] } : null;
  return {
    title: find("title") ?? plain("title", hit.title) ??
      { field: "title", snippet: "", matches: [] },
    description: find("description") ?? plain("description", hit.description),
    body: find("body"),
  };
}
