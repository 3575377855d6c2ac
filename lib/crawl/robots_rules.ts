/**
 * robots.txt for a crawl (RFC 9309): fetched once per origin, its status read per
 * 2.3.1, and its Crawl-delay (up to a cap) applied to the host's request spacing.
 */
import { USER_AGENT } from "./http.ts";
import { hostKey } from "./limiter.ts";
import type { CrawlReport } from "./report.ts";
import { type CrawlConfig, type CrawlTuning, hopLimits } from "./tuning.ts";
import type { GuardedFetcher } from "./net/fetch.ts";
import { MAX_ROBOTS_BYTES, parseRobotsInSlices, type Robots, robotsForStatus } from "./robots.ts";

export interface RobotsState {
  rules: Robots;
  /** Rules the site wrote (2xx), as opposed to assumed after a 4xx, 5xx or no answer. */
  explicit: boolean;
}

/** One crawl's robots.txt rules per origin. */
export class RobotsCache {
  private robots = new Map<string, Promise<RobotsState>>();

  constructor(
    private d: {
      crawl: CrawlConfig;
      fetcher: GuardedFetcher;
      tuning: CrawlTuning;
      /** A crawl's report, told when robots.txt hides the site for now (then nothing is removed). */
      report?: CrawlReport;
      signal?: AbortSignal;
    },
  ) {}

  /** robots.txt of a URL's origin, fetched once per crawl; RFC 9309 2.3.1 for its status. */
  get(u: URL): Promise<RobotsState> {
    let state = this.robots.get(u.origin);
    if (!state) {
      state = this.load(u);
      this.robots.set(u.origin, state);
    }
    return state;
  }

  private async load(u: URL): Promise<RobotsState> {
    const { crawl, fetcher, tuning } = this.d;
    const res = await fetcher.fetch(`${u.origin}/robots.txt`, {
      headers: { Accept: "text/plain,*/*;q=0.5" },
      signal: this.d.signal,
      // RFC 9309 2.3.1.2: follow at least five redirects, even to other hosts.
      beforeHop: () => null,
      maxBytes: MAX_ROBOTS_BYTES,
      truncate: true,
      ...hopLimits(tuning),
      maxRedirects: 5,
    });
    // 0 stands for "unreachable"; a redirect chain too long counts as "unavailable" (a 3xx).
    const status = res.ok ? res.status : res.reason === "redirect_limit" ? 399 : 0;
    const verdict = robotsForStatus(status);
    if (verdict === "parse" && res.ok) {
      const rules = await parseRobotsInSlices(new TextDecoder().decode(res.body), USER_AGENT);
      if (rules.crawlDelay !== null) {
        const ms = Math.min(tuning.maxCrawlDelayMs, rules.crawlDelay * 1000);
        fetcher.limiter.setDelay(hostKey(u), Math.max(crawl.delayMs, ms));
      }
      return { rules, explicit: true };
    }
    // A server error or no answer means "disallow all" for now, which hides the site.
    if (verdict === "disallow_all" && this.d.report) this.d.report.complete = false;
    const allow = verdict === "allow_all";
    return { rules: { isAllowed: () => allow, crawlDelay: null, sitemaps: [] }, explicit: false };
  }
}
