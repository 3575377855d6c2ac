/** GET /api/admin/sites/:id/analytics: searches, answers, queries, clicks and feedback by day. */
import { Hono } from "hono";
import { adminTarget } from "../../../lib/http/auth.ts";
import { analyticsReport } from "../../../lib/analytics/report.ts";
import { allowOnly, type AppEnv } from "../../../lib/http/middleware.ts";
import { AnalyticsParams, parse } from "../../../lib/http/schemas.ts";
import type { Services } from "../../../lib/services.ts";

export function adminAnalyticsRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.get("/api/admin/sites/:id/analytics", async (c) => {
    const { site } = await adminTarget(c, s.sites, s.operatorTokenHash);
    const { days, limit } = parse(AnalyticsParams, c.req.query());
    await s.analytics.flush(); // this instance's latest counts, so the owner sees them at once
    return c.json(await analyticsReport(s.kv, s.clock, site.id, days, limit));
  });
  allowOnly(app, "/api/admin/sites/:id/analytics", ["GET"]);
  return app;
}
