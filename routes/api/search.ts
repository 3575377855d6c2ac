/** GET /api/search: parameters checked here, the search itself in lib/usecases/search_site.ts. */
import { Hono } from "hono";
import { getQueryParams } from "hono/utils/url";
import { invalid } from "../../lib/errors.ts";
import { publicKeyFrom } from "../../lib/http/auth.ts";
import { allowOnly, type AppEnv, clientIp, respond, visitorOf } from "../../lib/http/middleware.ts";
import { FacetsParam, parse, SearchFilters, SearchParams } from "../../lib/http/schemas.ts";
import type { Services } from "../../lib/services.ts";
import { searchSite } from "../../lib/usecases/search_site.ts";

const PATH = "/api/search";

/** Query parameters as one value each; a repeated one is refused rather than guessed. */
function singleParams(all: Record<string, string[]>, names: string[]) {
  const out: Record<string, string> = {};
  for (const name of names) {
    const values = all[name];
    if (!values) continue;
    if (values.length > 1) throw invalid(name, `${name} must be given once.`);
    out[name] = values[0];
  }
  return out;
}

/** What a query string asks besides the key, once checked: the same text asks the same. */
interface Parsed {
  keys: string[];
  params: ReturnType<typeof SearchParams.parse>;
  filters: ReturnType<typeof SearchFilters.parse>;
  facets: boolean;
}

/**
 * Query strings checked lately (a repeated or refined search sends the same one): a request
 * skips decoding and validating what an earlier one of the same text passed. Bounded: cleared
 * when full, and only short query strings without filters are kept (a kept Map is shared).
 */
const checked = new Map<string, Parsed>();
const MAX_CHECKED = 1024;
const MAX_CHECKED_CHARS = 512;

/** Every parameter but the key, checked by the schemas; throws the first refusal. */
function checkParams(all: Record<string, string[]>): Parsed {
  const once = singleParams(all, ["q", "page", "per_page", "session", "facets"]);
  return {
    keys: all.key ?? [],
    params: parse(SearchParams, once),
    filters: parse(SearchFilters, all.filter ?? [], "filter"),
    facets: parse(FacetsParam, once.facets, "facets"),
  };
}

export function searchRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.get(PATH, async (c) => {
    const url = c.req.url;
    const at = url.indexOf("?", 8);
    const query = at < 0 ? "" : url.slice(at);
    let p = checked.get(query), key: string;
    if (p) key = publicKeyFrom(c.req.header("x-api-key"), p.keys);
    else {
      const all = getQueryParams("http://x" + query) as Record<string, string[]>;
      // The key is checked first: its refusals come before the other parameters'.
      key = publicKeyFrom(c.req.header("x-api-key"), all.key ?? []);
      p = checkParams(all);
      if (query.length <= MAX_CHECKED_CHARS && !p.filters.size) {
        if (checked.size >= MAX_CHECKED) checked.clear();
        checked.set(query, p);
      }
    }
    const answer = await searchSite(s, {
      key,
      origin: c.req.header("origin"),
      q: p.params.q,
      page: p.params.page,
      perPage: p.params.per_page,
      session: p.params.session,
      visitor: () => visitorOf(clientIp(c, s.trustedProxies)),
      filters: p.filters,
      facets: p.facets,
      onSite: (id) => c.set("siteId", id),
      asJson: true,
    });
    return respond(c, answer.json, 200, {
      ...answer.headers,
      "Content-Type": "application/json",
    });
  });
  allowOnly(app, PATH, ["GET"]);
  return app;
}
