/**
 * Re-fetching named URLs now, out of any running crawl: a job of its own that fetches only
 * those URLs (crawler.ts `named`), run on a lease by whichever instance sweeps first, like
 * every crawl (leases.ts), beside the site's crawl if one runs. A changed page is stored and
 * searchable within seconds; one now gone (404, 410, noindex, redirected away) leaves the
 * index. What an owner names, an IndexNow ping lists, and what the sitemap watch finds
 * changed all come here.
 */
import {
  type CrawlTrigger,
  jobKey,
  newJob,
  recentKey,
  refetchLockKey,
  refetchLockPrefix,
  type SiteCrawlInfo,
  siteCrawlKey,
  TTL,
} from "./job_record.ts";
import { type UrlMark, urlPrefix } from "./checkpoint.ts";
import { pathOf, siteKeyOf } from "./http.ts";
import { emptyCounts } from "./report.ts";
import { kick } from "./leases.ts";
import { commitBatches, keyFits } from "../storage/kv_limits.ts";
import { DomainError, invalid } from "../errors.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

/** URLs one call may name (API.md). */
export const MAX_REFETCH_URLS = 1000;
/** Re-fetch jobs a site may have waiting or running at once: a flood waits, others go on. */
export const MAX_LIVE_REFETCHES = 10;
const MAX_URL_CHARS = 2000;
const MAX_PATH_CHARS = 1000;
/** Room a URL's mark key leaves under KV's key limit (as the crawl's own marks do). */
const KEY_SPARE = 512;

export interface RefetchRequest {
  /** Paths (`/a`) or absolute URLs of the site's crawl host. */
  urls: string[];
  /** Who asked: the owner, an IndexNow ping, or the sitemap watch. */
  trigger: Extract<CrawlTrigger, "refetch" | "indexnow" | "watch">;
  /** Sitemap lastmod (ms) per absolute URL, recorded with the page for the next crawl. */
  lastmods?: Map<string, number>;
}

/** Where the site's crawls fetch from: the origin it answered from, else its last start URL. */
export async function crawlOriginOf(s: Services, site: Site): Promise<string | null> {
  if (site.crawlOrigin) return site.crawlOrigin;
  const info = (await s.kv.get<SiteCrawlInfo>(siteCrawlKey(site.id))).value;
  return info ? new URL(info.url).origin : null;
}

/**
 * Queues a re-fetch of the site's own URLs (at most 1,000 per call), out of any running
 * crawl; answers how many distinct URLs are queued.
 */
export async function refetchUrls(
  s: Services,
  site: Site,
  req: RefetchRequest,
): Promise<{ queued: number }> {
  if (!req.urls.length) throw invalid("urls", "urls must name at least one URL of the site.");
  if (req.urls.length > MAX_REFETCH_URLS) {
    throw invalid("urls", `urls takes at most ${MAX_REFETCH_URLS.toLocaleString("en")} URLs.`);
  }
  const origin = await crawlOriginOf(s, site);
  if (!origin) {
    throw invalid(
      "urls",
      "The site has not been crawled yet: start a crawl first, then re-fetch pages as they change.",
    );
  }
  const byOrigin = new Map<string, URL[]>();
  const met = new Set<string>();
  req.urls.forEach((raw, i) => {
    const u = siteUrl(raw, origin, `urls[${i}]`);
    if (met.has(u.href)) return;
    met.add(u.href);
    const group = byOrigin.get(u.origin) ?? [];
    byOrigin.set(u.origin, [...group, u]);
  });
  await checkRoom(s, site.id, byOrigin.size);
  for (const urls of byOrigin.values()) await startNamedJob(s, site, urls, req);
  kick(s);
  return { queued: met.size };
}

/**
 * A path (`/about`, read against `base`) or an absolute http(s) URL, as an owner types one:
 * trimmed, at most 2,000 characters, no user name or password, no fragment; else a 400 naming
 * `param`.
 */
