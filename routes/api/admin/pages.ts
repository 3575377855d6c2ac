/** Admin API for pages: batch upsert with per-item results, list, delete. */
import { withAdmittedFilters } from "../../../lib/sites/filter_vocabulary.ts";
import { type Context, Hono } from "hono";
import { adminTarget } from "../../../lib/http/auth.ts";
import { DomainError } from "../../../lib/errors.ts";
import { asDomainError } from "../../../lib/http/errors.ts";
import { allowOnly, type AppEnv, readJson } from "../../../lib/http/middleware.ts";
import { PLANS } from "../../../lib/limits/plans.ts";
import { ListParams, PageItem, parse, sitePath, UpsertPages } from "../../../lib/http/schemas.ts";
import type { Services } from "../../../lib/services.ts";
import type { WrittenBodies } from "../../../lib/sites/pages.ts";

/** 500 pages of up to 2 M characters would be 1 GB; a request this size is plenty per batch. */
const PAGES_BODY_LIMIT = 32 * 1024 * 1024;

export function adminPageRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  const site = async (c: Context<AppEnv>) =>
    (await adminTarget(c, s.sites, s.operatorTokenHash)).site;

  app.put("/api/admin/sites/:id/pages", async (c) => {
    const target = await site(c);
    const { pages } = parse(UpsertPages, await readJson(c, PAGES_BODY_LIMIT));
    const counts = { created: 0, updated: 0, unchanged: 0, failed: 0 };
    const results = [];
    // What was stored, for this process's index to take without reading it back.
    const written: WrittenBodies = new Map();
    // One at a time: each is its own atomic commit, and a failure never undoes the others.
    for (const [i, raw] of pages.entries()) {
      try {
        const page = parse(PageItem, raw, `pages.${i}.`);
        // The site's filter names and values are bounded: the page keeps what fits.
        const { page: kept, warnings } = await withAdmittedFilters(s.kv, target.id, page);
        const status = await s.pages.upsert(target.id, kept, PLANS[target.plan].maxPages, written);
        counts[status]++;
        results.push({ index: i, url: page.url, status, ...(warnings.length ? { warnings } : {}) });
      } catch (err) {
        const e = asDomainError(err);
        counts.failed++;
        results.push({
          index: i,
          // Echo only a string: any other value could be huge or nested without end.
          url: typeof (raw as { url?: unknown })?.url === "string"
            ? (raw as { url: string }).url.slice(0, 2000)
            : null,
          status: "failed",
          error: { code: e.code, message: e.message, param: e.details.param ?? null },
        });
      }
    }
    if (counts.created + counts.updated > 0) await s.indexes.refresh(target.id, written);
    return c.json({ counts, results });
  });

  app.get("/api/admin/sites/:id/pages", async (c) => {
    const target = await site(c);
    const { cursor, limit } = parse(ListParams, c.req.query());
    try {
      return c.json(await s.pages.list(target.id, { cursor, limit }));
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw new DomainError("INVALID_PARAMETER", "cursor is not valid.", { param: "cursor" });
    }
  });

  app.delete("/api/admin/sites/:id/pages", async (c) => {
    const target = await site(c);
    const url = parse(sitePath, c.req.query("url"), "url");
    if (!(await s.pages.remove(target.id, url))) {
      throw new DomainError("NOT_FOUND", `No page with url ${JSON.stringify(url)}.`, {
        param: "url",
      });
    }
    await s.indexes.refresh(target.id);
    return c.json({ deleted: url });
  });

  allowOnly(app, "/api/admin/sites/:id/pages", ["GET", "PUT", "DELETE"]);
  return app;
}
