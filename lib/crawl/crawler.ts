/**
 * The crawler. From a sitemap (index, gzip) or a start page (then following
 * same-site links), it fetches pages through GuardedFetcher, obeys robots.txt
 * (RFC 9309), noindex and rel=canonical, extracts the main text and stores each
 * page the way the admin upsert does (PageItem, then PageStore.upsert). A
 * re-crawl sends the validators it kept, leaves unchanged pages alone, and
 * removes pages an earlier crawl indexed that are now gone; pages added by hand
 * are never touched. Every URL that is not indexed is reported with its reason.
 *
 * This module starts a crawl and runs it; the parts live in crawl_*.ts: discovery
 * (links, sitemaps), page (one URL fetched and judged), store (page budget, upserts),
 * history (what earlier crawls kept, removal), robots, queue, refresh and report.
 */
import { CrawlDiscovery } from "./discovery.ts";
import { CrawlHistory } from "./history.ts";
import {
  isGzip,
  isHtmlType,
  isSitemapType,
  mediaType,
  pathOf,
  siteKeyOf,
  USER_AGENT,
} from "./http.ts";
import { PageCrawler } from "./page.ts";
import { CrawlQueue, type CrawlTask } from "./queue.ts";
import { IndexRefresher } from "./refresh.ts";
import { CrawlReport, type CrawlSink } from "./report.ts";
import { RobotsCache } from "./robots_rules.ts";
import { CrawlStore } from "./store.ts";
import { type CrawlTuning, DEFAULT_TUNING, hopLimits } from "./tuning.ts";
import { GuardedFetcher } from "./net/fetch.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import { MAX_SITEMAP_BYTES } from "./sitemap.ts";

export interface CrawlRequest {
  url: string;
  /** Pages this crawl may store (indexed or unchanged); the plan's maximum still applies. */
  maxPages: number;
}

/** The start URL gave nothing to crawl; the job ends "failed" with this message. */
export class CrawlStartError extends Error {}

const ACCEPT_ANY = {
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.5",
};

/** Crawls one site; resolves when done, rejects with the signal's reason when aborted. */
export async function crawlSite(
  s: Services,
  site: Site,
  req: CrawlRequest,
  sink: CrawlSink,
  opts: { signal?: AbortSignal; tuning?: Partial<CrawlTuning> } = {},
): Promise<void> {
  const crawl = new Crawl(s, site, req, sink, { ...DEFAULT_TUNING, ...opts.tuning }, opts.signal);
  // Pages show in search within about a second even while the crawl is busy elsewhere.
  const tick = setInterval(() => crawl.refresher.refreshIfPending(), 1000);
  try {
    await crawl.run();
  } finally {
    clearInterval(tick);
    await crawl.close();
  }
}

/** One crawl's parts, wired together, and its start. */
class Crawl {
  readonly refresher: IndexRefresher;
  private fetcher: GuardedFetcher;
  private report: CrawlReport;
  private history: CrawlHistory;
  private robots: RobotsCache;
  private queue: CrawlQueue;
  private discovery: CrawlDiscovery;
  private store: CrawlStore;
  private pages: PageCrawler;

  constructor(
    private s: Services,
    site: Site,
    private req: CrawlRequest,
    sink: CrawlSink,
    private tuning: CrawlTuning,
    private signal?: AbortSignal,
  ) {
    const fetcher = this.fetcher = new GuardedFetcher({
      allowLoopback: s.crawl.allowLoopback,
      resolve: s.crawl.resolve,
      userAgent: USER_AGENT,
      concurrency: tuning.concurrency,
      delayMs: s.crawl.delayMs,
      caCerts: tuning.caCerts,
    });
    const report = this.report = new CrawlReport(sink);
    const history = this.history = new CrawlHistory(s, site.id, req.url);
    const refresher = this.refresher = new IndexRefresher(s.indexes, site.id, tuning.refreshEvery);
    const robots = this.robots = new RobotsCache({
      crawl: s.crawl,
      fetcher,
      tuning,
      report,
      signal,
    });
    const queue = this.queue = new CrawlQueue(tuning.workers);
    const discovery = this.discovery = new CrawlDiscovery({
      fetcher,
      tuning,
      robots,
      report,
      queue,
      signal,
    });
    const store = this.store = new CrawlStore(
      { s, site, report, history, refresher, discovery },
      req.maxPages,
    );
    this.pages = new PageCrawler({
      fetcher,
      tuning,
      robots,
      discovery,
      report,
      history,
      store,
      queue,
      signal,
    });
  }

  async run() {
    await this.history.load();
    await this.begin();
    await this.queue.drain((task) => this.runTask(task));
    if (this.queue.error) throw this.queue.error;
    this.signal?.throwIfAborted();
    await this.history.removeGone(this.report, this.refresher);
    await this.refresher.finish();
  }

  async close() {
    await this.refresher.close();
    await this.fetcher.close();
  }

  /** Fetches the start URL: a sitemap starts sitemap mode, a page starts following links. */
  private async begin() {
    const { discovery, report, store } = this;
    const start = new URL(this.req.url);
    start.hash = "";
    discovery.siteKey = siteKeyOf(start);
    const robots = await this.robots.get(start);
    if (!robots.rules.isAllowed(pathOf(start))) {
      report.note(start.href, "robots");
      throw new CrawlStartError(
        robots.explicit
          ? "robots.txt does not allow crawling the start URL."
          : "robots.txt could not be fetched (a server error or no answer), which RFC 9309 reads as disallowing everything. Try again later.",
      );
    }
    let sitemap = false;
    const res = await this.fetcher.fetch(start.href, {
      headers: ACCEPT_ANY,
      signal: this.signal,
      // The site may move on its first answer (http → https, bare → www): any host is followed.
      beforeHop: (u) => discovery.hopRefusal(u, true),
      accept: (r) => {
        sitemap = isSitemapType(mediaType(r)) || /\.xml(\.gz)?$|\.gz$/i.test(r.url);
        return sitemap || isHtmlType(mediaType(r)) ? null : "not_html";
      },
      maxBytes: () => sitemap ? MAX_SITEMAP_BYTES : this.tuning.maxBodyBytes,
      ...hopLimits(this.tuning),
    });
    if (!res.ok || res.status < 200 || res.status >= 300) {
      const reason = res.ok ? `http_${res.status}` : res.reason;
      report.note(start.href, reason);
      throw new CrawlStartError(`The start URL could not be crawled: ${reason}.`);
    }
    discovery.siteKey = siteKeyOf(new URL(res.url));
    if (sitemap || isGzip(res.body)) {
      discovery.mode = "sitemap";
      discovery.sitemaps.add(res.url);
      if (!(await discovery.readSitemap(res, 0))) {
        throw new CrawlStartError("The start URL is XML but not a sitemap.");
      }
      return;
    }
    discovery.seen.add(start.href);
    report.counts.discovered++;
    report.listed.add(pathOf(start));
    store.reserve();
    let kept = false;
    try {
      kept = await this.pages.handle(start, res);
    } finally {
      if (!kept) store.release();
    }
  }

  private async runTask(task: CrawlTask): Promise<void> {
    this.signal?.throwIfAborted();
    if (task.kind === "page") await this.pages.crawl(task);
    else await this.discovery.crawlSitemap(task.url, task.depth);
  }
}
