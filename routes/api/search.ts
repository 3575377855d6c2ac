/** GET /api/search: parameters checked here, the search itself in lib/usecases/search_site.ts. */
import { Hono } from "hono";
import { publicKeyOf } from "../../lib/http/auth.ts";
import { ApiError } from "../../lib/http/errors.ts";
import { allowOnly, type AppEnv, respond } from "../../lib/http/middleware.ts";
import { FacetsParam, parse, SearchFilters, SearchParams } from "../../lib/http/schemas.ts";
import type { Services } from "../../lib/services.ts";
import { searchSite } from "../../lib/usecases/search_site.ts";

/** Query parameters as one value each; a repeated one is refused rather than guessed. */
function singleParams(all: Record<string, string[]>, names: string[]) {
  const out: Record<string, string> = {};
  for (const name of names) {
    const values = all[name];
    if (!values) continue;
    if (values.length > 1) {
      throw new ApiError("INVALID_PARAMETER", `${name} must be given once.`, { param: name });
    }
    out[name] = values[0];
  }
  return out;
}

export function searchRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.get("/api/search", async (c) => {
    const key = publicKeyOf(c);
    const all = c.req.queries();
    const once = singleParams(all, ["q", "page", "per_page", "session", "facets"]);
    const params = parse(SearchParams, once);
    const filters = parse(SearchFilters, all.filter ?? [], "filter");
    const facets = parse(FacetsParam, once.facets, "facets");
    const answer = await searchSite(s, {
      key,
      origin: c.req.header("origin"),
      q: params.q,
      page: params.page,
      perPage: params.per_page,
      session: params.session,
      filters,
      facets,
      onSite: (id) => c.set("siteId", id),
    });
    return respond(c, answer.bytes, 200, {
      ...answer.headers,
      "Content-Type": "application/json",
    });
  });
  allowOnly(app, "/api/search", ["GET"]);
  return app;
}
