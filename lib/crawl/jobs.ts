/**
 * Crawl jobs: starting one (a record waiting for a lease and a per-site lock so one site
 * never has two crawls, in one commit), stopping, reading and listing them. Jobs run on
 * leases (runner.ts): the instance that starts a job usually takes it at once; when an
 * instance goes away mid-crawl, its lease lapses and any instance's sweep (at its start,
 * every few seconds, on a read of the job, on the per-minute cron) takes the job over from
 * the saved marks without fetching stored pages again. A new crawl of the site, asked for
 * while a job's lease has lapsed, replaces it ("interrupted").
 */
import type { CrawlCounts, CrawlProgress } from "./report.ts";
import type { CrawlTuning } from "./tuning.ts";
import { initialState } from "./crawler.ts";
import { MAX_PATTERN, MAX_PATTERNS, patternError } from "./patterns.ts";
import {
  type CrawlItem,
  type CrawlItemKind,
  type CrawlJob,
  type CrawlJobView,
  interrupted,
  isLive,
  itemPrefix,
  jobKey,
  jobView,
  lockKey,
  newJob,
  recentKey,
  refetchLockPrefix,
  SAMPLE_LISTED,
  type SiteCrawlInfo,
  siteCrawlKey,
  TTL,
} from "./job_record.ts";
import { isClaimable, isStale, kick, stopJob, type Worker, workerOf } from "./leases.ts";
import { busy, DomainError, invalid } from "../errors.ts";
import { checkUrl } from "./net/guard.ts";
import { PLANS } from "../limits/plans.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

export {
  type CrawlItem,
  type CrawlItemKind,
  type CrawlJob,
  type CrawlJobView,
  type CrawlStatus,
  jobView,
  LEASE_LAPSE_MS,
  MAX_LISTED,
  type SiteCrawlInfo,
  siteCrawlKey,
  STEP_MS,
} from "./job_record.ts";
export { crawlWorker, handOffLeases, sweepCrawls, whileRunning } from "./leases.ts";

export interface StartedCrawl {
  job: CrawlJob;
  /** Live counts (from this instance's runner, or the job's record as it is written). */
  counts: CrawlCounts;
  /** Pages done of those the crawl may store, as the job's record has it (once a second). */
  progress: CrawlProgress;
  /** Settles with the final job; never rejects. */
  done: Promise<CrawlJob>;
  /** Stops the crawl; the job ends "interrupted" (the CLI's Ctrl-C). */
  stop: () => void;
}

const REFUSED: Record<string, string> = {
  blocked_scheme: "url must use http or https.",
  blocked_loopback:
    "url points to this server's own machine (a loopback address such as 127.0.0.1 or localhost). The crawler fetches it only when the service runs with CRAWL_ALLOW_LOOPBACK=true, meant for demos and tests.",
  blocked_address:
    "url points to a private or internal network address. The crawler fetches only public addresses, so that nobody can use it to reach machines behind a firewall; use your site's public URL.",
  invalid_url: "url must be an absolute http(s) URL without a user name or password.",
  dns_error: "url's host name could not be resolved.",
};

/** Checks include/exclude lists: at most MAX_PATTERNS of at most MAX_PATTERN characters, each compiling. */
export function checkPatterns(param: string, patterns: string[] | undefined) {
  if (!patterns) return;
  if (patterns.length > MAX_PATTERNS || patterns.some((p) => p.length > MAX_PATTERN)) {
    throw invalid(
      param,
      `${param} takes at most ${MAX_PATTERNS} patterns of ${MAX_PATTERN} characters.`,
    );
  }
  const error = patternError(patterns);
  if (error) throw invalid(`${param}[${error.index}]`, error.message);
}

/**
 * Creates a job, waiting for a lease, and takes it on this instance if it has room. A start URL the crawler must never fetch is
 * refused at once (400), before any job exists; 409 CRAWL_IN_PROGRESS while another runs.
 */
