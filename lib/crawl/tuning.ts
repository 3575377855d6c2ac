/** How hard a crawl pushes: parallelism, deadlines and size caps, with their defaults. */
import { GuardedFetcher } from "./net/fetch.ts";
import { USER_AGENT } from "./http.ts";

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

/** The deadlines and redirect cap every GuardedFetcher request of a crawl takes. */
export function hopLimits(t: CrawlTuning) {
  return {
    headersTimeoutMs: t.headersTimeoutMs,
    bodyTimeoutMs: t.bodyTimeoutMs,
    maxRedirects: t.maxRedirects,
  };
}

export interface CrawlConfig {
  /** Also allow 127.0.0.0/8 and [::1], for the demo and tests; nothing else internal. */
  allowLoopback: boolean;
  /** Politeness delay between two requests to one host. */
  delayMs: number;
  /** Resolves a host name to addresses; tests inject one so no DNS packet leaves. */
  resolve?: (host: string) => Promise<string[]>;
}

/**
 * The crawler's guarded fetcher for `crawl`'s settings, as SiteSearchBot: a crawl's, and the
 * single fetches beside crawls (a sitemap watch, a URL looked at, an IndexNow key file).
 */
export function botFetcher(
  crawl: CrawlConfig,
  o: { concurrency: number; delayMs?: number; caCerts?: string[] },
): GuardedFetcher {
  return new GuardedFetcher({
    allowLoopback: crawl.allowLoopback,
    resolve: crawl.resolve,
    userAgent: USER_AGENT,
    concurrency: o.concurrency,
    delayMs: o.delayMs ?? crawl.delayMs,
    caCerts: o.caCerts,
  });
}
