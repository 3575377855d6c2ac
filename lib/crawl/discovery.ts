/**
 * How a crawl finds its URLs: links, sitemap entries and canonical targets are queued
 * once when they belong to the site; sitemaps and sitemap indexes (to a few levels) are
 * fetched and read; a redirect to another site or to a path robots.txt disallows is refused.
 */
import { pathOf, siteKeyOf } from "./http.ts";
import type { CrawlQueue } from "./queue.ts";
import type { CrawlReport } from "./report.ts";
import type { RobotsCache } from "./robots_rules.ts";
import { type CrawlTuning, hopLimits } from "./tuning.ts";
import type { FetchResult, GuardedFetcher } from "./net/fetch.ts";
import { decodeSitemapBody, MAX_SITEMAP_BYTES, parseLastmod, parseSitemap } from "./sitemap.ts";
import type { UrlFilter } from "./patterns.ts";
import type { CrawlTwins } from "./duplicates.ts";
import { inSlices } from "../slices.ts";

const MAX_SITEMAP_DEPTH = 3;
const MAX_PATH = 1000;
/** URLs a crawl keeps (in memory and as marks in KV) per page it may store. */
export const SEEN_PER_PAGE = 10;
/** Sitemaps (and indexes) a crawl reads at most, each up to MAX_SITEMAP_BYTES. */
export const MAX_SITEMAPS = 50;

/** One crawl's URLs met so far, and what it does with a new one. */
export class CrawlDiscovery {
  /** The site crawled (see siteKeyOf), as the start URL finally answered. */
  siteKey = "";
  /** Pages come from sitemaps, or from following links out of the start page. */
  mode: "sitemap" | "links" = "links";
  /** Absolute URLs met so far, so each is handled once. */
  readonly seen: Set<string>;
  readonly sitemaps = new Set<string>();

  constructor(
    private d: {
      fetcher: GuardedFetcher;
      tuning: CrawlTuning;
      robots: RobotsCache;
      report: CrawlReport;
      queue: CrawlQueue;
      signal?: AbortSignal;
      /** The crawl's include and exclude patterns. */
      filter?: UrlFilter | null;
      /** A set that records its members, for a resumable crawl. */
      seen?: Set<string>;
      /** Pages the crawl may store: it keeps at most SEEN_PER_PAGE URLs for each. */
      maxPages: number;
      /** Where the links between the site's pages are counted. */
      twins?: CrawlTwins;
      /** Nothing new is queued: the crawl fetches only the URLs it was given. */
      closed?: boolean;
    },
  ) {
    this.seen = d.seen ?? new Set();
  }

  /** Why the patterns keep a URL out of the crawl, or null. */
  refusal(u: URL): string | null {
    return this.d.filter?.(u) ?? null;
  }

  /**
   * The links of the page at `from`: each discovered, and counted as a link to its page. In
   * slices: a page of 36,000 links held the event loop 235 ms in one piece.
   */
  async follow(from: string, links: string[]): Promise<void> {
    await inSlices(links, (link) => {
      const u = URL.parse(link.trim()); // read once for both
      this.#meet(link, u);
      if (u) this.d.twins?.linked(from, u, this.siteKey);
    });
  }

  /** A link, sitemap entry or canonical target: queued once if it belongs to the site. */
  discover(href: string, lastmod?: number) {
    this.#meet(href, URL.parse(href.trim()), lastmod);
  }

