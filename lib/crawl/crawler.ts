/**
 * The crawler. From a sitemap (index, gzip) or a start page (then following
 * same-site links), it fetches pages through GuardedFetcher, obeys robots.txt
 * (RFC 9309), noindex and rel=canonical, extracts the main text and stores each
 * page the way the admin upsert does (PageItem, then PageStore.upsert). A
 * re-crawl sends the validators it kept, leaves unchanged pages alone, and
 * removes pages an earlier crawl indexed that are now gone; pages added by hand
 * are never touched. Every URL that is not indexed is reported with its reason.
 *
 * This module wires a crawl and runs it in steps; the parts: discovery (links,
 * sitemaps, patterns), page (one URL fetched and judged), store (page budget, upserts),
 * history (what earlier crawls kept, removal), checkpoint (what a step leaves for the
 * next), robots, queue, refresh and report. runner.ts drives the steps under a lease held in KV (leases.ts).
 */
import { CrawlDiscovery, SEEN_PER_PAGE } from "./discovery.ts";
import { CrawlTwins } from "./duplicates.ts";
import { CrawlHistory } from "./history.ts";
import { CrawlNames } from "./names.ts";
import { isGzip, isHtmlType, isSitemapType, mediaType, pathOf, siteKeyOf } from "./http.ts";
import { PageCrawler } from "./page.ts";
import { CrawlQueue, type CrawlTask } from "./queue.ts";
import { IndexRefresher } from "./refresh.ts";
import { CrawlReport, type CrawlSink } from "./report.ts";
import { RobotsCache } from "./robots_rules.ts";
import { CrawlStore } from "./store.ts";
import { botFetcher, type CrawlTuning, hopLimits } from "./tuning.ts";
import type { GuardedFetcher } from "./net/fetch.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import { MAX_SITEMAP_BYTES } from "./sitemap.ts";
import {
  CrawlLog,
  type loadMarks,
  PATH_CLAIMED,
  PATH_GONE,
  PATH_LISTED,
  TrackedSet,
} from "./checkpoint.ts";
import { urlFilter } from "./patterns.ts";
import { noteCrawlHost } from "./hosts.ts";
import { UrlLedger } from "./url_ledger.ts";
import { MAX_WATCHED_SITEMAPS, watchAfterCrawl } from "./watch_record.ts";

export interface CrawlRequest {
  url: string;
  /** Pages this crawl may store (indexed or unchanged); the plan's maximum still applies. */
  maxPages: number;
  /** URL patterns (see patterns.ts): only matches are crawled, when any are given. */
  include?: string[];
  /** URL patterns never crawled. */
  exclude?: string[];
  /**
   * Only the URLs queued with the job are fetched (refetch.ts): no start URL, no link or
   * canonical followed, and only pages found gone are removed.
   */
  named?: boolean;
}

/** What a crawl knows besides its marks (checkpoint.ts), saved with the job after every step. */
export interface CrawlState {
  /** The start URL was handled. */
  begun: boolean;
  mode: "sitemap" | "links";
  siteKey: string;
  complete: boolean;
  /** Page URLs queued that may be stored, and those settled (CrawlReport.pages). */
  pages?: { queued: number; settled: number };
  /** The sitemaps the crawl started from (its start URL, or those robots.txt names): watched after. */
  roots?: string[];
}

export const initialState = (): CrawlState => ({
  begun: false,
  mode: "links",
  siteKey: "",
  complete: true,
  pages: { queued: 0, settled: 0 },
});

/** The start URL gave nothing to crawl; the job ends "failed" with this message. */
export class CrawlStartError extends Error {}

/** The crawl's URL filter; a pattern kept from before patterns were checked as now ends the crawl, saying why. */
function patternFilter(include: string[], exclude: string[]) {
  try {
    return urlFilter(include, exclude);
  } catch (err) {
    throw new CrawlStartError(`A crawl pattern is refused: ${(err as Error).message}`);
  }
}

