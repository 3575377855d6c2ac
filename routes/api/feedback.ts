/** POST /api/feedback: a visitor's vote (and comment) on one AI answer, kept for the site owner. */
import { Hono } from "hono";
import { publicKeyOf } from "../../lib/http/auth.ts";
import { publicSiteFor } from "../../lib/usecases/public_site.ts";
import { recordFeedback } from "../../lib/analytics/feedback.ts";
import { allowOnly, type AppEnv, readJson } from "../../lib/http/middleware.ts";
import { FeedbackBody, parse } from "../../lib/http/schemas.ts";
import type { Services } from "../../lib/services.ts";

const BODY_LIMIT = 4 * 1024;

export function feedbackRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.post("/api/feedback", async (c) => {
    const site = await publicSiteFor(s, publicKeyOf(c), c.req.header("origin"));
    c.set("siteId", site.id);
    const body = parse(FeedbackBody, await readJson(c, BODY_LIMIT));
    await recordFeedback(s.kv, s.clock, site.id, body);
    return c.body(null, 204);
  });
  allowOnly(app, "/api/feedback", ["POST"]);
  return app;
}
