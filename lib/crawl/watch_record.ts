/**
 * What the sitemap watch (watch.ts) looks at for a site: the sitemaps a crawl of the whole site
 * read, whether the site is crawled from its sitemap alone, when the next look is due (indexed
 * by time, so the minute's check reads only what is due) and what the last look found.
 */
import type { SitemapWatchJson } from "../wire_types.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

const PAID_EVERY_MS = 15 * 60_000;
const FREE_EVERY_MS = 24 * 3600_000;
/** Top-level sitemaps a site's watch reads (the start URL, or those robots.txt names). */
export const MAX_WATCHED_SITEMAPS = 5;

export interface WatchRecord {
  /** Sitemaps to read, absolute. */
  sitemaps: string[];
  /** The site's crawl reads only its sitemap: a page it no longer lists is gone. */
  removes: boolean;
  /** The origin the site's pages were crawled from (their records are kept per origin). */
  origin: string;
  lastLookedAt: number | null;
  nextAt: number;
  found: { changed: number; added: number; removed: number } | null;
  error: string | null;
}

export const watchKey = (site: string) => ["sitemapwatch", site];
/** Watches by when they are due: the minute's check reads only those due. */
export const dueKey = (at: number, site: string) => ["sitemapdue", at, site];

export const everyMs = (site: Site) => site.plan === "free" ? FREE_EVERY_MS : PAID_EVERY_MS;

/**
 * Called at the end of a crawl of the whole site: what to watch from now on (nothing, when the
 * crawl read no sitemap), its next look one period after this crawl.
 */
export async function watchAfterCrawl(
  s: Services,
  site: Site,
  crawl: { sitemaps: string[]; sitemapOnly: boolean; origin: string },
) {
  const entry = await s.kv.get<WatchRecord>(watchKey(site.id));
  const op = s.kv.atomic().check(entry);
  if (entry.value) op.delete(dueKey(entry.value.nextAt, site.id));
  if (!crawl.sitemaps.length) {
    await op.delete(watchKey(site.id)).commit();
    return;
  }
  const nextAt = s.clock() + everyMs(site);
  const rec: WatchRecord = {
    sitemaps: crawl.sitemaps.slice(0, MAX_WATCHED_SITEMAPS),
    removes: crawl.sitemapOnly,
    origin: crawl.origin,
    lastLookedAt: entry.value?.lastLookedAt ?? null,
    nextAt,
    found: entry.value?.found ?? null,
    error: null,
  };
  await op.set(watchKey(site.id), rec).set(dueKey(nextAt, site.id), true).commit();
}

/** The site's watch as the dashboard shows it. */
export async function sitemapWatchOf(s: Services, site: Site): Promise<SitemapWatchJson> {
  const rec = (await s.kv.get<WatchRecord>(watchKey(site.id))).value;
  const iso = (t: number | null | undefined) => t ? new Date(t).toISOString() : null;
  return {
    sitemap: rec?.sitemaps[0] ?? null,
    every: site.plan === "free" ? "daily" : "15m",
    lastLookedAt: iso(rec?.lastLookedAt),
    nextAt: iso(rec?.nextAt),
    found: rec?.found ?? null,
    error: rec?.error ?? null,
  };
}