/** Why the start URL gave nothing, in the owner's words. */
function startFailure(reason: string): string {
  const status = /^http_(\d+)$/.exec(reason)?.[1];
  if (status === "404" || status === "410") {
    return `the server says it does not exist (HTTP ${status})`;
  }
  if (status) return `the server answered HTTP ${status}`;
  const words: Record<string, string> = {
    timeout: "the server took too long to answer",
    fetch_error: "the connection to the server failed, or its answer was broken",
    not_html: "it is neither a web page nor a sitemap",
    too_large: "it is too large",
    redirect_limit: "it redirects too many times",
    blocked_address: "it points to a private network address",
    robots: "robots.txt does not allow it",
  };
  return words[reason] ?? "it could not be fetched";
}

const ACCEPT_ANY = {
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.5",
};

/**
 * One crawl's parts, wired together. `step` runs it until a deadline and says whether it
 * finished; with a CrawlLog, every URL met and path learned is recorded, so that `restore`
 * in another instance (or after a restart) goes on without fetching stored pages again.
 */
export class Crawl {
  readonly refresher: IndexRefresher;
  readonly report: CrawlReport;
  private fetcher: GuardedFetcher;
  private history: CrawlHistory;
  private names: CrawlNames;
  private robots: RobotsCache;
  private queue: CrawlQueue;
  private discovery: CrawlDiscovery;
  private store: CrawlStore;
  private pages: PageCrawler;
  private twins: CrawlTwins;
  private ledger: UrlLedger;
  private begun = false;
  private loaded = false;
  private roots: string[] = [];

  constructor(
    private s: Services,
    private site: Site,
    private req: CrawlRequest,
    sink: CrawlSink,
    private tuning: CrawlTuning,
    private signal?: AbortSignal,
    private log?: CrawlLog,
  ) {
    const fetcher = this.fetcher = botFetcher(s.crawl, {
      concurrency: tuning.concurrency,
      caCerts: tuning.caCerts,
    });
    const track = (flag: number) =>
      log ? new TrackedSet((p, on) => log.path(p, flag, on)) : new Set<string>();
    const siteKey = (): string => this.discovery.siteKey;
    /** URLs the crawl keeps at most (discovery.ts). */
    const kept = SEEN_PER_PAGE * req.maxPages;
    const ledger = this.ledger = new UrlLedger({
      kv: s.kv,
      siteId: site.id,
      siteKey,
      clock: s.clock,
      maxPastLimits: kept,
    });
    const report = this.report = new CrawlReport(sink, {
      listed: track(PATH_LISTED),
      claimed: track(PATH_CLAIMED),
      gone: track(PATH_GONE),
    }, ledger);
    const history = this.history = new CrawlHistory(s, site.id, req.url);
    const names = this.names = new CrawlNames(s, site.id, req.url);
    const refresher = this.refresher = new IndexRefresher(s.indexes, site.id, tuning.refreshEvery);
    const robots = this.robots = new RobotsCache({
      crawl: s.crawl,
      fetcher,
      tuning,
      report,
      signal,
    });
    const twins = this.twins = new CrawlTwins(kept, log);
    const queue = this.queue = new CrawlQueue(tuning.workers, log && ((t) => log.todo(t)));
    const discovery = this.discovery = new CrawlDiscovery({
      fetcher,
      tuning,
      robots,
      report,
      queue,
      signal,
      filter: patternFilter(req.include ?? [], req.exclude ?? []),
      seen: log ? new TrackedSet((u, on) => on && log.seen(u)) : undefined,
      maxPages: req.maxPages,
      twins,
      closed: req.named,
    });
    const store = this.store = new CrawlStore(
      { s, site, report, history, refresher, discovery, twins },
      req.maxPages,
    );
    this.pages = new PageCrawler({
      fetcher,
      tuning,
      robots,
      discovery,
      report,
      history,
      names,
      store,
      queue,
      signal,
    });
  }

