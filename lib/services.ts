/** Everything the routes need, built once from the app's dependencies. */
import { type Clock, STALE_MS, systemClock } from "./clock.ts";
import type { CrawlConfig } from "./crawl/tuning.ts";
import { Conversations } from "./answers/conversations.ts";
import { Credits } from "./limits/credits.ts";
import { createExtractiveSummarizer } from "./answers/extractive.ts";
import { EVENTS, FAILED_SIGN_INS, IpLimit, PREVIEWS, SUMMARIES } from "./limits/ip_limit.ts";
import { jsonLogger, type Logger } from "./http/middleware.ts";
import { PageStore } from "./sites/pages.ts";
import { resilientKv } from "./storage/kv_retry.ts";
import { SearchQuota } from "./limits/quota.ts";
import { IndexBudget, ResultCache, SearchIndexes, Snapshots, WorkingSet } from "./search/mod.ts";
import type { TextSpill } from "./storage/text_spill.ts";
import { SiteStore } from "./sites/store.ts";
import { sha256HexSync } from "./sites/keys.ts";
import type { Summarizer } from "./answers/summarizer.ts";
import { Analytics } from "./analytics/recorder.ts";
import { ClickTokens } from "./analytics/click_tokens.ts";
import { Sessions } from "./http/session.ts";
import { Levers } from "./levers/levers.ts";
import { Shutdown } from "./shutdown.ts";
import type { TrustedProxies } from "./http/proxies.ts";

export interface AppOptions {
  kv: Deno.Kv;
  clock?: Clock;
  /** Token for the operator's admin calls; null disables them. */
  operatorToken?: string | null;
  /** Or only its SHA-256 hex (a generated token is never kept itself). */
  operatorTokenHash?: string | null;
  log?: Logger;
  /** Bytes the search indexes may hold before the least recently used go (INDEX_MEMORY_MB). */
  indexMemoryBytes?: number;
  /** Bytes of encoded search answers kept (RESULT_CACHE_MB; default 32 MB). */
  resultCacheBytes?: number;
  /** Save sites' indexes as snapshots in KV and load them instead of rebuilding (main.ts: on). */
  indexSnapshots?: boolean;
  /** Rehearse the largest index so far while quiet (search/warm.ts; main.ts: on, not on Deploy). */
  rehearseSearches?: boolean;
  /**
   * Tells background work that a search came (search/activity.ts `noteSearch`, the default).
   * The start's warm-up of the request path (http/warm_path.ts) passes one that tells nothing:
   * its searches are not visitors', and hold back no work of the service's own.
   */
  noteSearch?: () => void;
  /**
   * Where the indexes keep their pages' text instead of memory (storage/text_spill.ts; main.ts:
   * a file beside the KV file, not on Deploy); in memory when unset.
   */
  textSpill?: TextSpill | null;
  /** How old another instance's writes may be before a search notices them. */
  indexStaleMs?: number;
  /** The answerer; the built-in extractive one when none is given. */
  summarizer?: Summarizer;
  /** Summaries a minute per client IP and site (SUMMARY_IP_LIMIT_PER_MINUTE). */
  summaryIpLimitPerMinute?: number;
  /** How long a streamed answer may stay silent before a `: ping` comment. */
  ssePingMs?: number;
  /** Serve the demo site under /demo/ (false in production mode). */
  demo?: boolean;
  /** Crawler settings (env CRAWL_ALLOW_LOOPBACK, CRAWL_DELAY_MS in main.ts). */
  crawl?: Partial<CrawlConfig>;
  /** How long search analytics gather in memory before they go to KV. */
  analyticsFlushMs?: number;
  /** Click events a minute per client IP and site. */
  eventIpLimitPerMinute?: number;
  /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES); none by default. */
  trustedProxies?: TrustedProxies | null;
  /** A full garbage collection, where the platform tuning allows one; whether it ran. */
  collectGarbage?: () => boolean;
}

