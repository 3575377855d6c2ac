/**
 * Storing what a crawl keeps, the way the admin upsert does (PageStore.upsert): one
 * page slot per stored path within the crawl's page budget, upserts one at a time,
 * and a record of each stored page for the next crawl.
 */
import { withAdmittedFilters } from "../sites/filter_vocabulary.ts";
import type { CrawlDiscovery } from "./discovery.ts";
import type { CrawlHistory } from "./history.ts";
import type { IndexRefresher } from "./refresh.ts";
import type { CrawlReport } from "./report.ts";
import { DomainError } from "../errors.ts";
import { isKvLimitError } from "../storage/kv_limits.ts";
import type { FetchResult } from "./net/fetch.ts";
import type { PageInput } from "../sites/pages.ts";
import type { CrawlTwins, Twin } from "./duplicates.ts";
import { PLANS } from "../limits/plans.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

/** A crawl's page budget and its writes to the page store. */
export class CrawlStore {
  /** Pages this crawl may store. */
  readonly budget: number;
  /** Slots held by fetches in flight, kept or not. */
  private reserved = 0;
  /** Stores go one at a time: they all bump the site's one version key, so in parallel they only collide. */
  private storing: Promise<unknown> = Promise.resolve();

  constructor(
    private d: {
      s: Services;
      site: Site;
      report: CrawlReport;
      history: CrawlHistory;
      refresher: IndexRefresher;
      discovery: Pick<CrawlDiscovery, "mode">;
      twins: CrawlTwins;
    },
    maxPages: number,
  ) {
    this.budget = Math.min(maxPages, PLANS[d.site.plan].maxPages);
  }

  /** Whether the pages stored so far use up the budget. */
  full(): boolean {
    return this.d.report.claimed.size >= this.budget;
  }

  /** Whether a slot is free for one more fetch. */
  canReserve(): boolean {
    return this.reserved < this.budget;
  }

  /** Holds a slot for a fetch in flight. */
  reserve() {
    this.reserved++;
  }

  /** Frees a slot whose fetch stored nothing. */
  release() {
    this.reserved--;
  }

  /** Notes a page refused for the page limit. */
  pageLimit(url: string) {
    // Unfetched pages may hold links to more pages: what is unlisted now is not known gone.
    if (this.d.discovery.mode === "links") this.d.report.complete = false;
    this.d.report.note(url, "page_limit");
  }

  /**
   * Stores a page (or notes it unchanged after a 304) and remembers its validators. A page
   * KV cannot hold is a failed `too_large` entry: one page never stops the crawl.
   */
  async keep(
    requested: URL,
    path: string,
    res: FetchResult & { ok: true },
    input: PageInput | "unchanged",
    links: string[] = [],
    lastmod?: number,
    content?: { hash: string; canonical: boolean },
  ): Promise<boolean> {
    const { s, site, report, twins } = this.d;
    const url = requested.href;
    if (report.claimed.has(path)) {
      report.note(url, "duplicate", null, res.url);
      return false;
    }
    const twin = input === "unchanged" ? this.d.history.twin(path) ?? undefined : content;
    if (twin) {
      const me: Twin = { path, url: res.url, canonical: twin.canonical };
      // The same page as one stored already: set aside; the crawl's end says which URL keeps it.
      if (twins.twinOf(twin.hash, path)) {
        twins.setAside(twin.hash, me);
        report.gone.add(path);
        return false;
      }
      // Stored under another URL by an earlier crawl and not met yet: it stays there.
      const held = input === "unchanged" ? null : this.d.history.holder(twin.hash, path);
      if (held && !report.claimed.has(held.path)) {
        twins.adopt(twin.hash, held);
        twins.setAside(twin.hash, me);
        report.gone.add(path);
        return false;
      }
      twins.keep(twin.hash, me);
      // A page adopted here that now changes: what it held first goes under its twin.
      for (const { to } of twins.leaving(path, twin.hash)) await this.copy(path, to);
    }
    report.claim(path);
    let status: "created" | "updated" | "unchanged" = "unchanged";
    if (input !== "unchanged") {
      try {
        status = await this.serially(async () => {
          // The site's filter names and values are bounded: the page keeps what fits.
          const { page, warnings } = await withAdmittedFilters(s.kv, site.id, input);
          for (const w of warnings) report.warn(w);
          return await s.pages.upsert(site.id, page, PLANS[site.plan].maxPages);
        });
      } catch (err) {
        report.unclaim(path);
        if (twin) twins.release(twin.hash, path);
        if (isKvLimitError(err)) return this.tooLarge(url, err);
        if (!(err instanceof DomainError && err.code === "PLAN_FEATURE_UNAVAILABLE")) throw err;
        this.pageLimit(url);
        return false;
      }
    }
    if (status !== "unchanged") await this.d.refresher.changed();
    try {
      await this.d.history.remember(
        requested,
        path,
        res,
        this.d.discovery.mode,
        links,
        lastmod,
        twin,
      );
    } catch (err) {
      // The page is stored; only what a re-crawl would reuse is lost (it fetches it whole).
      if (!isKvLimitError(err)) throw err;
      this.d.s.log({ level: "warn", msg: "crawl record too large", url, error: String(err) });
    }
    // Counted last, after every await: the caller marks the task done in the same turn.
    report.stored(path, status === "unchanged" ? "unchanged" : "indexed");
    return true;
  }

  /**
   * At the crawl's end, each page met under several URLs goes under the one to keep
   * (duplicates.ts), and every other URL is reported a `duplicate` of it.
   */
  async settleTwins() {
    const { twins, report } = this.d;
    for (const g of twins.groups((path) => report.claimed.has(path))) {
      const at = g.best.path === g.kept.path || await this.move(g.kept, g.best) ? g.best : g.kept;
      for (const t of [g.best, ...g.others]) {
        if (t.path !== at.path) report.note(t.url, "duplicate", t.path, at.url);
      }
    }
  }

  /** Moves a stored page to its twin's path; false when it is no longer there to move. */
  private async move(from: Twin, to: Twin): Promise<boolean> {
    if (!(await this.copy(from.path, to))) return false;
    await this.d.s.pages.remove(this.d.site.id, from.path);
    this.d.report.claimed.delete(from.path);
    await this.d.refresher.changed();
    return true;
  }

  /** Writes the page stored at `from` under its twin `to` as well; false when it is not there. */
  private async copy(from: string, to: Twin): Promise<boolean> {
    const { s, site, report, history } = this.d;
    const page = await s.pages.get(site.id, from);
    if (!page) return false;
    const input: PageInput = {
      url: to.path,
      title: page.title,
      description: page.description,
      body: page.body,
      lang: page.lang,
      ...(page.sections ? { sections: page.sections } : { headings: page.headings ?? [] }),
      ...(page.codeShare !== undefined ? { codeShare: page.codeShare } : {}),
      ...(page.filters ? { filters: page.filters } : {}),
    };
    // The twin is written before the page leaves: one page more for a moment, never one less.
    await this.serially(() => s.pages.upsert(site.id, input, PLANS[site.plan].maxPages + 1));
    report.claimed.add(to.path);
    report.heldAt(to.path);
    report.gone.delete(to.path);
    report.listed.add(to.path);
    await history.moved(from, to.path, to.url);
    await this.d.refresher.changed();
    return true;
  }

  private tooLarge(url: string, err: unknown): false {
    this.d.s.log({
      level: "warn",
      msg: "crawled page too large to store",
      url,
      error: String(err),
    });
    this.d.report.note(url, "too_large");
    return false;
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.storing.then(fn);
    this.storing = run.catch(() => {});
    return run;
  }
}