  /** What to save with the job after a step. */
  state(): CrawlState {
    const { discovery, report } = this;
    return {
      begun: this.begun,
      mode: discovery.mode,
      siteKey: discovery.siteKey,
      complete: report.complete,
      pages: { ...report.pages },
      ...(this.roots.length ? { roots: this.roots } : {}),
    };
  }

  /** Pages done out of those the crawl may store. */
  progress() {
    return this.report.progress(this.store.budget);
  }

  /** Takes up a crawl from its saved state and marks. */
  restore(state: CrawlState, marks: Awaited<ReturnType<typeof loadMarks>>) {
    const { discovery, report, queue } = this;
    this.begun = state.begun;
    discovery.mode = state.mode;
    discovery.siteKey = state.siteKey;
    report.complete = state.complete;
    if (state.pages) report.pages = { ...state.pages };
    this.roots = state.roots ?? [];
    const quiet = (set: Set<string>, v: string) =>
      set instanceof TrackedSet ? set.quietAdd(v) : set.add(v);
    for (const [url, m] of marks.urls) {
      if (m.k === "s") discovery.sitemaps.add(url);
      else quiet(discovery.seen, url);
      if (m.s !== 1) continue;
      const u = new URL(url);
      queue.restore(
        m.k === "s"
          ? { kind: "sitemap", url: u, depth: m.d ?? 0 }
          : { kind: "page", url: u, ...(m.l !== undefined ? { lastmod: m.l } : {}) },
      );
    }
    this.twins.restore(marks.twins);
    for (const [path, flags] of marks.paths) {
      this.log?.restorePath(path, flags);
      if (flags & PATH_LISTED) quiet(report.listed, path);
      if (flags & PATH_CLAIMED) quiet(report.claimed, path);
      if (flags & PATH_GONE) quiet(report.gone, path);
    }
  }

  /** Runs until nothing is left (true) or `deadline` (ms, Date.now) passes (false). */
  async step(deadline: number): Promise<boolean> {
    // Pages show in search within about a second even while the crawl is busy elsewhere.
    const tick = setInterval(() => {
      this.refresher.refreshIfPending();
      this.ledger.flush().catch((err) =>
        this.s.log({ level: "warn", msg: "crawl URL records not written", error: String(err) })
      );
    }, 1000);
    try {
      if (!this.loaded) {
        await this.history.load();
        await this.names.load();
        // The pages this crawl stored before a restart, by content, to find their twins.
        for (const path of this.report.claimed) {
          const twin = this.history.twin(path);
          if (twin) this.twins.keep(twin.hash, { path, ...twin });
        }
        this.loaded = true;
      }
      if (!this.begun) {
        await this.begin();
        this.begun = true;
      }
      await this.queue.drain((task) => this.runTask(task), () => Date.now() >= deadline);
      if (this.queue.error) throw this.queue.error;
      this.signal?.throwIfAborted();
      if (this.queue.pending > 0) return false;
      await this.store.settleTwins();
      await this.history.removeGone(this.report, this.refresher);
      await this.names.publish();
      await this.refresher.finish();
      await this.ledger.flush();
      if (!this.req.named) await this.followSitemaps();
      return true;
    } finally {
      clearInterval(tick);
    }
  }

  /** After a crawl of the whole site: stale URL records go, and its sitemaps are watched. */
  private async followSitemaps() {
    if (this.report.complete) await this.ledger.prune(this.metPaths());
    await watchAfterCrawl(this.s, this.site, {
      sitemaps: this.roots,
      sitemapOnly: this.discovery.mode === "sitemap",
      origin: new URL(this.req.url).origin,
    });
  }