export async function startCrawlJob(
  s: Services,
  site: Site,
  req: { url: string; maxPages?: number; include?: string[]; exclude?: string[] },
  opts: { tuning?: Partial<CrawlTuning>; trigger?: "manual" | "schedule" } = {},
): Promise<StartedCrawl> {
  const worker = workerOf(s);
  checkPatterns("include", req.include);
  checkPatterns("exclude", req.exclude);
  const checked = await checkUrl(req.url, s.crawl);
  if (!checked.ok) {
    const loopback = checked.blocked === "loopback";
    throw invalid("url", REFUSED[loopback ? "blocked_loopback" : checked.reason]);
  }
  const now = s.clock();
  const settings = site.settings;
  const job = newJob({
    siteId: site.id,
    url: req.url,
    maxPages: Math.min(req.maxPages ?? Infinity, PLANS[site.plan].maxPages),
    include: req.include ?? settings.include ?? [],
    exclude: [...new Set([...(settings.exclude ?? []), ...(req.exclude ?? [])])],
    trigger: opts.trigger ?? "manual",
    state: initialState(),
    ...(opts.tuning ? { tuning: opts.tuning } : {}),
  }, now);

  for (let attempt = 0; attempt < 10; attempt++) {
    const lock = await s.kv.get<string>(lockKey(site.id));
    const op = s.kv.atomic().check(lock);
    if (lock.value) {
      const held = await s.kv.get<CrawlJob>(jobKey(site.id, lock.value));
      if (held.value && isLive(held.value) && !isStale(s, held.value, now)) {
        throw new DomainError(
          "CRAWL_IN_PROGRESS",
          `Crawl ${held.value.id} of this site is still running. Wait for it to finish.`,
        );
      }
      if (held.value && isLive(held.value)) {
        op.check(held).set(held.key, interrupted(held.value, now), TTL);
      }
    }
    const res = await op
      .set(lockKey(site.id), job.id)
      .set(jobKey(site.id, job.id), job, TTL)
      .set(recentKey(site.id, now, job.id), job.id, TTL)
      .set(
        siteCrawlKey(site.id),
        {
          url: job.url,
          maxPages: req.maxPages ?? job.maxPages,
          include: req.include ?? [],
          exclude: req.exclude ?? [],
          lastStartedAt: now,
        } satisfies SiteCrawlInfo,
      )
      .commit();
    if (res.ok) {
      kick(s);
      const counts = structuredClone(job.counts);
      const progress = structuredClone(job.progress);
      return {
        job: structuredClone(job),
        counts,
        progress,
        done: watchJob(s, worker, job, counts, progress),
        stop: () =>
          void stopJob(s, site.id, job.id, "The crawl was stopped.").catch((err) =>
            s.log({ level: "error", msg: "crawl stop failed", error: String(err) })
          ),
      };
    }
  }
  throw busy("The site's crawl state is busy. Retry.");
}

/** Follows a job's record until it ends, keeping `counts` and `progress` current; never rejects. */
async function watchJob(
  s: Services,
  w: Worker,
  job: CrawlJob,
  counts: CrawlCounts,
  progress: CrawlProgress,
): Promise<CrawlJob> {
  let last = job;
  try {
    for await (const [e] of s.kv.watch<[CrawlJob]>([jobKey(job.siteId, job.id)])) {
      if (!e.value) break;
      last = e.value;
      Object.assign(counts, w.running.get(job.id)?.counts ?? last.counts);
      if (last.progress) Object.assign(progress, last.progress);
      if (!isLive(last)) break;
    }
  } catch {
    // The KV closed: the job stands as last seen.
  }
  return structuredClone(last);
}

/** The job, after asking this instance to take it if it waits for a lease or its lease lapsed. */
async function read(s: Services, siteId: string, jobId: string): Promise<CrawlJob | null> {
  const job = (await s.kv.get<CrawlJob>(jobKey(siteId, jobId))).value;
  if (job && isClaimable(s, job)) kick(s);
  return job;
}

