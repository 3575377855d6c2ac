/** Admin API for sites: create, list (by cursor), read, settings and limits, delete, usage, key rotation. */
import { Hono } from "hono";
import { adminCaller, adminTarget } from "../../../lib/http/auth.ts";
import { DomainError } from "../../../lib/errors.ts";
import { allowOnly, type AppEnv, readJson } from "../../../lib/http/middleware.ts";
import { siteUsage } from "../../../lib/limits/usage.ts";
import { CreateSite, ListParams, parse, PatchSite, RotateKey } from "../../../lib/http/schemas.ts";
import { nextCrawlAt } from "../../../lib/crawl/worker.ts";
import { deleteSite } from "../../../lib/sites/remove.ts";
import type { Services } from "../../../lib/services.ts";
import { publicView } from "../../../lib/sites/store.ts";

const SMALL_BODY = 64 * 1024;
const OPERATOR_FIELDS = ["plan", "limits"] as const;

export function adminSiteRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  const caller = (c: Parameters<typeof adminCaller>[0]) =>
    adminCaller(c, s.sites, s.operatorTokenHash);

  app.post("/api/admin/sites", async (c) => {
    if (!(await caller(c)).operator) {
      throw new DomainError("OPERATOR_ONLY", "Only the operator creates sites.");
    }
    const input = parse(CreateSite, await readJson(c, SMALL_BODY));
    const created = await s.sites.create(input as Parameters<typeof s.sites.create>[0]);
    c.set("siteId", created.site.id);
    return c.json({ ...created, site: publicView(created.site, s.clock()) }, 201);
  });

  app.get("/api/admin/sites", async (c) => {
    if (!(await caller(c)).operator) {
      throw new DomainError("OPERATOR_ONLY", "Only the operator lists all sites.");
    }
    const { cursor, limit } = parse(ListParams, c.req.query());
    let page;
    try {
      page = await s.sites.listPage({ cursor, limit });
    } catch {
      throw new DomainError("INVALID_PARAMETER", "cursor is not valid.", { param: "cursor" });
    }
    return c.json({ sites: page.sites.map((x) => publicView(x, s.clock())), cursor: page.cursor });
  });

  app.get("/api/admin/sites/:id", async (c) => {
    const { site } = await adminTarget(c, s.sites, s.operatorTokenHash);
    return c.json({
      site: { ...publicView(site, s.clock()), nextCrawlAt: await nextCrawlAt(s, site) },
    });
  });

  app.delete("/api/admin/sites/:id", async (c) => {
    const { site, caller: who } = await adminTarget(c, s.sites, s.operatorTokenHash);
    if (!who.operator) throw new DomainError("OPERATOR_ONLY", "Only the operator deletes sites.");
    return c.json({ deleted: site.id, keysRemoved: await deleteSite(s, site) });
  });

  app.patch("/api/admin/sites/:id", async (c) => {
    const { site, caller: who } = await adminTarget(c, s.sites, s.operatorTokenHash);
    const patch = parse(PatchSite, await readJson(c, SMALL_BODY));
    for (const field of OPERATOR_FIELDS) {
      if (patch[field] !== undefined && !who.operator) {
        throw new DomainError("OPERATOR_ONLY", `Only the operator changes ${field}.`, {
          param: field,
        });
      }
    }
    const { name, plan, limits, ...settings } = patch;
    const next = await s.sites.update(site.id, (cur) => ({
      ...cur,
      name: name ?? cur.name,
      plan: (plan as typeof cur.plan | undefined) ?? cur.plan,
      limits: limits ? { ...cur.limits, ...limits } : cur.limits,
      settings: { ...cur.settings, ...settings },
    }));
    return c.json({ site: publicView(next, s.clock()) });
  });

  app.get("/api/admin/sites/:id/usage", async (c) => {
    const { site } = await adminTarget(c, s.sites, s.operatorTokenHash);
    return c.json(await siteUsage(s, site));
  });

  app.post("/api/admin/sites/:id/keys/rotate", async (c) => {
    const { site } = await adminTarget(c, s.sites, s.operatorTokenHash);
    const { key, graceSeconds } = parse(RotateKey, await readJson(c, SMALL_BODY));
    const fresh = await s.sites.rotate(site.id, key, graceSeconds);
    return c.json(
      key === "public"
        ? { publicKey: fresh.key, previousPublicKey: fresh.previousPublicKey }
        : { adminKey: fresh.key },
    );
  });

  allowOnly(app, "/api/admin/sites", ["GET", "POST"]);
  allowOnly(app, "/api/admin/sites/:id", ["GET", "PATCH", "DELETE"]);
  allowOnly(app, "/api/admin/sites/:id/usage", ["GET"]);
  allowOnly(app, "/api/admin/sites/:id/keys/rotate", ["POST"]);
  return app;
}
