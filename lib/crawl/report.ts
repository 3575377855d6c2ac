/**
 * A crawl's bookkeeping: the counts and the skipped or failed URLs it reports as it
 * goes, and what it learned of the site's paths (listed, stored, gone, seen whole),
 * which decides what becomes of the pages an earlier crawl stored.
 */
import { TrackedSet } from "./checkpoint.ts";
import type { UrlLedger } from "./url_ledger.ts";

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

/** Pages the crawl may store (on-site, allowed, robots permitting, within maxPages) and how many are settled. */
export interface CrawlProgress {
  done: number;
  total: number;
}

/** Where a crawl reports: live counts, and each URL it did not index with the reason. */
export interface CrawlSink {
  counts: CrawlCounts;
  /** `duplicateOf`: for a `duplicate`, the URL the page is stored under. */
  item(kind: "skipped" | "failed", url: string, reason: string, duplicateOf?: string): void;
  /** Something about a page that was stored all the same (filters that did not fit). */
  warn?(message: string): void;
}

/** Reasons that go in `failed`: the fetch gave no page. Every other reason is a choice: `skipped`. */
export const isFailure = (reason: string) =>
  reason.startsWith("http_") || reason.startsWith("parse_") || reason === "timeout" ||
  reason === "fetch_error" || reason === "not_a_sitemap" || reason === "too_large";

/** One crawl's counts and path sets; counts are the sink's own, so they are live. */
export class CrawlReport {
  readonly counts: CrawlCounts;
  /** Same-site paths this crawl found listed or linked. */
  readonly listed: Set<string>;
  /** Paths stored (indexed or unchanged) by this crawl, and those being stored now. */
  readonly claimed: Set<string>;
  /** Paths this crawl found gone: 404/410, noindex, canonical elsewhere, redirected, … */
  readonly gone: Set<string>;
  /** False once something may have hidden part of the site: then unlisted pages are kept. */
  complete = true;
  /** Page URLs queued that the crawl may store, and those settled (progress before the page cap). */
  pages = { queued: 0, settled: 0 };

  /**
   * `sets` lets a resumable crawl hand in sets that record their changes; `ledger` keeps what
   * became of each URL for the owner's "why is this page not searchable?".
   */
  constructor(
    private sink: CrawlSink,
    sets?: { listed: Set<string>; claimed: Set<string>; gone: Set<string> },
    private ledger?: UrlLedger,
  ) {
    this.counts = sink.counts;
    this.listed = sets?.listed ?? new Set();
    this.claimed = sets?.claimed ?? new Set();
    this.gone = sets?.gone ?? new Set();
  }

  /** Counts a URL that was not indexed; `gonePath` marks a page that is no longer one of ours. */
  note(url: string, reason: string, gonePath: string | null = null, duplicateOf?: string) {
    const kind = isFailure(reason) ? "failed" : "skipped";
    this.counts[kind]++;
    this.sink.item(kind, url, reason, duplicateOf);
    this.ledger?.note(url, reason, duplicateOf);
    if (gonePath !== null) this.gone.add(gonePath);
  }

  /** The page is stored under `path` now, moved there from its twin's URL (duplicates.ts). */
  heldAt(path: string) {
    this.ledger?.indexed(path, true);
  }

  /** `url` names `to` its canonical URL: the one to index instead (noted skipped already). */
  defers(url: string, to: string) {
    this.ledger?.note(url, "canonical", to);
  }

  /** `url` answered with a redirect to `to`, a page of the site, which is judged on its own. */
  redirected(url: string, to: string) {
    this.ledger?.note(url, "redirect", to);
  }

  /**
   * Holds `path` for a page about to be stored, so no other URL stores it too. The claim is
   * saved only by `stored`, with its count: a checkpoint taken meanwhile holds neither, and
   * a crawl resumed from it stores the page (found unchanged, when it was written) once.
   */
  claim(path: string) {
    if (this.claimed instanceof TrackedSet) this.claimed.quietAdd(path);
    else this.claimed.add(path);
  }

  /** Lets go of a claim that stored nothing. */
  unclaim(path: string) {
    if (this.claimed instanceof TrackedSet) this.claimed.quietDelete(path);
    else this.claimed.delete(path);
  }

  /**
   * Counts a claimed page stored, and saves its claim: one step, never one without the other.
   * `fetched` false: kept as it was without a fetch (its sitemap lastmod is the one recorded).
   */
  stored(path: string, status: "indexed" | "unchanged", fetched = true) {
    this.counts[status]++;
    this.ledger?.indexed(path, fetched);
    if (this.claimed instanceof TrackedSet) this.claimed.announce(path);
    else this.claimed.add(path);
  }

  /** Tells the job about a page stored with less than it declared. */
  warn(message: string) {
    this.sink.warn?.(message);
  }

  /** Progress as an owner reads it: `total` capped by the page budget, `done` by `total`. */
  progress(budget: number): CrawlProgress {
    const total = Math.min(budget, this.pages.queued);
    return { done: Math.min(total, this.pages.settled), total };
  }

  /**
   * Whether a page an earlier crawl stored is to go: found gone, or, when this crawl saw
   * the whole site, not found at all. `from` is the listed path that redirected to it.
   */
  isGone(path: string, from?: string): boolean {
    if (this.claimed.has(path)) return false;
    // A page reached through a redirect is still listed while the URL that led to it is.
    const listed = this.listed.has(path) || (from !== undefined && this.listed.has(from));
    return this.gone.has(path) || (this.complete && !listed);
  }
}
