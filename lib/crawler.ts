/**
 * The crawler. From a sitemap (index, gzip) or a start page (then following
 * same-site links), it fetches pages through GuardedFetcher, obeys robots.txt
 * (RFC 9309), noindex and rel=canonical, extracts the main text and stores each
 * page the way the admin upsert does (PageItem, then PageStore.upsert). A
 * re-crawl sends the validators it kept, leaves unchanged pages alone, and
 * removes pages an earlier crawl indexed that are now gone; pages added by hand
 * are never touched. Every URL that is not indexed is reported with its reason.
 */
import { ApiError } from "./errors.ts";
import { extractPage } from "./extract.ts";
import { type FetchResult, GuardedFetcher, hostKey } from "./fetch_guarded.ts";
import { normalizeHost } from "./net_guard.ts";
import type { PageInput } from "./pages.ts";
import { PLANS } from "./plans.ts";
import { MAX_ROBOTS_BYTES, parseRobots, type Robots, robotsForStatus } from "./robots.ts";
import { MAX_BODY_CHARS, PageItem, parse } from "./schemas.ts";
import type { Services } from "./services.ts";
import type { Site } from "./sites.ts";
import { decodeSitemapBody, MAX_SITEMAP_BYTES, parseSitemap } from "./sitemap.ts";

export const USER_AGENT = "SiteSearchBot/1.0 (+https://sitesearch.example/bot)";

export interface CrawlCounts {
  discovered: number;
  fetched: number;
  indexed: number;
  unchanged: number;
  removed: number;
  skipped: number;
  failed: number;
}

export const emptyCounts = (): CrawlCounts => ({
  discovered: 0,
  fetched: 0,
  indexed: 0,
  unchanged: 0,
  removed: 0,
  skipped: 0,
  failed: 0,
});

/** Where a crawl reports: live counts, and each URL it did not index with the reason. */
export interface CrawlSink {
  counts: CrawlCounts;
  item(kind: "skipped" | "failed", url: string, reason: string): void;
}

export interface CrawlTuning {
  /** Requests in flight at once per host. */
  concurrency: number;
  /** Tasks (fetch, extract, store) in progress at once. */
  workers: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Page bodies after decompression. */
  maxBodyBytes: number;
  maxRedirects: number;
  /** robots.txt Crawl-delay is obeyed up to this. */
  maxCrawlDelayMs: number;
  /** Index refreshes after this many changes (and at least once a second while changing). */
  refreshEvery: number;
  caCerts?: string[];
}

export const DEFAULT_TUNING: CrawlTuning = {
  concurrency: 2,
  workers: 4,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  maxCrawlDelayMs: 10_000,
  refreshEvery: 50,
};

export interface CrawlRequest {
  url: string;
  /** Pages this crawl may store (indexed or unchanged); the plan's maximum still applies. */
  maxPages: number;
}

/** The start URL gave nothing to crawl; the job ends "failed" with this message. */
export class CrawlStartError extends Error {}

/** A URL an earlier crawl indexed: the validators to send, and proof the crawl owns the page. */
interface CrawledRecord {
  url: string;
  /** The listed path that led here, when the page was reached through a redirect. */
  from?: string;
  etag?: string;
  lastModified?: string;
  /** Its links are saved (under linksKey), so a 304 still tells where to go next. */
  links?: boolean;
}

/** Reasons that go in `failed`: the fetch gave no page. Every other reason is a choice: `skipped`. */
export const isFailure = (reason: string) =>
  reason.startsWith("http_") || reason === "timeout" || reason === "fetch_error" ||
  reason === "not_a_sitemap";

const crawledKey = (site: string, path: string) => ["crawled", site, path];
const linksKey = (site: string, path: string) => ["crawllinks", site, path];
/** Links kept per page, as characters of URL; a page with more is always fetched whole. */
const MAX_SAVED_LINKS_CHARS = 40_000;
const ACCEPT_HTML = { Accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5" };
const ACCEPT_ANY = {
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.5",
};
/** Refusals that mean the URL is no longer a page of ours: it redirects away, or is not HTML. */
const GONE = new Set(["off_site", "robots", "not_html"]);
/** Refusals of what may have been an HTML page whose links went unread. */
const HIDING = new Set([
  "timeout",
  "fetch_error",
  "too_large",
  "redirect_limit",
  "blocked_address",
]);
const MAX_SITEMAP_DEPTH = 3;
const MAX_PATH = 1000;

type Task = { kind: "page"; url: URL } | { kind: "sitemap"; url: URL; depth: number };

interface RobotsState {
  rules: Robots;
  /** Rules the site wrote (2xx), as opposed to assumed after a 4xx, 5xx or no answer. */
  explicit: boolean;
}

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
  const tick = setInterval(() => crawl.refreshIfPending(), 1000);
  try {
    await crawl.run();
  } finally {
    clearInterval(tick);
    await crawl.close();
  }
}

