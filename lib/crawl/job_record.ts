/**
 * A crawl job's record in KV and what every part of a job shares: its shape (docs/api.md's,
 * plus what a step needs to go on), its keys, its limits and a few small helpers.
 */
import { type CrawlCounts, type CrawlProgress, emptyCounts } from "./report.ts";
import type { CrawlTuning } from "./tuning.ts";
import type { CrawlState } from "./crawler.ts";
import { newId } from "../sites/keys.ts";
import type { Services } from "../services.ts";

export type CrawlStatus = "queued" | "running" | "done" | "failed" | "interrupted";
export type CrawlTrigger = "manual" | "schedule" | "refetch" | "indexnow" | "watch";

export interface CrawlJob {
  id: string;
  siteId: string;
  status: CrawlStatus;
  url: string;
  maxPages: number;
  /** The patterns this crawl applies (its own include, else the site's; both excludes). */
  include: string[];
  exclude: string[];
  /**
   * Started by an admin call, the site's re-crawl schedule, or, for a job that fetches only
   * named URLs (`urls`), a re-fetch call, an IndexNow ping or the sitemap watch.
   */
  trigger: CrawlTrigger;
  /** A job that fetches only the URLs it names, this many (refetch.ts), and nothing else. */
  urls?: number;
  counts: CrawlCounts;
  /** Pages done out of the pages this crawl may store (docs/api.md). */
  progress: CrawlProgress;
  /** Skipped and failed URLs per reason, exact (the lists stop at MAX_LISTED). */
  reasons: Record<string, number>;
  /** What pages were stored without (filters past the site's caps), each told once, at most MAX_WARNINGS. */
  warnings?: string[];
  startedAt: string;
  finishedAt: string | null;
  /** Why a failed job failed, in words. */
  error: string | null;
  /**
   * Clock time of the runner's last write: with `runner`, the job's lease, which every
   * checkpoint renews and which lapses `staleMs` after it.
   */
  heartbeatAt: number;
  /** Checkpoints saved so far (one per `STEP_MS` of crawling). */
  step: number;
  /** The instance holding the job's lease, null while the job waits for one (new, or handed back). */
  runner: string | null;
  /** What the crawl knows besides its marks. */
  state: CrawlState;
  /** The last cut staged in parts (checkpoint.ts) that this record commits. */
  staged?: number;
  tuning?: Partial<CrawlTuning>;
}

export interface CrawlItem {
  url: string;
  reason: string;
  /** For a `duplicate`: the URL the page is stored under. */
  duplicateOf?: string;
}

/** What the API answers for a job: `skipped` and `failed` are samples, paged by listCrawlUrls. */
export type CrawlJobView =
  & Omit<CrawlJob, "siteId" | "heartbeatAt" | "runner" | "state" | "staged" | "tuning">
  & { skipped?: CrawlItem[]; failed?: CrawlItem[] };

export type CrawlItemKind = "skipped" | "failed";

/** The last crawl a site had: what a scheduled re-crawl repeats. */
export interface SiteCrawlInfo {
  url: string;
  maxPages: number;
  include: string[];
  exclude: string[];
  lastStartedAt: number;
}

/** Skipped and failed URLs kept per job, each (one small KV entry apiece); the counts are always exact. */
export const MAX_LISTED = 100_000;
/** URLs of each list a job's record answers with; the rest are paged (listCrawlUrls). */
export const SAMPLE_LISTED = 20;
/** A lease not renewed for this long has lapsed: its runner is taken for dead. */
export const LEASE_LAPSE_MS = 10_000; // ten missed heartbeats (one a second): the runner is gone
/** How long the crawl runs between two saves of its whole state (the marks are saved every FLUSH_MS). */
export const STEP_MS = 30_000;
/** How often an instance looks for jobs that wait for a lease or whose lease lapsed. */
export const SWEEP_MS = 2000;
/** Jobs one instance runs at once; the others wait for another instance or a free slot. */
export const MAX_RUNNING = 8;
/**
 * Of those, jobs one site runs at once on an instance (its crawl and a re-fetch beside it):
 * a site whose re-fetches hang on a page that never answers holds two slots, not all eight.
 */