export interface Services {
  kv: Deno.Kv;
  clock: Clock;
  log: Logger;
  /** SHA-256 hex of the operator token (null: no operator calls). */
  operatorTokenHash: string | null;
  sites: SiteStore;
  pages: PageStore;
  /** Search indexes of pages: what /api/search answers from. */
  indexes: SearchIndexes;
  /** Encoded /api/search answers, keyed by index version (live search repeats itself). */
  resultCache: ResultCache;
  /** Where the indexes keep their pages' text instead of memory; null: in memory. */
  textSpill: TextSpill | null;
  /** Uploaded documents, kept like pages but apart: summaries cite them, search never shows them. */
  documents: PageStore;
  documentIndexes: SearchIndexes;
  quota: SearchQuota;
  credits: Credits;
  conversations: Conversations;
  ipLimit: IpLimit;
  summarizer: Summarizer;
  ssePingMs: number;
  crawl: CrawlConfig;
  analytics: Analytics;
  /** Each result's `click` token, and the check of a click event's. */
  clickTokens: ClickTokens;
  eventIpLimit: IpLimit;
  /** Owners' lever previews a minute per site. */
  previewLimit: IpLimit;
  /** Failed sign-ins and wrong admin tokens a minute per client address. */
  signInLimit: IpLimit;
  /** Proxies whose X-Forwarded-For names the client, for every per-address limit. */
  trustedProxies: TrustedProxies | null;
  /** A full garbage collection, where the platform tuning allows one (/api/admin/stats?gc=1). */
  collectGarbage: () => boolean;
  sessions: Sessions;
  /** Owners' synonyms and curations, as searches apply them. */
  levers: Levers;
  /** The instance stopping: answer streams in flight end cleanly before it exits. */
  shutdown: Shutdown;
  /** The HTTP server's counters (connections, evictions, refusals), set when main.ts runs it. */
  httpFront?: () => Record<string, number>;
  /**
   * The sites whose page and document indexes this instance holds, kept in KV for the next
   * instance to open before their visitors come (main.ts restores and starts them).
   */
  workingSets: WorkingSet[];
  /**
   * Gives back unused quota reservations, writes out counts held in memory and the working
   * sets (shutdown).
   */
  close(): Promise<void>;
}

/** Wires the stores around one KV. */
export function createServices(opts: AppOptions): Services {
  const clock = opts.clock ?? systemClock;
  // Every write below retries a lock held by another process and turns a failing store into 503.
  const log = opts.log ?? jsonLogger;
  const kv = resilientKv(opts.kv, log);
  const pages = new PageStore(kv, clock, "page");
  const documents = new PageStore(kv, clock, "doc");
  const sites = new SiteStore(kv, clock);
  const quota = new SearchQuota(kv, clock);
  const levers = new Levers(kv, clock, opts.indexStaleMs ?? STALE_MS);
  const operatorTokenHash = opts.operatorTokenHash ??
    (opts.operatorToken ? sha256HexSync(opts.operatorToken) : null);
  sites.onChange = (id) => quota.forget(id); // a change made here holds here at once
  const analytics = new Analytics(
    kv,
    clock,
    opts.analyticsFlushMs ?? 5_000,
    (err) => log({ level: "error", error: `analytics flush: ${err}` }),
  );
  // Page and document indexes share the one budget.
  const budget = new IndexBudget(opts.indexMemoryBytes);
  const spill = opts.textSpill;
  const keepBodies = spill ? (bytes: Uint8Array) => spill.keep(bytes) : undefined;
  const indexesOf = (store: PageStore) =>
    new SearchIndexes(store, {
      clock,
      staleMs: opts.indexStaleMs ?? STALE_MS,
      budget,
      snapshots: opts.indexSnapshots
        ? new Snapshots(kv, clock, store.prefix, keepBodies)
        : undefined,
      rehearse: opts.rehearseSearches,
      keepBodies,
      noteSearch: opts.noteSearch,
    });
  const indexes = indexesOf(pages), documentIndexes = indexesOf(documents);
  const workingSets = [
    new WorkingSet(kv, indexes, pages.prefix),
    new WorkingSet(kv, documentIndexes, documents.prefix),
  ];
  return {
    kv,
    clock,
    log,
    operatorTokenHash,
    sites,
    pages,
    indexes,
    resultCache: new ResultCache(opts.resultCacheBytes),
    textSpill: spill ?? null,
    documents,
    documentIndexes,
    quota,
    credits: new Credits(kv, clock),
    conversations: new Conversations(kv, clock),
    ipLimit: new IpLimit(kv, clock, SUMMARIES, opts.summaryIpLimitPerMinute),
    summarizer: opts.summarizer ?? createExtractiveSummarizer(),
    ssePingMs: opts.ssePingMs ?? 15_000,
    crawl: { allowLoopback: false, delayMs: 250, ...opts.crawl },
    analytics,
    clickTokens: new ClickTokens(kv),
    eventIpLimit: new IpLimit(kv, clock, EVENTS, opts.eventIpLimitPerMinute),
    previewLimit: new IpLimit(kv, clock, PREVIEWS),
    signInLimit: new IpLimit(kv, clock, FAILED_SIGN_INS),
    trustedProxies: opts.trustedProxies ?? null,
    collectGarbage: opts.collectGarbage ?? (() => false),
    sessions: new Sessions(kv, clock, sites, operatorTokenHash),
    levers,
    shutdown: new Shutdown(),
    workingSets,
    async close() {
      levers.close();
      await Promise.all([quota.close(), analytics.close(), ...workingSets.map((w) => w.close())]);
    },
  };
}
