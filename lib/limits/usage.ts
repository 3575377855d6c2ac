/** A site's use of its limits right now: searches this minute and month, AI credits, pages. */
import { type Clock, minuteWindow, monthWindow } from "../clock.ts";
import type { Credits } from "./credits.ts";
import { effectiveLimits, PLANS } from "./plans.ts";
import type { SearchQuota } from "./quota.ts";
import type { PageStore } from "../sites/pages.ts";
import type { Site } from "../sites/store.ts";

/** What the usage figures are read from (the app's services). */
interface UsageSources {
  clock: Clock;
  quota: SearchQuota;
  credits: Credits;
  pages: PageStore;
}

/**
 * What GET /api/admin/sites/:id/usage answers (and the dashboard's meters show). Searches are
 * those used, not reserved: the quota gives back what this instance holds, and waits briefly for
 * other instances' unused units, before it reads the counters.
 */
export async function siteUsage(s: UsageSources, site: Site) {
  const now = s.clock();
  const limits = effectiveLimits(site.plan, site.limits);
  const [searches, credits, index] = await Promise.all([
    s.quota.usage(site.id),
    s.credits.used(site.id),
    s.pages.version(site.id),
  ]);
  const monthEnd = monthWindow(now).resetsAt.toISOString();
  return {
    plan: site.plan,
    performance_profile: PLANS[site.plan].profile,
    minute: {
      used: searches.minute,
      limit: limits.perMinute,
      resets_at: new Date((minuteWindow(now).id + 1) * 60_000).toISOString(),
    },
    month: { used: searches.month, limit: limits.perMonth, resets_at: monthEnd },
    aiCredits: { used: credits, limit: limits.aiCredits, resets_at: monthEnd },
    pages: { count: index.pages, limit: PLANS[site.plan].maxPages },
  };
}