export const MAX_RUNNING_PER_SITE = 2;
export const FLUSH_MS = 1000;
export const JOB_TTL_MS = 30 * 24 * 3600_000;
export const MAX_ITEM_URL = 2000;
export const MAX_WARNINGS = 20;

export const jobKey = (site: string, id: string) => ["crawljob", site, id];
export const itemPrefix = (site: string, id: string, kind: string) => ["crawlitem", site, id, kind];
export const recentKey = (site: string, at: number, id: string) => ["crawlrecent", site, at, id];
/** A site's live job: one at a time, and the list every instance sweeps for jobs to take. */
export const LOCK_PREFIX = ["crawllock"];
export const lockKey = (site: string) => [...LOCK_PREFIX, site];
/**
 * A live job that fetches named URLs: beside the site's one crawl, several at once, swept
 * like it (its key is under the same prefix, its value the job's id).
 */
export const refetchLockPrefix = (site: string) => [...LOCK_PREFIX, site, "urls"];
export const refetchLockKey = (site: string, job: string) => [...refetchLockPrefix(site), job];
export const siteCrawlKey = (site: string) => ["crawlsite", site];
export const TTL = { expireIn: JOB_TTL_MS };

export const isLive = (j: CrawlJob) => j.status === "queued" || j.status === "running";
export const iso = (t: number) => new Date(t).toISOString();

/** What makes one job differ from another when it is created; the rest starts the same. */
export type NewJob =
  & Pick<CrawlJob, "siteId" | "url" | "maxPages" | "include" | "exclude" | "trigger" | "state">
  & Partial<Pick<CrawlJob, "urls" | "counts" | "progress" | "tuning">>;

/** A new job's record, waiting for a lease (leases.ts) from `now` on. */
export function newJob(fields: NewJob, now: number): CrawlJob {
  return {
    id: newId("cj"),
    status: "queued",
    counts: emptyCounts(),
    progress: { done: 0, total: 0 },
    reasons: {},
    startedAt: iso(now),
    finishedAt: null,
    error: null,
    heartbeatAt: now,
    step: 0,
    runner: null,
    ...fields,
  };
}

/** The job as ended "interrupted" now, with `error`. */
export function interrupted(job: CrawlJob, now: number, error = job.error): CrawlJob {
  return { ...job, status: "interrupted", finishedAt: iso(now), runner: null, error };
}

/** Deletes every key under `prefix`, a batch at a time. */
export async function deletePrefix(kv: Deno.Kv, prefix: Deno.KvKey) {
  while (true) {
    const keys: Deno.KvKey[] = [];
    for await (const e of kv.list({ prefix }, { limit: 500 })) keys.push(e.key);
    if (!keys.length) return;
    const op = kv.atomic();
    for (const k of keys) op.delete(k);
    await op.commit();
  }
}

/** Frees the site for a new crawl, if `jobId` still holds it. */
export async function releaseLock(s: Services, siteId: string, jobId: string) {
  await s.kv.delete(refetchLockKey(siteId, jobId));
  const lock = await s.kv.get<string>(lockKey(siteId));
  if (lock.value === jobId) await s.kv.atomic().check(lock).delete(lockKey(siteId)).commit();
}

/** A job as the API shows it: no internals. */
export function jobView(job: CrawlJob): CrawlJobView {
  const {
    siteId: _s,
    heartbeatAt: _h,
    runner: _r,
    state: _st,
    staged: _sg,
    tuning: _t,
    ...rest
  } = job;
  // Records from before progress was kept: a finished one was done through and through.
  const progress = rest.progress ?? { done: 0, total: 0 };
  return { ...rest, progress };
}