export function readSiteUrl(raw: string, base: string, param: string): URL {
  const text = typeof raw === "string" ? raw.trim() : "";
  if (!text) throw invalid(param, `${param} is empty: give a path such as /about or a URL.`);
  if (text.length > MAX_URL_CHARS) {
    throw invalid(
      param,
      `${param} is longer than ${MAX_URL_CHARS.toLocaleString("en")} characters.`,
    );
  }
  const u = text.startsWith("/") && !text.startsWith("//")
    ? URL.parse(text, base)
    : URL.parse(text);
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:") || u.username || u.password) {
    throw invalid(param, `${param} must be a path such as /about or an http(s) URL of the site.`);
  }
  u.hash = "";
  return u;
}

/** `raw` as an absolute URL of the site crawled from `origin` (http and https of a host are one). */
function siteUrl(raw: string, origin: string, param: string): URL {
  const u = readSiteUrl(raw, origin, param);
  if (siteKeyOf(u) !== siteKeyOf(new URL(origin))) {
    throw invalid(
      param,
      `${param} (${u.host}) is not one of the site's URLs: the site is crawled from ${
        new URL(origin).host
      }.`,
    );
  }
  if (pathOf(u).length > MAX_PATH_CHARS || !keyFits([...urlPrefix("s", "j"), u.href], KEY_SPARE)) {
    throw invalid(param, `${param}'s path is too long for a page the crawler keeps.`);
  }
  return u;
}

/** Refuses when the site already has as many re-fetches waiting or running as it may. */
async function checkRoom(s: Services, siteId: string, adding: number) {
  let live = 0;
  const iter = s.kv.list({ prefix: refetchLockPrefix(siteId) }, { limit: MAX_LIVE_REFETCHES });
  for await (const _ of iter) live++;
  if (live + adding > MAX_LIVE_REFETCHES) {
    throw new DomainError(
      "REFETCH_RATE_LIMIT_EXCEEDED",
      `The site already has ${live} re-fetches waiting or running. Wait a few seconds for them to finish, or name several URLs in one call.`,
      { retryAfter: 5 },
    );
  }
}

/** Creates the job: its URLs as marks still to do, then the record that waits for a lease. */
async function startNamedJob(s: Services, site: Site, urls: URL[], req: RefetchRequest) {
  const now = s.clock();
  const job = newJob({
    siteId: site.id,
    url: urls[0].href,
    maxPages: urls.length,
    include: site.settings.include ?? [],
    exclude: site.settings.exclude ?? [],
    trigger: req.trigger,
    urls: urls.length,
    counts: { ...emptyCounts(), discovered: urls.length },
    progress: { done: 0, total: urls.length },
    // Begun already: the URLs are its tasks, and what it does not meet is not known gone. The
    // watch's pages come from a sitemap: their lastmods, not their links, are kept for later.
    state: {
      begun: true,
      mode: req.trigger === "watch" ? "sitemap" : "links",
      siteKey: siteKeyOf(urls[0]),
      complete: false,
      pages: { queued: urls.length, settled: 0 },
    },
  }, now);

  const marks: [Deno.KvKey, UrlMark][] = urls.map((u) => {
    const lastmod = req.lastmods?.get(u.href);
    return [[...urlPrefix(site.id, job.id), u.href], {
      s: 1,
      k: "p",
      ...(lastmod !== undefined ? { l: lastmod } : {}),
    }];
  });
  // The marks first: a record is only ever swept with all its tasks in place.
  for (const batch of commitBatches(marks)) {
    const op = s.kv.atomic();
    for (const [k, v] of batch) op.set(k, v, TTL);
    await op.commit();
  }
  await s.kv.atomic()
    .set(jobKey(site.id, job.id), job, TTL)
    .set(refetchLockKey(site.id, job.id), job.id)
    .set(recentKey(site.id, now, job.id), job.id, TTL)
    .commit();
}
