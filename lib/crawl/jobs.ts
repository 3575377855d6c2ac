/**
 * Crawl jobs in KV. One record per job in API.md's shape; its skipped and failed
 * URLs under keys of their own (a KV value holds 64 KiB, 1,000 URLs do not fit);
 * a per-site lock naming the running job, so one site never has two crawls. The
 * runner rewrites the record about once a second with a heartbeat. A job whose
 * heartbeat is older than STALE_MS belonged to a process that stopped: it is
 * reported "interrupted" (not resumed), which also frees the site for a new crawl.
 */
import { type CrawlCounts, emptyCounts } from "./report.ts";
import type { CrawlTuning } from "./tuning.ts";
import { crawlSite, CrawlStartError } from "./crawler.ts";
import { ApiError, busy, invalid } from "../http/errors.ts";
import { newId } from "../sites/keys.ts";
import { checkUrl } from "./net/guard.ts";
import { PLANS } from "../limits/plans.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

export type CrawlStatus = "queued" | "running" | "done" | "failed" | "interrupted";

export interface CrawlJob {
  id: string;
  siteId: string;
  status: CrawlStatus;
  url: string;
  maxPages: number;
  counts: CrawlCounts;
  /** Skipped and failed URLs per reason, exact (the lists stop at MAX_LISTED). */
  reasons: Record<string, number>;
  startedAt: string;
  finishedAt: string | null;
  /** Why a failed job failed, in words. */
  error: string | null;
  /** Clock time of the runner's last write. */
  heartbeatAt: number;
}

export interface CrawlItem {
  url: string;
  reason: string;
}

/** What the API answers for a job. */
export type CrawlJobView = Omit<CrawlJob, "siteId" | "heartbeatAt"> & {
  skipped?: CrawlItem[];
  failed?: CrawlItem[];
};

/** Skipped and failed URLs kept per job, each; the counts are always exact. */
export const MAX_LISTED = 1000;
/** A running job silent for this long is taken for dead. */
export const STALE_MS = 30_000;
const FLUSH_MS = 1000;
const JOB_TTL_MS = 30 * 24 * 3600_000;
const MAX_ITEM_URL = 2000;

const jobKey = (site: string, id: string) => ["crawljob", site, id];
const itemPrefix = (site: string, id: string, kind: string) => ["crawlitem", site, id, kind];
const recentKey = (site: string, at: number, id: string) => ["crawlrecent", site, at, id];
const lockKey = (site: string) => ["crawllock", site];
const TTL = { expireIn: JOB_TTL_MS };

const isLive = (j: CrawlJob) => j.status === "queued" || j.status === "running";
const isStale = (j: CrawlJob, now: number) => isLive(j) && now - j.heartbeatAt > STALE_MS;
const iso = (t: number) => new Date(t).toISOString();

export interface StartedCrawl {
  job: CrawlJob;
  /** Live counts, for an in-process progress display. */
  counts: CrawlCounts;
  /** Settles with the final job; never rejects. */
  done: Promise<CrawlJob>;
  /** Stops the crawl; the job ends "interrupted" (the CLI's Ctrl-C). */
  stop: () => void;
}

const REFUSED: Record<string, string> = {
  blocked_scheme: "url must use http or https.",
  blocked_address:
    "url points to a loopback, private or otherwise internal address; the crawler fetches only public addresses.",
  invalid_url: "url must be an absolute http(s) URL without a user name or password.",
  dns_error: "url's host name could not be resolved.",
};

/**
 * Creates a job and runs it in the background. A start URL the crawler must never fetch
 * is refused at once (400), before any job exists; 409 CRAWL_IN_PROGRESS while another runs.
 */