  /** `discover` of `href`, read as `u` (null when it is no URL). */
  #meet(href: string, u: URL | null, lastmod?: number) {
    const { report } = this.d;
    if (this.d.closed) return;
    if (u) u.hash = "";
    const key = u?.href ?? href;
    if (this.seen.has(key)) return;
    // Bounded whatever a site links to: past the cap a URL is reported, not kept, and the
    // crawl no longer counts as having seen the whole site (nothing is removed for it).
    if (this.seen.size >= SEEN_PER_PAGE * this.d.maxPages) {
      report.complete = false;
      return report.note(key.slice(0, 2000), "discovery_limit");
    }
    this.seen.add(key);
    report.counts.discovered++;
    if (!u || (u.protocol !== "http:" && u.protocol !== "https:")) {
      return report.note(key, "invalid_url");
    }
    if (siteKeyOf(u) !== this.siteKey) return report.note(u.href, "off_site");
    const path = pathOf(u);
    if (path.length > MAX_PATH) return report.note(u.href, "invalid_url");
    const refused = this.refusal(u);
    // A page the patterns leave out is gone from the index, if an earlier crawl stored it.
    if (refused) return report.note(u.href, refused, path);
    report.listed.add(path);
    report.pages.queued++;
    this.d.queue.push({ kind: "page", url: u, ...(lastmod !== undefined ? { lastmod } : {}) });
  }

  /** Fetches a sitemap (or index) found in another, and reads it. */
  async crawlSitemap(u: URL, depth: number) {
    const { report } = this.d;
    const robots = await this.d.robots.get(u);
    if (!robots.rules.isAllowed(pathOf(u))) {
      report.complete = false;
      return report.note(u.href, "robots");
    }
    const res = await this.d.fetcher.fetch(u.href, {
      headers: { Accept: "application/xml,text/xml;q=0.9,*/*;q=0.5" },
      signal: this.d.signal,
      beforeHop: (next) => this.hopRefusal(next, false),
      maxBytes: MAX_SITEMAP_BYTES,
      ...hopLimits(this.d.tuning),
    });
    if (!res.ok || res.status < 200 || res.status >= 300) {
      report.complete = false;
      return report.note(u.href, res.ok ? `http_${res.status}` : res.reason);
    }
    await this.readSitemap(res, depth);
  }

  /** Queues a sitemap's pages, or an index's sitemaps; false when it is not a sitemap. */
  async readSitemap(res: FetchResult & { ok: true }, depth: number): Promise<boolean> {
    const { report } = this.d;
    let entries;
    try {
      const text = await decodeSitemapBody(res.body, res.headers.get("content-type"), res.url);
      entries = await parseSitemap(text);
    } catch (err) {
      report.complete = false;
      report.note(res.url, (err as Error).message === "too_large" ? "too_large" : "not_a_sitemap");
      return false;
    }
    if (entries.kind === "urlset") {
      await inSlices(entries.urls, ({ loc, lastmod }) => this.discover(loc, parseLastmod(lastmod)));
      return true;
    }
    for (const { loc } of entries.urls) {
      const u = URL.parse(loc.trim());
      if (!u || this.sitemaps.has(u.href) || depth + 1 > MAX_SITEMAP_DEPTH) continue;
      if (!this.#roomForSitemap(u)) continue;
      this.sitemaps.add(u.href);
      if (siteKeyOf(u) !== this.siteKey) {
        report.note(u.href, "off_site");
        continue;
      }
      this.d.queue.push({ kind: "sitemap", url: u, depth: depth + 1 });
    }
    return true;
  }

  /** Queues the sitemaps robots.txt names for the site (a start-page crawl reads them too). */
  addSitemaps(urls: string[]) {
    for (const loc of urls) {
      const u = URL.parse(loc.trim());
      if (!u || this.sitemaps.has(u.href)) continue;
      if (!this.#roomForSitemap(u)) continue;
      this.sitemaps.add(u.href);
      if (siteKeyOf(u) !== this.siteKey) {
        this.d.report.note(u.href, "off_site");
        continue;
      }
      this.d.queue.push({ kind: "sitemap", url: u, depth: 0 });
    }
  }

  /** Whether the crawl may read one more sitemap; else `u` is reported and the crawl is partial. */
  #roomForSitemap(u: URL): boolean {
    if (this.sitemaps.size < MAX_SITEMAPS) return true;
    this.d.report.complete = false;
    this.d.report.note(u.href.slice(0, 2000), "sitemap_limit");
    return false;
  }

  /** Why a redirect target is refused: another site (unless `anyHost`), or robots.txt. */
  async hopRefusal(next: URL, anyHost: boolean): Promise<string | null> {
    if (!anyHost && siteKeyOf(next) !== this.siteKey) return "off_site";
    const robots = await this.d.robots.get(next);
    return robots.rules.isAllowed(pathOf(next)) ? null : "robots";
  }
}