class Crawl {
  private fetcher: GuardedFetcher;
  private counts: CrawlCounts;
  private robots = new Map<string, Promise<RobotsState>>();
  /** Absolute URLs met so far, so each is handled once. */
  private seen = new Set<string>();
  private sitemaps = new Set<string>();
  /** Same-site paths this crawl found listed or linked. */
  private listed = new Set<string>();
  /** Paths stored (indexed or unchanged) by this crawl. */
  private claimed = new Set<string>();
  /** Paths this crawl found gone: 404/410, noindex, canonical elsewhere, redirected, … */
  private gone = new Set<string>();
  private prev = new Map<string, CrawledRecord>();
  private existing = new Set<string>();
  private start: string;
  private siteKey = "";
  private mode: "sitemap" | "links" = "links";
  /** False once something may have hidden part of the site: then unlisted pages are kept. */
  private complete = true;
  private budget: number;
  private reserved = 0;
  private deferred: Task[] = [];
  private queue: Task[] = [];
  private active = 0;
  private error: unknown = null;
  private wake: () => void = () => {};
  /** Stores go one at a time: they all bump the site's one version key, so in parallel they only collide. */
  private storing: Promise<unknown> = Promise.resolve();
  private pending = 0;
  private lastRefresh = 0;
  private refreshing: Promise<void> | null = null;

  constructor(
    private s: Services,
    private site: Site,
    req: CrawlRequest,
    private sink: CrawlSink,
    private tuning: CrawlTuning,
    private signal?: AbortSignal,
  ) {
    this.counts = sink.counts;
    this.budget = Math.min(req.maxPages, PLANS[site.plan].maxPages);
    this.start = req.url;
    this.fetcher = new GuardedFetcher({
      allowLoopback: s.crawl.allowLoopback,
      resolve: s.crawl.resolve,
      userAgent: USER_AGENT,
      concurrency: tuning.concurrency,
      delayMs: s.crawl.delayMs,
      caCerts: tuning.caCerts,
    });
  }

  async run() {
    await this.loadPrevious();
    await this.begin();
    await this.drain();
    if (this.error) throw this.error;
    this.signal?.throwIfAborted();
    await this.removeGone();
    await this.refreshing;
    await this.s.indexes.refresh(this.site.id);
  }

  async close() {
    await this.refreshing?.catch(() => {});
    await this.fetcher.close();
  }

  /** What earlier crawls stored, and which pages exist now (a 304 only counts for a page we still hold). */
  private async loadPrevious() {
    for await (const e of this.s.kv.list<CrawledRecord>({ prefix: ["crawled", this.site.id] })) {
      this.prev.set(e.key[2] as string, e.value);
    }
    let cursor: string | undefined;
    do {
      const page = await this.s.pages.list(this.site.id, { cursor, limit: 1000 });
      for (const p of page.pages) this.existing.add(p.url);
      cursor = page.cursor ?? undefined;
    } while (cursor);
  }

