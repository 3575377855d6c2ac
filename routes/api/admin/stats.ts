/**
 * GET /api/admin/stats (operator only): this process's memory beside what its search indexes
 * are counted to hold (`estimatedBytes`, a name kept for clients), how often indexes were
 * loaded, built and evicted, and the quota's KV work (admissions, those that waited for a round
 * trip, reads, commits, conflicts), and the HTTP server's connection counts. `textSpill`: the
 * bytes of page text the indexes keep in a file rather than memory, and the file's size. With several
 * workers each answers for itself. `?gc=1` collects garbage first where the platform tuning
 * is on and V8's gc exposed (`deno task start:tuned`), so `memory` then shows what is live.
 */
import { Hono } from "hono";
import { z } from "zod";
import { adminCaller } from "../../../lib/http/auth.ts";
import { DomainError } from "../../../lib/errors.ts";
import { allowOnly, type AppEnv } from "../../../lib/http/middleware.ts";
import { parse } from "../../../lib/http/schemas.ts";
import type { Services } from "../../../lib/services.ts";
import type { SearchIndexes } from "../../../lib/search/mod.ts";

const StatsParams = z.object({ gc: z.enum(["0", "1"]).optional() });

const indexStats = (ix: SearchIndexes) => {
  const { sites, bytes } = ix.held();
  const { loaded, built } = ix.opened, { evicted, loadMs, buildMs } = ix.churn;
  return {
    inMemory: sites,
    estimatedBytes: bytes,
    loaded,
    built,
    evicted,
    loadMs: Math.round(loadMs),
    buildMs: Math.round(buildMs),
  };
};

export function adminStatsRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.get("/api/admin/stats", async (c) => {
    if (!(await adminCaller(c, s.sites, s.operatorTokenHash)).operator) {
      throw new DomainError("OPERATOR_ONLY", "Only the operator reads the process's figures.");
    }
    const { gc } = parse(StatsParams, c.req.query());
    const collected = gc === "1" && s.collectGarbage();
    const { rss, heapUsed, heapTotal, external } = Deno.memoryUsage();
    c.header("Cache-Control", "no-store");
    return c.json({
      pid: Deno.pid,
      collected,
      memory: { rss, heapUsed, heapTotal, external },
      indexes: {
        budgetBytes: s.indexes.budgetBytes,
        pages: indexStats(s.indexes),
        documents: indexStats(s.documentIndexes),
        // The indexes' page text kept in a file rather than memory (null: kept in memory).
        textSpill: s.textSpill?.stats() ?? null,
      },
      // Searches admitted, how many waited for a KV round trip, and the KV work behind them.
      quota: { ...s.quota.stats },
      // Our HTTP server's connections, evictions and refusals (null under Deno.serve).
      http: s.httpFront?.() ?? null,
    });
  });
  allowOnly(app, "/api/admin/stats", ["GET"]);
  return app;
}
