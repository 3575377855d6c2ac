/**
 * Admin API for crawls: start one (202, runs in the background), follow it, page through
 * its skipped or failed URLs, list recent ones; re-fetch named URLs now; say why a URL is
 * or is not searchable.
 */
import { type Context, Hono } from "hono";
import { adminTarget } from "../../../lib/http/auth.ts";
import {
  getCrawlJob,
  jobView,
  listCrawlJobs,
  listCrawlUrls,
  startCrawlJob,
} from "../../../lib/crawl/jobs.ts";
import { DomainError } from "../../../lib/errors.ts";
import { allowOnly, type AppEnv, readJson } from "../../../lib/http/middleware.ts";
import {
  CrawlUrlsParams,
  parse,
  Refetch,
  StartCrawl,
  UrlStatusParams,
} from "../../../lib/http/schemas.ts";
import { refetchUrls } from "../../../lib/crawl/refetch.ts";
import { urlStatus } from "../../../lib/crawl/url_status.ts";
import type { Services } from "../../../lib/services.ts";

const BODY_LIMIT = 16 * 1024;
/** 1,000 URLs of up to 2,000 characters. */
const REFETCH_BODY_LIMIT = 2 * 1024 * 1024 + 16 * 1024;

export function adminCrawlRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  const site = async (c: Context<AppEnv>) =>
    (await adminTarget(c, s.sites, s.operatorTokenHash)).site;

  app.post("/api/admin/sites/:id/crawl", async (c) => {
    const target = await site(c);
    const req = parse(StartCrawl, await readJson(c, BODY_LIMIT));
    const { job } = await startCrawlJob(s, target, req);
    c.header("Location", `/api/admin/sites/${target.id}/crawl/${job.id}`);
    return c.json({ job: { ...jobView(job), skipped: [], failed: [] } }, 202);
  });

  app.get("/api/admin/sites/:id/crawl", async (c) => {
    const target = await site(c);
    return c.json({ jobs: await listCrawlJobs(s, target.id) });
  });

  app.get("/api/admin/sites/:id/crawl/:jobId", async (c) => {
    const target = await site(c);
    const jobId = c.req.param("jobId");
    const job = await getCrawlJob(s, target.id, jobId);
    if (!job) throw new DomainError("NOT_FOUND", `No crawl job with id ${JSON.stringify(jobId)}.`);
    return c.json(job);
  });

  app.get("/api/admin/sites/:id/crawl/:jobId/urls", async (c) => {
    const target = await site(c);
    const { kind, cursor, limit, reason } = parse(CrawlUrlsParams, c.req.query());
    const jobId = c.req.param("jobId");
    const page = await listCrawlUrls(s, target.id, jobId, kind, cursor ?? null, limit, reason);
    if (!page) throw new DomainError("NOT_FOUND", `No crawl job with id ${JSON.stringify(jobId)}.`);
    return c.json(page);
  });

  app.post("/api/admin/sites/:id/recrawl", async (c) => {
    const target = await site(c);
    const { urls } = parse(Refetch, await readJson(c, REFETCH_BODY_LIMIT));
    return c.json(await refetchUrls(s, target, { urls, trigger: "refetch" }), 202);
  });

  app.get("/api/admin/sites/:id/urls/status", async (c) => {
    const target = await site(c);
    const { url } = parse(UrlStatusParams, c.req.query());
    return c.json(await urlStatus(s, target, url));
  });

  allowOnly(app, "/api/admin/sites/:id/crawl", ["GET", "POST"]);
  allowOnly(app, "/api/admin/sites/:id/recrawl", ["POST"]);
  allowOnly(app, "/api/admin/sites/:id/urls/status", ["GET"]);
  allowOnly(app, "/api/admin/sites/:id/crawl/:jobId", ["GET"]);
  allowOnly(app, "/api/admin/sites/:id/crawl/:jobId/urls", ["GET"]);
  return app;
}