/** One job with a sample of its skipped and failed URLs, or null. */
export async function getCrawlJob(
  s: Services,
  siteId: string,
  jobId: string,
): Promise<CrawlJobView | null> {
  const job = await read(s, siteId, jobId);
  if (!job) return null;
  const sample = async (kind: CrawlItemKind) =>
    (await listCrawlUrls(s, siteId, jobId, kind, null, SAMPLE_LISTED))?.urls ?? [];
  const [skipped, failed] = await Promise.all([sample("skipped"), sample("failed")]);
  return { ...jobView(job), skipped, failed };
}

/** Items read at most by one call for a reason's URLs. */
const MAX_SCAN = 5000;

/**
 * A page of a job's skipped or failed URLs (all, or those of one `reason`), in the order met, with the cursor of the
 * next page (null at the end; the cursor is the position of the next URL); null when
 * the site has no such job.
 */
export async function listCrawlUrls(
  s: Services,
  siteId: string,
  jobId: string,
  kind: CrawlItemKind,
  cursor: string | null,
  limit = 100,
  reason?: string,
): Promise<{ urls: CrawlItem[]; cursor: string | null } | null> {
  if (!(await s.kv.get(jobKey(siteId, jobId))).versionstamp) return null;
  const from = cursor === null ? 0 : Number(cursor);
  if (!Number.isSafeInteger(from) || from < 0 || String(from) !== (cursor ?? "0")) {
    throw invalid("cursor", "cursor must be a cursor this endpoint answered.");
  }
  const prefix = itemPrefix(siteId, jobId, kind);
  const urls: CrawlItem[] = [];
  let last = -1;
  // One reason's URLs: at most MAX_SCAN entries are read per call, so a page may hold fewer.
  const iter = s.kv.list<CrawlItem>({ start: [...prefix, from], end: [...prefix, Infinity] }, {
    limit: reason === undefined ? limit + 1 : MAX_SCAN + 1,
  });
  let scanned = 0;
  for await (const e of iter) {
    if (urls.length === limit || scanned === MAX_SCAN) return { urls, cursor: String(last + 1) };
    scanned++;
    last = e.key.at(-1) as number;
    if (reason === undefined || e.value.reason === reason) urls.push(e.value);
  }
  return { urls, cursor: null };
}

/** The site's most recent jobs, newest first, without their URL lists. */
export async function listCrawlJobs(s: Services, siteId: string, limit = 20) {
  const jobs: CrawlJobView[] = [];
  const iter = s.kv.list<string>({ prefix: ["crawlrecent", siteId] }, { reverse: true, limit });
  for await (const e of iter) {
    const job = await read(s, siteId, e.value);
    if (job) jobs.push(jobView(job));
  }
  return jobs;
}

/** What the dashboard's crawl form starts from: the last crawl's URL and cap, the site's patterns and schedule. */
export async function crawlSettingsOf(s: Services, site: Site) {
  const info = (await s.kv.get<SiteCrawlInfo>(siteCrawlKey(site.id))).value;
  const planMaxPages = PLANS[site.plan].maxPages;
  return {
    url: info?.url ?? "",
    maxPages: info && info.maxPages < planMaxPages ? info.maxPages : null,
    include: site.settings.include ?? [],
    exclude: site.settings.exclude ?? [],
    recrawl: site.settings.recrawl ?? null,
    planMaxPages,
  };
}

/** Stops a site's live crawl and re-fetches for good (the site is being deleted). True when one was live. */
export async function stopSiteCrawl(s: Services, siteId: string): Promise<boolean> {
  const live: string[] = [];
  for await (const e of s.kv.list<string>({ prefix: refetchLockPrefix(siteId) })) {
    live.push(e.value);
  }
  const lock = await s.kv.get<string>(lockKey(siteId));
  if (lock.value) live.push(lock.value);
  for (const id of live) await stopJob(s, siteId, id, "The site was deleted.");
  return live.length > 0;
}