  /** Fetches the start URL: a sitemap starts sitemap mode, a page starts following links. */
  private async begin() {
    const start = new URL(this.start);
    start.hash = "";
    this.siteKey = siteKeyOf(start);
    const robots = await this.robotsFor(start);
    if (!robots.rules.isAllowed(pathOf(start))) {
      this.note(start.href, "robots");
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
      beforeHop: (u) => this.hopRefusal(u, true),
      accept: (r) => {
        sitemap = isSitemapType(mediaType(r)) || /\.xml(\.gz)?$|\.gz$/i.test(r.url);
        return sitemap || isHtmlType(mediaType(r)) ? null : "not_html";
      },
      maxBytes: () => sitemap ? MAX_SITEMAP_BYTES : this.tuning.maxBodyBytes,
      ...this.limits(),
    });
    if (!res.ok || res.status < 200 || res.status >= 300) {
      const reason = res.ok ? `http_${res.status}` : res.reason;
      this.note(start.href, reason);
      throw new CrawlStartError(`The start URL could not be crawled: ${reason}.`);
    }
    this.siteKey = siteKeyOf(new URL(res.url));
    if (sitemap || isGzip(res.body)) {
      this.mode = "sitemap";
      this.sitemaps.add(res.url);
      if (!(await this.readSitemap(res, 0))) {
        throw new CrawlStartError("The start URL is XML but not a sitemap.");
      }
      return;
    }
    this.seen.add(start.href);
    this.counts.discovered++;
    this.listed.add(pathOf(start));
    this.reserved++;
    let kept = false;
    try {
      kept = await this.handlePage(start, res);
    } finally {
      if (!kept) this.release();
    }
  }

  private limits() {
    return {
      headersTimeoutMs: this.tuning.headersTimeoutMs,
      bodyTimeoutMs: this.tuning.bodyTimeoutMs,
      maxRedirects: this.tuning.maxRedirects,
    };
  }

  /** Runs queued tasks on `workers` workers until none is left or one throws. */
  private drain(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        while (!this.error && this.active < this.tuning.workers && this.queue.length) {
          const task = this.queue.shift()!;
          this.active++;
          this.runTask(task)
            .catch((err) => void (this.error ??= err))
            .finally(() => {
              this.active--;
              this.wake();
            });
        }
        if (this.active === 0 && (this.error || this.queue.length === 0)) resolve();
      };
      this.wake();
    });
  }

  private enqueue(task: Task) {
    this.queue.push(task);
    this.wake();
  }

  private async runTask(task: Task): Promise<void> {
    this.signal?.throwIfAborted();
    if (task.kind === "page") await this.crawlPage(task);
    else await this.crawlSitemap(task.url, task.depth);
  }

  /** Counts a URL that was not indexed; `gonePath` marks a page that is no longer one of ours. */
  private note(url: string, reason: string, gonePath: string | null = null) {
    const kind = isFailure(reason) ? "failed" : "skipped";
    this.counts[kind]++;
    this.sink.item(kind, url, reason);
    if (gonePath !== null) this.gone.add(gonePath);
  }

  /** A link, sitemap entry or canonical target: queued once if it belongs to the site. */
  private discover(href: string) {
    const u = URL.parse(href.trim());
    if (u) u.hash = "";
    const key = u?.href ?? href;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.counts.discovered++;
    if (!u || (u.protocol !== "http:" && u.protocol !== "https:")) {
      return this.note(key, "invalid_url");
    }
    if (siteKeyOf(u) !== this.siteKey) return this.note(u.href, "off_site");
    const path = pathOf(u);
    if (path.length > MAX_PATH) return this.note(u.href, "invalid_url");
    this.listed.add(path);
    this.enqueue({ kind: "page", url: u });
  }

  private async crawlPage(task: { kind: "page"; url: URL }) {
    const u = task.url;
    const path = pathOf(u);
    const robots = await this.robotsFor(u);
    if (!robots.rules.isAllowed(path)) {
      return this.note(u.href, "robots", robots.explicit ? path : null);
    }
    if (this.claimed.size >= this.budget) return this.pageLimit(u.href);
    // Slots held by fetches in flight may come free: wait for them rather than refuse.
    if (this.reserved >= this.budget) return void this.deferred.push(task);
    this.reserved++;
    let kept = false;
    try {
      const rec = this.prev.get(path);
      const conditional: Record<string, string> = {};
      // Following links, a 304 is only of use when the page's links were saved.
      const usable = this.mode === "sitemap" || rec?.links === true;
      if (rec?.url === u.href && this.existing.has(path) && usable) {
        if (rec.etag) conditional["If-None-Match"] = rec.etag;
        if (rec.lastModified) conditional["If-Modified-Since"] = rec.lastModified;
      }
      const res = await this.fetcher.fetch(u.href, {
        headers: ACCEPT_HTML,
        conditional,
        signal: this.signal,
        beforeHop: (next) => this.hopRefusal(next, false),
        accept: (r) => isHtmlType(mediaType(r)) ? null : "not_html",
        maxBytes: this.tuning.maxBodyBytes,
        ...this.limits(),
      });
      kept = await this.handlePage(u, res);
    } finally {
      if (!kept) this.release();
      // A slot came free or the limit was reached: either way the waiting tasks can now decide.
      if (this.deferred.length) this.queue.unshift(...this.deferred.splice(0));
    }
  }

  private release() {
    this.reserved--;
  }

  private pageLimit(url: string) {
    // Unfetched pages may hold links to more pages: what is unlisted now is not known gone.
    if (this.mode === "links") this.complete = false;
    this.note(url, "page_limit");
  }

  /** Why a redirect target is refused: another site, or robots.txt. */
  private async hopRefusal(next: URL, anyHost: boolean): Promise<string | null> {
    if (!anyHost && siteKeyOf(next) !== this.siteKey) return "off_site";
    const robots = await this.robotsFor(next);
    return robots.rules.isAllowed(pathOf(next)) ? null : "robots";
  }

  /** Turns a page's response into a stored page or a reason; true when a page slot is used. */
  private async handlePage(u: URL, res: FetchResult): Promise<boolean> {
    const path = pathOf(u);
    if (!res.ok) {
      if (HIDING.has(res.reason) && this.mode === "links") this.complete = false;
      this.note(u.href, res.reason, GONE.has(res.reason) ? path : null);
      return false;
    }
    this.counts.fetched++;
    const final = new URL(res.url);
    const finalPath = pathOf(final);
    if (finalPath !== path) {
      this.gone.add(path);
      this.seen.add(final.href); // a later link to the target itself needs no second fetch
    }
    if (res.status === 304) {
      if (this.mode === "links") {
        const saved = await this.s.kv.get<string[]>(linksKey(this.site.id, finalPath));
        for (const link of saved.value ?? []) this.discover(link);
      }
      return this.keep(u, finalPath, res, "unchanged");
    }
    if (res.status < 200 || res.status >= 300) {
      const gone = res.status === 404 || res.status === 410;
      if (!gone && this.mode === "links") this.complete = false;
      // The URL that answered (a redirect's target) is gone too.
      if (gone) this.gone.add(finalPath);
      this.note(u.href, `http_${res.status}`, gone ? path : null);
      return false;
    }
    if (isBinary(res.body)) {
      this.note(u.href, "not_html", finalPath);
      return false;
    }
    const header = xRobotsTag(res.headers.get("x-robots-tag"));
    const page = extractPage(decodeHtml(res.body, res.headers.get("content-type")), res.url);
    const follow = this.mode === "links" && !page.nofollow && !header.nofollow;
    if (follow) { for (const link of page.links) this.discover(link); }
    if (page.noindex || header.noindex) {
      this.note(u.href, "noindex", finalPath);
      return false;
    }
    const canonical = page.canonical === null ? null : URL.parse(page.canonical);
    // A canonical on another site is not ours to index instead: the page stays.
    if (canonical && canonical.href !== final.href && siteKeyOf(canonical) === this.siteKey) {
      this.note(u.href, "canonical", finalPath);
      this.discover(canonical.href);
      return false;
    }
    let input;
    try {
      input = parse(PageItem, {
        url: finalPath,
        title: page.title.slice(0, 500).trim() || finalPath,
        description: page.description.slice(0, 1000),
        body: cutText(page.text, MAX_BODY_CHARS),
        ...(page.lang ? { lang: page.lang } : {}),
      });
    } catch {
      this.note(u.href, "invalid_url");
      return false;
    }
    return await this.keep(u, finalPath, res, input, follow ? page.links : []);
  }

  /** Stores a page (or notes it unchanged after a 304) and remembers its validators. */
  private async keep(
    requested: URL,
    path: string,
    res: FetchResult & { ok: true },
    input: PageInput | "unchanged",
    links: string[] = [],
  ): Promise<boolean> {
    const url = requested.href;
    if (this.claimed.has(path)) {
      this.note(url, "duplicate");
      return false;
    }
    this.claimed.add(path);
    let status: "created" | "updated" | "unchanged" = "unchanged";
    if (input !== "unchanged") {
      try {
        status = await this.serially(() =>
          this.s.pages.upsert(this.site.id, input, PLANS[this.site.plan].maxPages)
        );
      } catch (err) {
        if (!(err instanceof ApiError && err.code === "PLAN_FEATURE_UNAVAILABLE")) throw err;
        this.claimed.delete(path);
        this.pageLimit(url);
        return false;
      }
    }
    this.counts[status === "unchanged" ? "unchanged" : "indexed"]++;
    if (status !== "unchanged") await this.changed();
    const rec: CrawledRecord = { url: res.url };
    if (pathOf(requested) !== path) rec.from = pathOf(requested);
    const old = this.prev.get(path);
    const etag = res.status === 304 ? old?.etag : res.headers.get("etag");
    const lastModified = res.status === 304 ? old?.lastModified : res.headers.get("last-modified");
    if (etag) rec.etag = etag;
    if (lastModified) rec.lastModified = lastModified;
    if (this.mode === "links") {
      if (res.status === 304) rec.links = old?.links;
      else if (links.reduce((n, l) => n + l.length, 0) <= MAX_SAVED_LINKS_CHARS) {
        await this.s.kv.set(linksKey(this.site.id, path), links);
        rec.links = true;
      } else await this.s.kv.delete(linksKey(this.site.id, path));
    }
    await this.s.kv.set(crawledKey(this.site.id, path), rec);
    return true;
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.storing.then(fn);
    this.storing = run.catch(() => {});
    return run;
  }

  private async crawlSitemap(u: URL, depth: number) {
    const robots = await this.robotsFor(u);
    if (!robots.rules.isAllowed(pathOf(u))) {
      this.complete = false;
      return this.note(u.href, "robots");
    }
    const res = await this.fetcher.fetch(u.href, {
      headers: { Accept: "application/xml,text/xml;q=0.9,*/*;q=0.5" },
      signal: this.signal,
      beforeHop: (next) => this.hopRefusal(next, false),
      maxBytes: MAX_SITEMAP_BYTES,
      ...this.limits(),
    });
    if (!res.ok || res.status < 200 || res.status >= 300) {
      this.complete = false;
      return this.note(u.href, res.ok ? `http_${res.status}` : res.reason);
    }
    await this.readSitemap(res, depth);
  }

  /** Queues a sitemap's pages, or an index's sitemaps; false when it is not a sitemap. */
  private async readSitemap(res: FetchResult & { ok: true }, depth: number): Promise<boolean> {
    let entries;
    try {
      const text = await decodeSitemapBody(res.body, res.headers.get("content-type"), res.url);
      entries = parseSitemap(text);
    } catch (err) {
      this.complete = false;
      this.note(res.url, (err as Error).message === "too_large" ? "too_large" : "not_a_sitemap");
      return false;
    }
    if (entries.kind === "urlset") {
      for (const { loc } of entries.urls) this.discover(loc);
      return true;
    }
    for (const { loc } of entries.urls) {
      const u = URL.parse(loc.trim());
      if (!u || this.sitemaps.has(u.href) || depth + 1 > MAX_SITEMAP_DEPTH) continue;
      this.sitemaps.add(u.href);
      if (siteKeyOf(u) !== this.siteKey) {
        this.note(u.href, "off_site");
        continue;
      }
      this.enqueue({ kind: "sitemap", url: u, depth: depth + 1 });
    }
    return true;
  }

  /** robots.txt of a URL's origin, fetched once per crawl; RFC 9309 2.3.1 for its status. */
  private robotsFor(u: URL): Promise<RobotsState> {
    let state = this.robots.get(u.origin);
    if (!state) {
      state = this.loadRobots(u);
      this.robots.set(u.origin, state);
    }
    return state;
  }

  private async loadRobots(u: URL): Promise<RobotsState> {
    const res = await this.fetcher.fetch(`${u.origin}/robots.txt`, {
      headers: { Accept: "text/plain,*/*;q=0.5" },
      signal: this.signal,
      // RFC 9309 2.3.1.2: follow at least five redirects, even to other hosts.
      beforeHop: () => null,
      maxBytes: MAX_ROBOTS_BYTES,
      truncate: true,
      ...this.limits(),
      maxRedirects: 5,
    });
    // 0 stands for "unreachable"; a redirect chain too long counts as "unavailable" (a 3xx).
    const status = res.ok ? res.status : res.reason === "redirect_limit" ? 399 : 0;
    const verdict = robotsForStatus(status);
    if (verdict === "parse" && res.ok) {
      const rules = parseRobots(new TextDecoder().decode(res.body), USER_AGENT);
      if (rules.crawlDelay !== null) {
        const ms = Math.min(this.tuning.maxCrawlDelayMs, rules.crawlDelay * 1000);
        this.fetcher.limiter.setDelay(hostKey(u), Math.max(this.s.crawl.delayMs, ms));
      }
      return { rules, explicit: true };
    }
    // A server error or no answer means "disallow all" for now, which hides the site.
    if (verdict === "disallow_all") this.complete = false;
    const allow = verdict === "allow_all";
    return { rules: { isAllowed: () => allow, crawlDelay: null, sitemaps: [] }, explicit: false };
  }

  /**
   * Removes pages an earlier crawl stored that this one found gone, or, when this crawl
   * saw the whole site, that it no longer found at all. Failed fetches and pages over
   * the limit are kept: nothing indexed is lost to a bad day or a full plan.
   */
  private async removeGone() {
    for (const [path, rec] of this.prev) {
      if (this.claimed.has(path)) continue;
      // A page reached through a redirect is still listed while the URL that led to it is.
      const listed = this.listed.has(path) || (rec.from !== undefined && this.listed.has(rec.from));
      if (!this.gone.has(path) && !(this.complete && !listed)) continue;
      if (await this.s.pages.remove(this.site.id, path)) {
        this.counts.removed++;
        this.pending++;
      }
      await this.s.kv.delete(crawledKey(this.site.id, path));
      await this.s.kv.delete(linksKey(this.site.id, path));
    }
  }

  private async changed() {
    this.pending++;
    if (this.pending >= this.tuning.refreshEvery || Date.now() - this.lastRefresh >= 1000) {
      await this.refresh();
    }
  }

  refreshIfPending() {
    if (this.pending > 0 && !this.refreshing) this.refresh().catch(() => {});
  }

  /** One refresh at a time; changes made meanwhile are caught by the next or the last one. */
  private refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    this.pending = 0;
    this.lastRefresh = Date.now();
    this.refreshing = this.s.indexes.refresh(this.site.id).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }
}

