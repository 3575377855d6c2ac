/** createApp: the whole service from its dependencies (KV, clock, logger, …). */
import { Hono } from "hono";
import { DomainError } from "./lib/errors.ts";
import {
  type AppEnv,
  corsHeaders,
  errorResponse,
  publicCors,
  requestLog,
} from "./lib/http/middleware.ts";
import { wrongTokens } from "./lib/http/sign_in_limit.ts";
import type { EarlyHandler } from "./lib/http/server/mod.ts";
import { type AppOptions, createServices, type Services } from "./lib/services.ts";
import { adminCrawlRoutes } from "./routes/api/admin/crawl.ts";
import { adminDocumentRoutes } from "./routes/api/admin/documents.ts";
import { adminPageRoutes } from "./routes/api/admin/pages.ts";
import { adminSiteRoutes } from "./routes/api/admin/sites.ts";
import { feedbackRoutes } from "./routes/api/feedback.ts";
import { searchEarly, searchRoutes } from "./routes/api/search.ts";
import { siteRoutes } from "./routes/api/site.ts";
import { summarizeRoutes } from "./routes/api/summarize.ts";
import { eventRoutes } from "./routes/api/events.ts";
import { adminAnalyticsRoutes } from "./routes/api/admin/analytics.ts";
import { adminStatsRoutes } from "./routes/api/admin/stats.ts";
import { adminLeverRoutes } from "./routes/api/admin/levers.ts";
import { sessionAuth } from "./lib/http/session.ts";
import { pageRoutes } from "./routes/pages.tsx";
import { demoRoutes } from "./routes/demo.ts";
import { healthRoutes } from "./routes/health.ts";
import { indexNowRoutes } from "./routes/indexnow.ts";
import { scriptRoutes } from "./routes/scripts.ts";

export type { AppOptions };

/** Headers a page on another origin may read from our public API. */
const EXPOSED = ["RateLimit", "RateLimit-Policy", "Retry-After", "X-Request-Id"];

/**
 * The app, its services, and `early`: the GET /api/search route in the form our HTTP server
 * answers before a Request is made (its `early` option, lib/http/server/mod.ts).
 */
export function createApp(
  opts: AppOptions,
): { app: Hono<AppEnv>; services: Services; early: EarlyHandler } {
  const s = createServices(opts);
  const app = new Hono<AppEnv>();
  const now = () => performance.timeOrigin + performance.now();
  app.use("*", requestLog(s.log, now));
  // Any origin may call the public API; a site's allowedOrigins is enforced per request.
  const corsOptions = {
    methods: ["GET", "POST", "OPTIONS"],
    allowHeaders: ["X-API-Key", "Content-Type"],
    exposeHeaders: EXPOSED,
    maxAgeSeconds: 600,
  };
  const cors = publicCors(corsOptions);
  for (
    const path of ["/api/search", "/api/site", "/api/summarize", "/api/feedback", "/api/events"]
  ) app.use(path, cors);
  app.use("/api/admin/*", wrongTokens(s.signInLimit, s.trustedProxies));
  app.use("/api/admin/*", sessionAuth(s.sessions)); // the dashboard calls the admin API
  app.route("/", healthRoutes(s));
  app.route("/", searchRoutes(s));
  app.route("/", siteRoutes(s));
  app.route("/", adminSiteRoutes(s));
  app.route("/", summarizeRoutes(s));
  app.route("/", feedbackRoutes(s));
  app.route("/", adminPageRoutes(s));
  app.route("/", adminCrawlRoutes(s));
  app.route("/", adminDocumentRoutes(s));
  app.route("/", scriptRoutes(s));
  app.route("/", eventRoutes(s));
  app.route("/", adminAnalyticsRoutes(s));
  app.route("/", adminStatsRoutes(s));
  app.route("/", adminLeverRoutes(s));
  app.route("/", indexNowRoutes(s));
  app.route("/", pageRoutes(s, opts.demo !== false));
  // Production serves no demo site (it would create one on the first visit).
  if (opts.demo !== false) app.route("/", demoRoutes(s));
  app.notFound(() => {
    throw new DomainError("NOT_FOUND", "No such endpoint.");
  });
  app.onError((err, c) => errorResponse(err, c, s.log));
  return { app, services: s, early: searchEarly(s, { now, cors: corsHeaders(corsOptions) }) };
}
