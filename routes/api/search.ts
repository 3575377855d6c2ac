/** GET /api/search: key, origin, parameters, quota, then the site's index. */
import { Hono } from "hono";
import { originError, publicSiteHint } from "../../lib/http/auth.ts";
import { ApiError } from "../../lib/http/errors.ts";
import { allowOnly, type AppEnv, respond } from "../../lib/http/middleware.ts";
import { PLANS } from "../../lib/limits/plans.ts";
import { ResultCache } from "../../lib/search/result_cache.ts";
import { rateLimitHeaders } from "../../lib/limits/quota.ts";
import { parse, SearchParams } from "../../lib/http/schemas.ts";
import type { Services } from "../../lib/services.ts";
import { acceptsPublicKey } from "../../lib/sites/store.ts";

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

const encoder = new TextEncoder();
/** How long a key's site is taken from the cache without a read (keys are checked fresh after). */
const KEY_HINT_MS = 60_000;

export function searchRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.get("/api/search", async (c) => {
    // The key names the site; whether it still opens it, and from this origin, the quota
    // decides on a read at most 1 s old: a cached name saves a KV round trip per visit.
    const { site: cached, key } = await publicSiteHint(c, s.sites, KEY_HINT_MS);
    c.set("siteId", cached.id);
    const params = parse(
      SearchParams,
      singleParams(c.req.queries(), ["q", "page", "per_page", "session"]),
    );
    const origin = c.req.header("origin");
    const session = params.session ? { id: params.session, q: params.q } : undefined;
    // From this instance's reserved block at once, or after one refill (lib/limits/quota.ts).
    const admitted = s.quota.admit(cached.id, (fresh) => {
      if (!fresh || !acceptsPublicKey(fresh, key, s.clock())) {
        return new ApiError("INVALID_API_KEY", "The search key is not valid.");
      }
      return originError(fresh, origin);
    }, session);
    const { site, state } = admitted instanceof Promise ? await admitted : admitted;
    s.sites.remember(site);
    const perPage = Math.min(params.per_page, state.limits.maxPerPage);
    // The index version is part of the key: no answer from before an upsert or delete comes back.
    // So is the version of the site's synonyms and curations: a change shows at once.
    const [index, levers] = await Promise.all([
      s.indexes.reader(site.id),
      s.levers.forQuery(site.id, params.q),
    ]);
    const cacheKey = ResultCache.key(
      site.id,
      index.version,
      site.plan,
      params.q,
      params.page,
      perPage,
      levers.version,
    );
    let answer = s.resultCache.get(cacheKey);
    if (!answer) {
      const { found, hits, corrections } = await index.search(
        params.q,
        params.page,
        perPage,
        levers,
      );
      const body = {
        results: hits,
        meta: {
          found,
          page: params.page,
          per_page: perPage,
          performance_tier: site.plan,
          performance_profile: PLANS[site.plan].profile,
          // The query words replaced by words the pages use ("Showing results for …").
          ...(corrections.length ? { corrections } : {}),
        },
      };
      answer = { bytes: encoder.encode(JSON.stringify(body)), found };
      s.resultCache.set(cacheKey, answer);
    }
    if (params.page === 1) s.analytics.search(site.id, params.q, answer.found); // in memory; batched
    return respond(c, answer.bytes, 200, {
      ...rateLimitHeaders(state),
      "Content-Type": "application/json",
    });
  });
  allowOnly(app, "/api/search", ["GET"]);
  return app;
}
