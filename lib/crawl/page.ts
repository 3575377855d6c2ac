/**
 * One page URL of a crawl: checked against robots.txt and the page budget, fetched
 * (with the validators an earlier crawl kept), and then stored, left unchanged, or
 * noted skipped or failed with its reason. Following links, its links are discovered;
 * noindex (meta or X-Robots-Tag) and a same-site rel=canonical elsewhere are obeyed.
 */
import type { CrawlDiscovery } from "./discovery.ts";
import type { CrawlHistory } from "./history.ts";
import type { CrawlNames } from "./names.ts";
import {
  cutText,
  decodeHtml,
  isBinary,
  isHtmlType,
  mediaType,
  pathOf,
  siteKeyOf,
  xRobotsTag,
} from "./http.ts";
import type { CrawlQueue, CrawlTask } from "./queue.ts";
import type { CrawlReport } from "./report.ts";
import type { RobotsCache } from "./robots_rules.ts";
import type { CrawlStore } from "./store.ts";
import { contentHash } from "./duplicates.ts";
import { type CrawlTuning, hopLimits } from "./tuning.ts";
import { ParseError, parsePage } from "../parsing/sandbox.ts";
import type { FetchResult, GuardedFetcher } from "./net/fetch.ts";
import { MAX_BODY_CHARS, PageItem, parse } from "../http/schemas.ts";

