/**
 * "Why is this page not searchable?": one URL of a site judged from what its crawls learned
 * (url_ledger.ts), the pages stored and the site's crawl patterns, answered with a reason of
 * docs/api.md's list, a sentence that says what to do, and when a crawl last fetched it.
 */
import { readUrlRecord, type UrlRecord } from "./url_ledger.ts";
import { pathOf, siteKeyOf } from "./http.ts";
import { urlFilter } from "./patterns.ts";
import { crawlOriginOf, readSiteUrl } from "./refetch.ts";
import { probeUrl } from "./url_probe.ts";
import { type CrawlJob, isLive, jobKey, lockKey, siteCrawlKey } from "./job_record.ts";
import { siteBaseUrl } from "../sites/base_url.ts";
import type { UrlStatusJson } from "../wire_types.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

/** Crawl reasons the answer's list has no word of its own for, and the one it uses. */
const FOLDED: Record<string, string> = {
  duplicate: "canonical",
  not_a_sitemap: "not_html",
  sitemap_limit: "not_crawled",
  page_limit: "not_crawled",
  discovery_limit: "not_crawled",
  invalid_url: "not_crawled",
  timeout: "not_crawled",
  fetch_error: "not_crawled",
  redirect_limit: "redirect",
  blocked_address: "not_crawled",
  off_site: "redirect",
};

/** A crawl reason as the answer's list has it (a page that could not be read is "too large"). */
const folded = (reason: string) =>
  FOLDED[reason] ?? (reason.startsWith("parse_") ? "too_large" : reason);

/** What each reason means for the owner, and what to do about it. */
function detailOf(reason: string, rec: UrlRecord | null): string {
  const status = /^http_(\d+)$/.exec(reason)?.[1];
  if (status) {
    return status === "404" || status === "410"
      ? `The site answered HTTP ${status}: the page does not exist (any more). If it should, publish it and re-fetch it; links to it are broken.`
      : `The site answered HTTP ${status} when the crawler last fetched it. Once it answers 200, re-fetch it.`;
  }
  if (rec?.r.startsWith("parse_")) {
    return "The page could not be read (it took too long to take apart, or is malformed). Simplify it, then re-fetch it.";
  }
  const words: Record<string, string> = {
    indexed: "The page is in the index and shows in search.",
    robots:
      "The site's robots.txt does not allow SiteSearchBot to fetch it. Allow it in robots.txt, then re-fetch it.",
    noindex:
      "The page asks not to be indexed (a robots meta tag or X-Robots-Tag header saying noindex). Remove that, then re-fetch it.",
    canonical: rec?.r === "duplicate"
      ? "The page has the same content as another URL, which is the one kept in the index (links to it lead there)."
      : "The page names another URL as its canonical version; that URL is indexed instead. Change its rel=canonical if this one should be.",
    excluded:
      "The site's crawl patterns exclude this URL. Change the exclude patterns to index it.",
    not_included:
      "The site's crawl patterns include only other URLs. Add a pattern that matches it to index it.",
    too_large:
      "The page is too large to index (over the crawler's size limit). Split it, or trim what it carries.",
    not_html:
      "The URL is not a web page (it answered another type than HTML). Only HTML pages and uploaded documents are indexed.",
    redirect: rec?.r === "off_site"
      ? "The URL redirects to another site, which is not indexed as part of this one."
      : rec?.r === "redirect_limit"
      ? "The URL redirects too many times. Make it answer directly, then re-fetch it."
      : "The URL redirects; the page it leads to is indexed under its own URL, if it can be.",
    not_crawled: notCrawled(rec?.r),
    not_linked:
      "No crawl found a link to this URL, in a page or a sitemap. Link to it from a page of the site or list it in your sitemap, or re-fetch it now.",
    off_site: "The URL is on another host than the one this site is crawled from.",
  };
  return words[reason] ?? "The crawler did not index it.";
}

/** Why a URL met but not fetched (or not fetched well) is not in the index. */
function notCrawled(crawlReason: string | undefined): string {
  switch (crawlReason) {
    case "page_limit":
      return "The crawl reached the plan's page limit before it. Raise the limit (a bigger plan) or exclude pages you don't need searched.";
    case "discovery_limit":
    case "sitemap_limit":
      return "The crawl met more URLs than it keeps before it. Exclude URLs you don't need searched, or re-fetch this one now.";
    case "timeout":
      return "The site took too long to answer when the crawler last fetched it. Re-fetch it once the site is fast again.";
    case "fetch_error":
    case "blocked_address":
      return "The connection to the site failed when the crawler last fetched it. Re-fetch it once the site answers.";
    case "invalid_url":
      return "The URL is too long or malformed for the crawler to keep.";
    case "indexed":
      return "The page was indexed, then removed from the index. Re-fetch it to index it again.";
    default:
      return "No crawl has reached this URL yet. It is fetched when a crawl meets a link to it, or re-fetch it now.";
  }
}

/** Why `raw` is or is not searchable on `site`. */
export async function urlStatus(s: Services, site: Site, raw: string): Promise<UrlStatusJson> {
  const origin = await crawlOriginOf(s, site) ?? siteBaseUrl(site);
  const u = readSiteUrl(raw, origin || "https://site.invalid", "url");
  const url = origin || !raw.trim().startsWith("/") ? u.href : pathOf(u);
  const answer = (reason: string, rec: UrlRecord | null, searchable = false): UrlStatusJson => ({
    url,
    searchable,
    reason,
    detail: detailOf(reason, rec),
    lastFetched: rec?.at ? new Date(rec.at).toISOString() : null,
    ...(rec?.to && (reason === "canonical" || reason === "redirect") ? { canonical: rec.to } : {}),
  });
  if (origin && siteKeyOf(u) !== siteKeyOf(new URL(origin))) return answer("off_site", null);
  const path = pathOf(u);
  const [page, rec] = await Promise.all([
    s.pages.get(site.id, path),
    readUrlRecord(s.kv, site.id, path),
  ]);
  if (page) return answer("indexed", rec?.r === "indexed" ? rec : null, true);
  if (rec) {
    if (rec.r === "indexed") return answer("not_crawled", rec);
    return answer(folded(rec.r), rec);
  }
  // Never met: the site's patterns may leave it out; else the page, looked at now, may give its
  // own reason; else no crawl found a link to it, or none has finished since it began.
  const refused = urlFilter(site.settings.include ?? [], site.settings.exclude ?? [])?.(u);
  if (refused) return answer(refused, null);
  // A site never crawled and without a domain has no host of its own to look at.
  if (!origin) return answer("not_crawled", null);
  const probe = await probeUrl(s, u);
  if (probe.reason !== "ok") {
    const seen: UrlRecord = { r: probe.reason, ...(probe.to ? { to: probe.to } : {}) };
    return answer(folded(probe.reason), seen);
  }
  return answer(await crawledWhole(s, site.id) ? "not_linked" : "not_crawled", null);
}

/** Whether a crawl of the site has run and none is running now (then what it missed is unlinked). */
async function crawledWhole(s: Services, siteId: string): Promise<boolean> {
  const [info, lock] = await Promise.all([
    s.kv.get(siteCrawlKey(siteId)),
    s.kv.get<string>(lockKey(siteId)),
  ]);
  if (!info.versionstamp) return false;
  if (!lock.value) return true;
  const job = (await s.kv.get<CrawlJob>(jobKey(siteId, lock.value))).value;
  return !job || !isLive(job);
}