export async function startCrawlJob(
  s: Services,
  site: Site,
  req: { url: string; maxPages?: number },
  opts: { tuning?: Partial<CrawlTuning> } = {},
): Promise<StartedCrawl> {
  const checked = await checkUrl(req.url, s.crawl);
  if (!checked.ok) throw invalid("url", REFUSED[checked.reason]);
  const now = s.clock();
  const job: CrawlJob = {
    id: newId("cj"),
    siteId: site.id,
    status: "queued",
    url: req.url,
    maxPages: Math.min(req.maxPages ?? Infinity, PLANS[site.plan].maxPages),
    counts: emptyCounts(),
    reasons: {},
    startedAt: iso(now),
    finishedAt: null,
    error: null,
    heartbeatAt: now,
  };
  for (let attempt = 0; attempt < 10; attempt++) {
    const lock = await s.kv.get<string>(lockKey(site.id));
    const op = s.kv.atomic().check(lock);
    if (lock.value) {
      const held = await s.kv.get<CrawlJob>(jobKey(site.id, lock.value));
      if (held.value && isLive(held.value) && !isStale(held.value, now)) {
        throw new ApiError(
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
      .commit();
    if (res.ok) {
      const runner = new JobRunner(s, site, job, res.versionstamp, opts.tuning);
      return {
        job: structuredClone(job),
        counts: job.counts,
        done: runner.run(),
        stop: () => runner.stop(),
      };
    }
  }
  throw busy("The site's crawl state is busy. Retry.");
}

function interrupted(job: CrawlJob, now: number): CrawlJob {
  return { ...job, status: "interrupted", finishedAt: iso(now) };
}

/** Runs one job: the crawl, with its record, items and heartbeat written as it goes. */
class JobRunner {
  #buffer: { kind: "skipped" | "failed"; n: number; url: string; reason: string }[] = [];
  #listed = { skipped: 0, failed: 0 };
  #writing: Promise<void> = Promise.resolve();
  #lost = false;
  #ctl = new AbortController();

  constructor(
    private s: Services,
    private site: Site,
    private job: CrawlJob,
    private versionstamp: string,
    private tuning?: Partial<CrawlTuning>,
  ) {}

  async run(): Promise<CrawlJob> {
    const sink = {
      counts: this.job.counts,
      item: (kind: "skipped" | "failed", url: string, reason: string) => {
        this.job.reasons[reason] = (this.job.reasons[reason] ?? 0) + 1;
        if (this.#listed[kind] >= MAX_LISTED) return;
        this.#buffer.push({
          kind,
          n: this.#listed[kind]++,
          url: url.slice(0, MAX_ITEM_URL),
          reason,
        });
      },
    };
    this.job.status = "running";
    await this.#flush();
    const tick = setInterval(() => this.#flush(), FLUSH_MS);
    try {
      await crawlSite(this.s, this.site, this.job, sink, {
        signal: this.#ctl.signal,
        tuning: this.tuning,
      });
      this.job.status = "done";
    } catch (err) {
      this.job.status = this.#ctl.signal.aborted ? "interrupted" : "failed";
      if (this.#ctl.signal.aborted) this.job.error = (this.#ctl.signal.reason as Error).message;
      else if (err instanceof CrawlStartError) this.job.error = err.message;
      else {
        this.job.error = err instanceof ApiError
          ? `The crawl stopped: ${err.message}`
          : "The crawl stopped on an internal error.";
        this.s.log({ level: "error", msg: "crawl failed", job: this.job.id, error: String(err) });
      }
    } finally {
      clearInterval(tick);
      this.job.finishedAt = iso(this.s.clock());
      await this.#flush();
      // Nobody awaits a background job: a failure here (KV closed at shutdown) must not escape.
      await releaseLock(this.s, this.site.id, this.job.id).catch((err) =>
        this.s.log({ level: "error", msg: "crawl lock release failed", error: String(err) })
      );
    }
    return structuredClone(this.job);
  }

  stop() {
    this.#ctl.abort(new Error("The crawl was stopped."));
  }

  /** Serialised writes; a failed one is logged and the next tick tries again. */
  #flush(): Promise<void> {
    this.#writing = this.#writing.then(() => this.#write()).catch((err) => {
      this.s.log({ level: "error", msg: "crawl job write failed", error: String(err) });
    });
    return this.#writing;
  }

  async #write() {
    if (this.#lost) return;
    const items = this.#buffer.splice(0);
    for (let i = 0; i < items.length; i += 50) {
      const op = this.s.kv.atomic();
      for (const it of items.slice(i, i + 50)) {
        op.set([...itemPrefix(this.site.id, this.job.id, it.kind), it.n], {
          url: it.url,
          reason: it.reason,
        }, TTL);
      }
      await op.commit();
    }
    this.job.heartbeatAt = this.s.clock();
    const key = jobKey(this.site.id, this.job.id);
    const res = await this.s.kv.atomic()
      .check({ key, versionstamp: this.versionstamp })
      .set(key, this.job, TTL)
      .commit();
    if (res.ok) {
      this.versionstamp = res.versionstamp;
      return;
    }
    // Someone judged this job dead (its heartbeat looked stale) and said so: stop, say nothing more.
    this.#lost = true;
    this.#ctl.abort(new Error("The job was marked interrupted elsewhere."));
  }
}

async function releaseLock(s: Services, siteId: string, jobId: string) {
  const lock = await s.kv.get<string>(lockKey(siteId));
  if (lock.value === jobId) await s.kv.atomic().check(lock).delete(lockKey(siteId)).commit();
}

/** Marks a stale job interrupted and frees its site; answers the job as it now stands. */
async function settle(s: Services, entry: Deno.KvEntryMaybe<CrawlJob>): Promise<CrawlJob | null> {
  const job = entry.value;
  if (!job || !isStale(job, s.clock())) return job;
  const res = await s.kv.atomic().check(entry).set(entry.key, interrupted(job, s.clock()), TTL)
    .commit();
  if (!res.ok) return (await s.kv.get<CrawlJob>(entry.key)).value; // its runner wrote: alive
  await releaseLock(s, job.siteId, job.id);
  return interrupted(job, s.clock());
}

function view(job: CrawlJob): CrawlJobView {
  const { siteId: _, heartbeatAt: __, ...rest } = job;
  return rest;
}

/** One job with its skipped and failed URLs, or null. */
export async function getCrawlJob(
  s: Services,
  siteId: string,
  jobId: string,
): Promise<CrawlJobView | null> {
  const job = await settle(s, await s.kv.get<CrawlJob>(jobKey(siteId, jobId)));
  if (!job) return null;
  const items = async (kind: string) => {
    const out: CrawlItem[] = [];
    const iter = s.kv.list<CrawlItem>({ prefix: itemPrefix(siteId, jobId, kind) }, {
      limit: MAX_LISTED,
    });
    for await (const e of iter) out.push(e.value);
    return out;
  };
  const [skipped, failed] = await Promise.all([items("skipped"), items("failed")]);
  return { ...view(job), skipped, failed };
}

/** The site's most recent jobs, newest first, without their URL lists. */
export async function listCrawlJobs(s: Services, siteId: string, limit = 20) {
  const jobs: CrawlJobView[] = [];
  const iter = s.kv.list<string>({ prefix: ["crawlrecent", siteId] }, { reverse: true, limit });
  for await (const e of iter) {
    const job = await settle(s, await s.kv.get<CrawlJob>(jobKey(siteId, e.value)));
    if (job) jobs.push(view(job));
  }
  return jobs;
}

/**
 * At server start: every job whose runner went silent is marked interrupted and its
 * site freed. Jobs with a fresh heartbeat may belong to another live instance sharing
 * the KV and are left alone; once stale, reading them (or starting a crawl) settles them.
 */
export async function recoverCrawls(s: Services): Promise<string[]> {
  const ids: string[] = [];
  for await (const lock of s.kv.list<string>({ prefix: ["crawllock"] })) {
    const siteId = lock.key[1] as string;
    const entry = await s.kv.get<CrawlJob>(jobKey(siteId, lock.value));
    if (!entry.value) {
      await s.kv.atomic().check(lock).delete(lock.key).commit();
      continue;
    }
    const job = await settle(s, entry);
    if (job?.status === "interrupted" && isLive(entry.value)) ids.push(job.id);
  }
  return ids;
}
