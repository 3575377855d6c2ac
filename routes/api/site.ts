/** GET /api/site: the public settings the browser scripts need before they draw. */
import { Hono } from "hono";
import { publicKeyOf } from "../../lib/http/auth.ts";
import { publicSiteFor } from "../../lib/usecases/public_site.ts";
import { allowOnly, type AppEnv } from "../../lib/http/middleware.ts";
import { PLANS } from "../../lib/limits/plans.ts";
import type { Services } from "../../lib/services.ts";

export function siteRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.get("/api/site", async (c) => {
    const site = await publicSiteFor(s, publicKeyOf(c), c.req.header("origin"));
    c.set("siteId", site.id);
    return c.json(
      {
        name: site.name,
        resultsPage: site.settings.resultsPage,
        aiSummaries: site.settings.aiSummaries,
        followups: PLANS[site.plan].followups && site.settings.followups,
        performance_tier: site.plan,
        // The visitor strings' language where the host page names none (docs/api.md, visitor strings).
        lang: site.settings.lang ?? null,
      },
      200,
      { "Cache-Control": "public, max-age=60", Vary: "X-API-Key, Origin" },
    );
  });
  allowOnly(app, "/api/site", ["GET"]);
  return app;
}