/** The site a URL belongs to: host name and explicit port (http and https of a host are one site). */
export function siteKeyOf(u: URL): string {
  return `${normalizeHost(u.hostname)}|${u.port}`;
}

/** A page's site-relative path: path and query, no fragment. */
export function pathOf(u: URL): string {
  return u.pathname + u.search;
}

function mediaType(res: Response): string {
  return (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

/** HTML, or no type at all (then the bytes decide, see isBinary). */
function isHtmlType(t: string): boolean {
  return t === "" || t === "text/html" || t === "application/xhtml+xml";
}

function isSitemapType(t: string): boolean {
  return (t.endsWith("/xml") || t.endsWith("+xml") || t.includes("gzip")) &&
    t !== "application/xhtml+xml";
}

function isGzip(b: Uint8Array): boolean {
  return b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
}

/** A body that cannot be HTML: NUL bytes near the start, or a PDF's signature. */
function isBinary(b: Uint8Array): boolean {
  const head = b.subarray(0, 1024);
  return head.includes(0) || new TextDecoder().decode(head.subarray(0, 5)) === "%PDF-";
}

/** Decodes HTML by its Content-Type charset, else a <meta charset> near the start, else UTF-8. */
function decodeHtml(body: Uint8Array, contentType: string | null): string {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  const head = new TextDecoder("latin1").decode(body.subarray(0, 1024));
  const fromMeta = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
  try {
    return new TextDecoder(fromHeader ?? fromMeta ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder().decode(body);
  }
}

/** Text cut to `max` UTF-16 units without splitting a surrogate pair. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/** Rules of X-Robots-Tag that carry a value after a colon, unlike a user-agent scope. */
const VALUED_RULES = new Set([
  "unavailable_after",
  "max-snippet",
  "max-image-preview",
  "max-video-preview",
]);

/** Reads X-Robots-Tag: rules for everyone, or scoped to us ("sitesearchbot: noindex"). */
export function xRobotsTag(value: string | null): { noindex: boolean; nofollow: boolean } {
  const out = { noindex: false, nofollow: false };
  if (!value) return out;
  const ours = USER_AGENT.split("/")[0].toLowerCase();
  let scope: string | null = null;
  for (const raw of value.split(",")) {
    let token = raw.trim().toLowerCase();
    const m = /^([a-z][\w-]*)\s*:\s*(.*)$/.exec(token);
    if (m && !VALUED_RULES.has(m[1])) [scope, token] = [m[1], m[2]];
    if (scope !== null && scope !== ours) continue;
    for (const w of token.split(/\s+/)) {
      if (w === "noindex" || w === "none") out.noindex = true;
      if (w === "nofollow" || w === "none") out.nofollow = true;
    }
  }
  return out;
}