const ACCEPT_HTML = { Accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5" };
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

/** Crawls page URLs for one crawl. */
export class PageCrawler {
  constructor(
    private d: {
      fetcher: GuardedFetcher;
      tuning: CrawlTuning;
      robots: RobotsCache;
      discovery: CrawlDiscovery;
      report: CrawlReport;
      history: CrawlHistory;
      names: CrawlNames;
      store: CrawlStore;
      queue: CrawlQueue;
      signal?: AbortSignal;
    },
  ) {}

  /**
   * Fetches and handles a queued page, or sets it aside while every page slot is in flight
   * (false: the task is still to do).
   */
  async crawl(task: CrawlTask & { kind: "page" }): Promise<boolean> {
    const { discovery, report, store, queue } = this.d;
    const u = task.url;
    const path = pathOf(u);
    const robots = await this.d.robots.get(u);
    if (!robots.rules.isAllowed(path)) {
      report.pages.queued--; // never a page this crawl may store
      report.note(u.href, "robots", robots.explicit ? path : null);
      return true;
    }
    if (store.full()) {
      store.pageLimit(u.href);
      return true;
    }
    // Slots held by fetches in flight may come free: wait for them rather than refuse.
    if (!store.canReserve()) {
      queue.defer(task);
      return false;
    }
    store.reserve();
    let kept = false;
    try {
      const conditional = this.d.history.conditional(u, path, discovery.mode);
      const res = await this.d.fetcher.fetch(u.href, {
        headers: ACCEPT_HTML,
        conditional,
        signal: this.d.signal,
        beforeHop: (next) => discovery.hopRefusal(next, false),
        accept: (r) => isHtmlType(mediaType(r)) ? null : "not_html",
        maxBytes: this.d.tuning.maxBodyBytes,
        ...hopLimits(this.d.tuning),
      });
      kept = await this.handle(u, res, null, task.lastmod);
      report.pages.settled++;
    } finally {
      if (!kept) store.release();
      // A slot came free or the limit was reached: either way the waiting tasks can now decide.
      queue.retryDeferred();
    }
    return true;
  }

  /**
   * Turns a page's response into a stored page or a reason; true when a page slot is used.
   * `refused` (the start page left out by the patterns): its links are followed, nothing stored.
   * `lastmod`: the sitemap's, recorded with the page for the next crawl.
   */
  async handle(
    u: URL,
    res: FetchResult,
    refused: string | null = null,
    lastmod?: number,
  ): Promise<boolean> {
    const kept = await this.judge(u, res, refused, lastmod);
    // Counted at the end, with the page's other counts: a checkpoint taken while the page is
    // judged holds none of them, and a crawl resumed from it fetches the page once more.
    if (res.ok) this.d.report.counts.fetched++;
    return kept;
  }

  private async judge(
    u: URL,
    res: FetchResult,
    refused: string | null,
    lastmod?: number,
  ): Promise<boolean> {
    const { discovery, report, store } = this.d;
    const path = pathOf(u);
    if (!res.ok) {
      if (HIDING.has(res.reason) && discovery.mode === "links") report.complete = false;
      report.note(u.href, res.reason, GONE.has(res.reason) ? path : null);
      return false;
    }
    const final = new URL(res.url);
    const finalPath = pathOf(final);
    if (finalPath !== path) {
      report.gone.add(path);
      report.redirected(u.href, final.href);
      discovery.seen.add(final.href); // a later link to the target itself needs no second fetch
    }
    // A URL that redirects to a page names it (lib/meaning/url_names.ts).
    const reached = res.status === 304 || (res.status >= 200 && res.status < 300);
    if (reached) await this.d.names.note(path, finalPath === path ? null : finalPath, "redirect");
    if (res.status === 304) {
      if (discovery.mode === "links") {
        await discovery.follow(finalPath, await this.d.history.savedLinks(finalPath));
      }
      return store.keep(u, finalPath, res, "unchanged", [], lastmod);
    }
    if (res.status < 200 || res.status >= 300) {
      const gone = res.status === 404 || res.status === 410;
      if (!gone && discovery.mode === "links") report.complete = false;
      // The URL that answered (a redirect's target) is gone too.
      if (gone) report.gone.add(finalPath);
      report.note(u.href, `http_${res.status}`, gone ? path : null);
      return false;
    }
    if (isBinary(res.body)) {
      report.note(u.href, "not_html", finalPath);
      return false;
    }
    const header = xRobotsTag(res.headers.get("x-robots-tag"));
    let page;
    try {
      page = await parsePage(await decodeHtml(res.body, res.headers.get("content-type")), res.url);
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
      if (discovery.mode === "links") report.complete = false; // its links went unread
      report.note(u.href, `parse_${err.reason}`);
      return false;
    }
    const follow = discovery.mode === "links" && !page.nofollow && !header.nofollow;
    if (follow) await discovery.follow(finalPath, page.links);
    if (refused) {
      report.note(u.href, refused, finalPath);
      return false;
    }
    if (page.noindex || header.noindex) {
      report.note(u.href, "noindex", finalPath);
      return false;
    }
    const canonical = page.canonical === null ? null : URL.parse(page.canonical);
    // A canonical on another site is not ours to index instead: the page stays.
    if (canonical && canonical.href !== final.href && siteKeyOf(canonical) === discovery.siteKey) {
      // The page names the one it defers to; then, with no await between, it is counted.
      await this.d.names.note(finalPath, pathOf(canonical), "canonical");
      report.note(u.href, "canonical", finalPath);
      report.defers(u.href, canonical.href);
      discovery.discover(canonical.href);
      return false;
    }
    let input;
    try {
      input = parse(PageItem, {
        url: finalPath,
        title: page.title.slice(0, 500).trim() || finalPath,
        description: page.description.slice(0, 1000),
        body: cutText(page.text, MAX_BODY_CHARS),
        // In reading order, anchors kept; the store keeps as many as fit its metadata value.
        sections: page.sections.filter((x) => x.heading).slice(0, 1000).map((x) => ({
          heading: x.heading.slice(0, 200),
          anchor: x.anchor.slice(0, 200),
        })),
        ...(page.lang ? { lang: page.lang } : {}),
        ...(page.filters ? { filters: page.filters } : {}),
      });
    } catch {
      report.note(u.href, "invalid_url");
      return false;
    }
    const kept = page.codeShare ? { ...input, codeShare: page.codeShare } : input;
    // Byte-identical after extraction, wherever it was fetched from: the URL is not part of it.
    const { url: _, ...content } = kept;
    const twin = { hash: await contentHash(content), canonical: canonical?.href === final.href };
    return await store.keep(u, finalPath, res, kept, follow ? page.links : [], lastmod, twin);
  }
}
