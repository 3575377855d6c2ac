/**
 * GET /search-results: the islands results page demo. The first page of results is searched and
 * rendered on the server (counted like any search), so it works without JavaScript and its URL
 * can be shared; the search box, the results and the AI answer then hydrate as islands.
 * `filters=section,category` shows those names' facets as chips; each chosen value is a
 * `filter=name:value` parameter, as GET /api/search takes it.
 */
import { Hono } from "hono";
import { Island } from "../components/Island.tsx";
import { pageResponse, renderPage } from "../components/render.tsx";
import { failureLine, T } from "../components/T.tsx";
import { corrected } from "../widget/client/search.ts";
import { t } from "../widget/client/strings.ts";
import type { Hit } from "../islands/api.ts";
import { demoPublicKey } from "../lib/demo/site.ts";
import { invalidSearchKey } from "../lib/errors.ts";
import { asDomainError, errorObject } from "../lib/http/errors.ts";
import { allowOnly, type AppEnv } from "../lib/http/middleware.ts";
import {
  DEFAULT_PER_PAGE,
  MAX_PAGE,
  MAX_SEARCH_FILTERS,
  SearchFilters,
} from "../lib/http/schemas.ts";
import type { Services } from "../lib/services.ts";
import { MAX_QUERY_CHARS } from "../lib/wire_types.ts";
import { isPublicKey } from "../lib/sites/keys.ts";
import type { Site } from "../lib/sites/store.ts";
import { siteBaseUrl } from "../lib/sites/base_url.ts";
import { searchSite } from "../lib/usecases/search_site.ts";

const PATH = "/search-results";

/** A page that says how to use this one: production mode has no demo site to fall back on. */
function NoKey() {
  return (
    <section class="card-panel nokey">
      <h1>Search results</h1>
      <p>
        This page shows a site's search results. Add the site's public search key to the address:
      </p>
      <pre class="code"><code>{`${PATH}?key=pk_YOUR_PUBLIC_KEY&q=your+search`}</code></pre>
      <p class="muted">
        Site owners find the public key in the <a href="/dashboard">dashboard</a>, under Keys. The
        {" "}
        <a href="/docs/api">API reference</a> shows the same search as an API call.
      </p>
    </section>
  );
}

/** The visitor's line for a refusal, read from its envelope as the browser reads an API error. */
const failure = (lang: string | undefined, err: unknown) =>
  failureLine(lang, errorObject(asDomainError(err), ""));

/** `demo`: without ?key= the demo site is searched; production mode says to add a key instead. */
export function resultsPageRoutes(s: Services, demoMode: boolean) {
  const app = new Hono<AppEnv>();

  app.get(PATH, async (c) => {
    const given = c.req.query("key") ?? "";
    if (!given && !demoMode) {
      return pageResponse(
        renderPage({ title: "Search results · SiteSearch", path: PATH, body: <NoKey /> }),
        401,
      );
    }
    const demo = given ? null : await demoPublicKey(s);
    const key = given || demo?.key || "";
    // Lenient where the API refuses: a shared link with a long query or odd page still shows.
    const q = [...(c.req.query("q") ?? "").trim()].slice(0, MAX_QUERY_CHARS).join(""); // whole characters
    const page = Math.min(MAX_PAGE, Math.max(1, Math.floor(Number(c.req.query("page")) || 1)));

    // The visitor strings' language: ?lang=, else the site's own (docs/api.md, visitor strings).
    const cached = isPublicKey(key) ? await s.sites.byPublicKeyCached(key) : null;
    const lang = c.req.query("lang") ?? cached?.settings.lang ?? undefined;
    // Lenient too: a filter that does not parse is left out rather than refused.
    const facetNames = (c.req.query("filters") ?? "").split(",").map((n) => n.trim())
      .filter(Boolean).slice(0, MAX_SEARCH_FILTERS);
    const chosen = (c.req.queries("filter") ?? []).slice(0, MAX_SEARCH_FILTERS)
      .flatMap((f) => {
        const one = SearchFilters.safeParse([f]);
        return one.success ? [...one.data].map(([n, v]) => [n, v[0]] as [string, string]) : [];
      });
    let facets: Record<string, { value: string; count: number }[]> = {};
    let site: Site | null = null;
    let error: string | null = null;
    let data = {
      found: 0,
      hits: null as Hit[] | null,
      perPage: DEFAULT_PER_PAGE,
      fixed: null as string | null,
    };
    if (!key) error = "Give a site's public key as ?key=pk_… to search it.";
    else if (!isPublicKey(key)) error = failure(lang, invalidSearchKey());
    else if (q) {
      // The same use case as GET /api/search: key (grace periods too), origin, quota, analytics.
      try {
        const found = await searchSite(s, {
          key,
          origin: c.req.header("origin"),
          q,
          page,
          perPage: DEFAULT_PER_PAGE,
          filters: SearchFilters.parse(chosen.map(([n, v]) => `${n}:${v}`)),
          facets: facetNames.length > 0,
          onSite: (id) => c.set("siteId", id),
        });
        site = found.site;
        facets = found.response.meta.facets ?? {};
        data = {
          found: found.found,
          hits: found.response.results,
          perPage: found.perPage,
          fixed: corrected(q, found.response),
        };
      } catch (e) {
        error = failure(lang, e);
      }
    }
    // The page's name and links, also when nothing was searched or the search was refused.
    if (!site) site = cached;
    if (key && !site) error ??= failure(lang, invalidSearchKey());
    const baseUrl = site && site.id === demo?.siteId ? "/demo" : siteBaseUrl(site);
    const hrefBase = new URLSearchParams({
      ...(given ? { key } : {}),
      ...(facetNames.length ? { filters: facetNames.join(",") } : {}),
    }).toString();
    const title = () =>
      q
        ? `${q} · ${t("search")} · ${site?.name ?? "SiteSearch"}`
        : `${t("search")} · ${site?.name ?? "SiteSearch"}`;
    const body = (
      <div class="results-page">
        <h1>
          <T k="search" /> {site ? <span class="muted">{site.name}</span> : null}
        </h1>
        <Island
          name="SearchBox"
          props={{ apiKey: key, q, action: PATH, baseUrl, keyInForm: !!given }}
        />
        <div class="results-layout">
          <Island
            name="Results"
            props={{
              apiKey: key,
              q,
              page,
              perPage: data.perPage,
              baseUrl,
              results: data.hits,
              found: data.found,
              fixed: data.fixed,
              error,
              hrefBase,
              facetNames,
              facets,
              chosen,
            }}
          />
          <Island
            name="Answer"
            props={{ apiKey: key, q, enabled: !!site?.settings.aiSummaries && !error, baseUrl }}
          />
        </div>
      </div>
    );
    const status = !key || !site ? 401 : 200;
    return pageResponse(renderPage({ title, path: PATH, body, lang, demo: demoMode }), status);
  });
  allowOnly(app, PATH, ["GET"]);
  return app;
}