  /** Whether this crawl met a path of the site (seen, listed, stored or found gone). */
  private metPaths(): (path: string) => boolean {
    const { discovery, report } = this;
    const met = new Set<string>();
    for (const href of discovery.seen) {
      const u = URL.parse(href);
      if (u && siteKeyOf(u) === discovery.siteKey) met.add(pathOf(u));
    }
    return (path) =>
      met.has(path) || report.claimed.has(path) || report.listed.has(path) ||
      report.gone.has(path);
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
      throw new CrawlStartError(`The start URL could not be crawled: ${startFailure(reason)}.`);
    }
    discovery.siteKey = siteKeyOf(new URL(res.url));
    await this.recordOrigin(new URL(res.url).origin);
    if (sitemap || isGzip(res.body)) {
      discovery.mode = "sitemap";
      discovery.sitemaps.add(res.url);
      this.roots = [res.url];
      if (!(await discovery.readSitemap(res, 0))) {
        throw new CrawlStartError("The start URL is XML but not a sitemap.");
      }
      return;
    }
    // A begin cut short by a kill runs again: the start URL is counted once.
    if (!discovery.seen.has(start.href)) {
      discovery.seen.add(start.href);
      report.counts.discovered++;
      report.pages.queued++;
    }
    report.listed.add(pathOf(start));
    // Pages robots.txt's sitemaps list but no link reaches are crawled too.
    const final = new URL(res.url);
    const named = (await this.robots.get(final)).rules.sitemaps;
    discovery.addSitemaps(named);
    this.roots = named.filter((loc) => {
      const u = URL.parse(loc.trim());
      return u !== null && siteKeyOf(u) === discovery.siteKey;
    }).slice(0, MAX_WATCHED_SITEMAPS);
    store.reserve();
    let kept = false;
    try {
      // Left out by the patterns, the start page is still read for its links.
      const refused = discovery.refusal(final);
      kept = await this.pages.handle(start, res, refused);
      if (refused) report.pages.queued--;
      else report.pages.settled++;
    } finally {
      if (!kept) store.release();
    }
  }

  /** Result links keep the scheme and host the site answered from (docs/api.md). */
  private async recordOrigin(origin: string) {
    await noteCrawlHost(this.s, this.site.id, origin);
    if (this.site.crawlOrigin === origin) return;
    await this.s.sites.update(this.site.id, (x) => ({ ...x, crawlOrigin: origin }));
    this.site.crawlOrigin = origin;
  }

  private async runTask(task: CrawlTask): Promise<void> {
    this.signal?.throwIfAborted();
    if (task.kind === "sitemap") await this.discovery.crawlSitemap(task.url, task.depth);
    else if (this.req.named && this.refusedNamed(task.url)) this.report.pages.settled++;
    else if (!(await this.keepUnmodified(task)) && !(await this.pages.crawl(task))) {
      return; // set aside for a free page slot: still to do
    }
    // In the turn its last count was made (no await between): a checkpoint holds both or neither.
    this.log?.done(task);
  }

  /** A named URL the site's patterns leave out: noted, and gone from the index if it was there. */
  private refusedNamed(u: URL): boolean {
    const refused = this.discovery.refusal(u);
    if (refused) this.report.note(u.href, refused, pathOf(u));
    return refused !== null;
  }

  /**
   * A re-crawl keeps a stored page unfetched when its sitemap lastmod is the one recorded
   * (docs/api.md). Following links, only a page whose links were saved, which are followed as
   * after a 304: the pages only it links to are still reached.
   */
  private async keepUnmodified(task: CrawlTask & { kind: "page" }): Promise<boolean> {
    const path = pathOf(task.url);
    const { report, discovery, history } = this;
    if (!history.sameLastmod(task.url, path, task.lastmod)) return false;
    if (report.claimed.has(path) || this.store.full()) return false;
    const links = discovery.mode === "links";
    if (links && !history.hasLinks(path)) return false;
    // Kept by its content hash, and only while no twin of it is stored: else fetched and judged.
    const twin = history.twin(path);
    if (!twin || this.twins.twinOf(twin.hash, path)) return false;
    this.twins.keep(twin.hash, { path, ...twin });
    report.claim(path);
    if (links) await discovery.follow(path, await history.savedLinks(path));
    report.stored(path, "unchanged", false);
    report.pages.settled++;
    return true;
  }
}
