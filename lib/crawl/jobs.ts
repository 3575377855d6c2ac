/**
 * Crawl jobs in KV, run in steps from the KV queue. One record per job in API.md's
 * shape, its skipped and failed URLs under keys of their own (a KV value holds 64 KiB),
 * and a per-site lock naming the live job, so one site never has two crawls.
 *
 * A step is one queue message: the instance that takes it claims the job (its id and a
 * heartbeat in the record), rebuilds the crawl from the marks earlier steps left
 * (checkpoint.ts), runs it for up to `stepMs`, and either finishes the job or saves its
 * state and enqueues the next step in one commit. The runner rewrites the record about
 * once a second; a write that finds the record changed by someone else stops it.
 *
 * When an instance goes away mid-step, its heartbeat goes stale: the queue's own
 * redelivery, or any instance sweeping at start (and every `staleMs` while it runs),
 * or a read of the job, hands the step to a live instance, which goes on from the
 * marks without fetching stored pages again. A new crawl of the site, asked for while a
 * job is stale, replaces it (the stale one ends "interrupted").
 */
import { type CrawlCounts, type CrawlSink, emptyCounts } from "./report.ts";
import { type CrawlTuning, DEFAULT_TUNING } from "./tuning.ts";
import { Crawl, CrawlStartError, type CrawlState, initialState } from "./crawler.ts";
import { CrawlLog, loadMarks, pathPrefix, urlPrefix } from "./checkpoint.ts";
import { MAX_PATTERN, MAX_PATTERNS, patternError } from "./patterns.ts";
import { ApiError, busy, invalid } from "../http/errors.ts";
import { newId } from "../sites/keys.ts";
import { checkUrl } from "./net/guard.ts";
import { PLANS } from "../limits/plans.ts";
import { onQueue } from "../queue.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

export type CrawlStatus = "queued" | "running" | "done" | "failed" | "interrupted";

export interface CrawlJob {
  id: string;
  siteId: string;
  status: CrawlStatus;
  url: string;
  maxPages: number;
  /** The patterns this crawl applies (its own include, else the site's; both excludes). */
  include: string[];
  exclude: string[];
  /** Started by an admin call or by the site's re-crawl schedule. */
  trigger: "manual" | "schedule";
  counts: CrawlCounts;
  /** Skipped and failed URLs per reason, exact (the lists stop at MAX_LISTED). */
  reasons: Record<string, number>;
  startedAt: string;
  finishedAt: string | null;
  /** Why a failed job failed, in words. */
  error: string | null;
  /** Clock time of the runner's last write. */
  heartbeatAt: number;
  /** Steps finished so far; a queue message names the step it runs. */
  step: number;
  /** The instance running the current step, null between steps. */
  runner: string | null;
  /** What the crawl knows besides its marks. */
  state: CrawlState;
  /** Start of the site's previous finished crawl (for sitemap lastmod), ms. */
  lastmodSince: number | null;
  tuning?: Partial<CrawlTuning>;
}

export interface CrawlItem {
  url: string;
  reason: string;
}

/** What the API answers for a job. */
export type CrawlJobView =
  & Omit<CrawlJob, "siteId" | "heartbeatAt" | "runner" | "state" | "tuning" | "lastmodSince">
  & { skipped?: CrawlItem[]; failed?: CrawlItem[] };

/** The last crawl a site had: what a scheduled re-crawl repeats. */
export interface SiteCrawlInfo {
  url: string;
  maxPages: number;
  include: string[];
  exclude: string[];
  lastStartedAt: number;
  /** Start of the last crawl that finished ("done"). */
  lastDoneStartedAt: number | null;
}

/** Skipped and failed URLs kept per job, each; the counts are always exact. */
export const MAX_LISTED = 1000;
/** A running job silent for this long is taken for dead. */
export const STALE_MS = 30_000;
/** How long one step runs before it saves its state and queues the next. */
export const STEP_MS = 30_000;
const FLUSH_MS = 1000;
const JOB_TTL_MS = 30 * 24 * 3600_000;
const MAX_ITEM_URL = 2000;
const WRITE_BATCH = 200;
const HANDOFF_DELAY_MS = 1000;
export const RECRAWL_MS = { daily: 24 * 3600_000, weekly: 7 * 24 * 3600_000 } as const;
/** The re-crawl check's period where Deno.cron is not available (a timer on the queue). */
const TICK_MS = 3600_000;

const jobKey = (site: string, id: string) => ["crawljob", site, id];
const itemPrefix = (site: string, id: string, kind: string) => ["crawlitem", site, id, kind];
const recentKey = (site: string, at: number, id: string) => ["crawlrecent", site, at, id];
const lockKey = (site: string) => ["crawllock", site];
export const siteCrawlKey = (site: string) => ["crawlsite", site];
const TICK_KEY = ["config", "recrawlTick"];
const TTL = { expireIn: JOB_TTL_MS };

interface StepMessage {
  kind: "crawl-step";
  siteId: string;
  jobId: string;
  step: number;
}

const isLive = (j: CrawlJob) => j.status === "queued" || j.status === "running";
const iso = (t: number) => new Date(t).toISOString();
const stepMessage = (j: CrawlJob): StepMessage => ({
  kind: "crawl-step",
  siteId: j.siteId,
  jobId: j.id,
  step: j.step,
});

/** One instance's crawl worker: its id, settings, and the runners it has going. */
interface Worker {
  id: string;
  staleMs: number;
  stepMs: number;
  running: Map<string, JobRunner>;
  /** Runners between two steps, kept so a next step here needs no rebuild; with the time they went idle. */
  idle: Map<string, { runner: JobRunner; since: number }>;
  sweeper?: ReturnType<typeof setInterval>;
  /** Shutting down: steps are left for other instances. */
  closing?: boolean;
}

const workers = new WeakMap<Services, Worker>();

function workerOf(s: Services, opts: { staleMs?: number; stepMs?: number } = {}): Worker {
  let w = workers.get(s);
  if (w) return w;
  w = {
    id: newId("run"),
    staleMs: opts.staleMs ?? STALE_MS,
    stepMs: opts.stepMs ?? STEP_MS,
    running: new Map(),
    idle: new Map(),
  };
  workers.set(s, w);
  const worker = w;
  onQueue<StepMessage>(s.kv, "crawl-step", (msg) => runStep(s, worker, msg));
  onQueue(s.kv, "recrawl-tick", () => recrawlTick(s));
  return w;
}

const isStale = (s: Services, j: CrawlJob, now = s.clock()) =>
  isLive(j) && now - j.heartbeatAt > workerOf(s).staleMs;

export interface StartedCrawl {
  job: CrawlJob;
  /** Live counts (from this instance's runner, or the job's record as it is written). */
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
  if (error) throw invalid(param, error);
}

/**
 * Creates a job and queues its first step. A start URL the crawler must never fetch is
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
  if (!checked.ok) throw invalid("url", REFUSED[checked.reason]);
  const now = s.clock();
  const info = (await s.kv.get<SiteCrawlInfo>(siteCrawlKey(site.id))).value;
  const settings = site.settings;
  const job: CrawlJob = {
    id: newId("cj"),
    siteId: site.id,
    status: "queued",
    url: req.url,
    maxPages: Math.min(req.maxPages ?? Infinity, PLANS[site.plan].maxPages),
    include: req.include ?? settings.include ?? [],
    exclude: [...new Set([...(settings.exclude ?? []), ...(req.exclude ?? [])])],
    trigger: opts.trigger ?? "manual",
    counts: emptyCounts(),
    reasons: {},
    startedAt: iso(now),
    finishedAt: null,
    error: null,
    heartbeatAt: now,
    step: 0,
    runner: null,
    state: initialState(),
    // lastmod only means something against a crawl of the same start URL.
    lastmodSince: info?.url === req.url ? info.lastDoneStartedAt : null,
    ...(opts.tuning ? { tuning: opts.tuning } : {}),
  };
  for (let attempt = 0; attempt < 10; attempt++) {
    const lock = await s.kv.get<string>(lockKey(site.id));
    const op = s.kv.atomic().check(lock);
    if (lock.value) {
      const held = await s.kv.get<CrawlJob>(jobKey(site.id, lock.value));
      if (held.value && isLive(held.value) && !isStale(s, held.value, now)) {
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
      .set(
        siteCrawlKey(site.id),
        {
          url: job.url,
          maxPages: req.maxPages ?? job.maxPages,
          include: req.include ?? [],
          exclude: req.exclude ?? [],
          lastStartedAt: now,
          lastDoneStartedAt: info?.lastDoneStartedAt ?? null,
        } satisfies SiteCrawlInfo,
      )
      .enqueue(stepMessage(job))
      .commit();
    if (res.ok) {
      const counts = structuredClone(job.counts);
      return {
        job: structuredClone(job),
        counts,
        done: watchJob(s, worker, job, counts),
        stop: () =>
          void stopJob(s, site.id, job.id, "The crawl was stopped.").catch((err) =>
            s.log({ level: "error", msg: "crawl stop failed", error: String(err) })
          ),
      };
    }
  }
  throw busy("The site's crawl state is busy. Retry.");
}

function interrupted(job: CrawlJob, now: number, error = job.error): CrawlJob {
  return { ...job, status: "interrupted", finishedAt: iso(now), runner: null, error };
}

/** Follows a job's record until it ends, keeping `counts` current; never rejects. */
async function watchJob(
  s: Services,
  w: Worker,
  job: CrawlJob,
  counts: CrawlCounts,
): Promise<CrawlJob> {
  let last = job;
  try {
    for await (const [e] of s.kv.watch<[CrawlJob]>([jobKey(job.siteId, job.id)])) {
      if (!e.value) break;
      last = e.value;
      Object.assign(counts, w.running.get(job.id)?.counts ?? last.counts);
      if (!isLive(last)) break;
    }
  } catch {
    // The KV closed: the job stands as last seen.
  }
  return structuredClone(last);
}

/** Ends a live job "interrupted" with `error`; its runner notices on its next write and stops. */
async function stopJob(s: Services, siteId: string, jobId: string, error: string) {
  w(s)?.running.get(jobId)?.abort(error);
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await s.kv.get<CrawlJob>(jobKey(siteId, jobId));
    if (!entry.value || !isLive(entry.value)) return;
    const res = await s.kv.atomic().check(entry)
      .set(entry.key, interrupted(entry.value, s.clock(), error), TTL).commit();
    if (res.ok) return await releaseLock(s, siteId, jobId);
  }
}

const w = (s: Services) => workers.get(s);

/** Runs one step of a job, if it is this step's turn and no live runner holds it. */
async function runStep(s: Services, worker: Worker, msg: StepMessage): Promise<void> {
  // Thrown, the message goes back to the queue for another instance.
  if (worker.closing) throw new Error("This instance is shutting down.");
  const entry = await s.kv.get<CrawlJob>(jobKey(msg.siteId, msg.jobId));
  const job = entry.value;
  if (!job || !isLive(job) || job.step !== msg.step) return; // done, or an older message
  if (job.runner && !isStale(s, job)) return; // someone is on it
  const site = await s.sites.get(job.siteId);
  if (!site) return await stopJob(s, job.siteId, job.id, "The site was deleted.");
  const now = s.clock();
  const claimed: CrawlJob = { ...job, status: "running", runner: worker.id, heartbeatAt: now };
  const res = await s.kv.atomic().check(entry).set(entry.key, claimed, TTL).commit();
  if (!res.ok) return; // another instance claimed it first
  // The runner of the step before, when it was here and nobody wrote the job since.
  const kept = worker.idle.get(job.id)?.runner;
  worker.idle.delete(job.id);
  const runner = kept?.resumes(entry.versionstamp!)
    ? kept.resume(claimed, res.versionstamp)
    : new JobRunner(s, worker, site, claimed, res.versionstamp);
  if (kept && kept !== runner) await kept.dispose();
  worker.running.set(job.id, runner);
  try {
    await runner.run();
  } finally {
    if (worker.running.get(job.id) === runner) worker.running.delete(job.id);
  }
  await evictIdle(worker, Date.now() - 2 * worker.staleMs);
}

/** Closes the runners idle since before `before` (their next step went elsewhere). */
async function evictIdle(worker: Worker, before: number) {
  for (const [id, { runner, since }] of worker.idle) {
    if (since > before) continue;
    worker.idle.delete(id);
    await runner.dispose();
  }
}

/**
 * Runs a job's steps: the crawl rebuilt from its marks (or kept from this runner's step
 * before), its record, marks and items written as it goes.
 */
class JobRunner {
  #items: { kind: "skipped" | "failed"; n: number; url: string; reason: string }[] = [];
  #listed: { skipped: number; failed: number };
  #writing: Promise<void> = Promise.resolve();
  #lost = false;
  #ctl = new AbortController();
  #log = new CrawlLog();
  #crawl: Crawl | null = null;
  readonly counts: CrawlCounts;

  constructor(
    private s: Services,
    private worker: Worker,
    private site: Site,
    private job: CrawlJob,
    private versionstamp: string,
  ) {
    this.counts = job.counts;
    this.#listed = {
      skipped: Math.min(job.counts.skipped, MAX_LISTED),
      failed: Math.min(job.counts.failed, MAX_LISTED),
    };
  }

  abort(reason: string) {
    this.#ctl.abort(new Error(reason));
  }

  #handingOff = false;

  /** Stops the step and hands it back to the queue (the instance is shutting down). */
  handOff(): Promise<void> {
    this.#handingOff = true;
    this.abort("The instance is shutting down.");
    return this.#done.promise;
  }

  #done = Promise.withResolvers<void>();

  /** Whether this runner wrote the job last (`versionstamp`), so its crawl is still current. */
  resumes(versionstamp: string): boolean {
    return this.#crawl !== null && !this.#lost && this.versionstamp === versionstamp;
  }

  /** Takes up the next step with the record just claimed. */
  resume(claimed: CrawlJob, versionstamp: string): this {
    Object.assign(this.job, {
      status: claimed.status,
      runner: claimed.runner,
      heartbeatAt: claimed.heartbeatAt,
    });
    this.versionstamp = versionstamp;
    this.#done = Promise.withResolvers<void>();
    return this;
  }

  /** Lets go of the crawl's connections. */
  async dispose() {
    await this.#crawl?.close().catch(() => {});
    this.#crawl = null;
  }

  async run(): Promise<void> {
    try {
      await this.#run();
    } finally {
      this.#done.resolve();
    }
  }

  async #run(): Promise<void> {
    const { s, job, site } = this;
    const sink: CrawlSink = {
      counts: job.counts,
      item: (kind, url, reason) => {
        job.reasons[reason] = (job.reasons[reason] ?? 0) + 1;
        if (this.#listed[kind] >= MAX_LISTED) return;
        this.#items.push({
          kind,
          n: this.#listed[kind]++,
          url: url.slice(0, MAX_ITEM_URL),
          reason,
        });
      },
    };
    const fresh = this.#crawl === null;
    const crawl = this.#crawl ??= new Crawl(
      s,
      site,
      {
        url: job.url,
        maxPages: job.maxPages,
        include: job.include,
        exclude: job.exclude,
        lastmodSince: job.lastmodSince,
      },
      sink,
      { ...DEFAULT_TUNING, ...job.tuning },
      this.#ctl.signal,
      this.#log,
    );
    const tick = setInterval(() => this.#flush(), FLUSH_MS);
    let finished = false;
    try {
      // A step that died before its first save left marks but no state: they count all the same.
      if (fresh) crawl.restore(job.state, await loadMarks(s.kv, site.id, job.id));
      finished = await crawl.step(Date.now() + this.worker.stepMs);
      if (finished) job.status = "done";
    } catch (err) {
      finished = !this.#handingOff;
      const aborted = this.#ctl.signal.aborted;
      job.status = aborted ? "interrupted" : "failed";
      if (aborted) job.error = (this.#ctl.signal.reason as Error).message;
      else if (err instanceof CrawlStartError) job.error = err.message;
      else {
        job.error = err instanceof ApiError
          ? `The crawl stopped: ${err.message}`
          : "The crawl stopped on an internal error.";
        s.log({ level: "error", msg: "crawl failed", job: job.id, error: String(err) });
      }
    } finally {
      clearInterval(tick);
      job.state = crawl.state();
    }
    // Nobody awaits a queue handler's outcome: a failure here (KV closed) must not escape.
    try {
      if (this.#handingOff) {
        // The same step again, from the marks saved now, on whichever instance takes it.
        [job.runner, job.status, job.error] = [null, "running", null];
        await this.#flush({ next: true, hold: true });
      } else if (finished) {
        // The last marks and items, still as a running job; then, still the owner, the
        // checkpoint goes, and only then does the job say it ended.
        await this.#flush({ hold: true });
        if (!this.#lost) {
          await deletePrefix(s.kv, urlPrefix(site.id, job.id));
          await deletePrefix(s.kv, pathPrefix(site.id, job.id));
          await this.#finish();
          // Last of all: once the job says it ended, this runner writes nothing more.
          job.finishedAt = iso(s.clock());
          job.runner = null;
          await this.#flush();
        }
      } else {
        job.step++;
        job.runner = null;
        await this.#flush({ next: true });
        if (!this.#lost) {
          this.worker.idle.set(job.id, { runner: this, since: Date.now() });
          return;
        }
      }
    } catch (err) {
      s.log({ level: "error", msg: "crawl step end failed", job: job.id, error: String(err) });
    }
    await this.dispose();
  }

  /** At the end of the last step: frees the site and notes the crawl for re-crawls. */
  async #finish() {
    const { s, job, site } = this;
    await releaseLock(s, site.id, job.id);
    if (job.status === "done") {
      const key = siteCrawlKey(site.id);
      const info = await s.kv.get<SiteCrawlInfo>(key);
      if (info.value?.url === job.url) {
        const at = Date.parse(job.startedAt);
        await s.kv.set(key, { ...info.value, lastDoneStartedAt: at });
      }
    }
  }

  /** Serialised writes; a failed one is logged and the next tick tries again. */
  #flush(opts: { next?: boolean; hold?: boolean } = {}): Promise<void> {
    this.#writing = this.#writing.then(() => this.#write(opts)).catch((err) => {
      this.s.log({ level: "error", msg: "crawl job write failed", error: String(err) });
    });
    return this.#writing;
  }

  /**
   * Marks and items first, then the record, each commit checked against the record this
   * runner last wrote (nobody else took the job); `next` queues the next step with it,
   * `hold` keeps the record "running" whatever the outcome so far.
   */
  async #write({ next = false, hold = false }: { next?: boolean; hold?: boolean }) {
    if (this.#lost) return;
    const { s, job, site } = this;
    // Everything expires with the job: a checkpoint nobody finishes does not stay forever.
    const writes: [Deno.KvKey, unknown][] = [
      ...this.#log.take(site.id, job.id),
      ...this.#items.splice(0).map((it): [Deno.KvKey, unknown] => [
        [...itemPrefix(site.id, job.id, it.kind), it.n],
        { url: it.url, reason: it.reason },
      ]),
    ];
    const key = jobKey(site.id, job.id);
    const mine = { key, versionstamp: this.versionstamp };
    for (let i = 0; i < writes.length; i += WRITE_BATCH) {
      const op = s.kv.atomic().check(mine);
      for (const [k, v] of writes.slice(i, i + WRITE_BATCH)) op.set(k, v, TTL);
      if (!(await op.commit()).ok) return this.#lose();
    }
    job.heartbeatAt = s.clock();
    if (this.#crawl) job.state = this.#crawl.state();
    const record = hold ? { ...job, status: "running" as const } : job;
    const op = s.kv.atomic().check(mine).set(key, record, TTL);
    // A hand-off waits a moment, so that the instance going away does not take it back.
    if (next) op.enqueue(stepMessage(job), hold ? { delay: HANDOFF_DELAY_MS } : undefined);
    const res = await op.commit();
    if (res.ok) {
      this.versionstamp = res.versionstamp;
      return;
    }
    this.#lose();
  }

  /** Someone stopped the job, or took it for dead and handed it on: stop, say nothing more. */
  #lose() {
    this.#lost = true;
    if (!this.#ctl.signal.aborted) this.abort("The job was taken over elsewhere.");
  }
}

async function deletePrefix(kv: Deno.Kv, prefix: Deno.KvKey) {
  while (true) {
    const keys: Deno.KvKey[] = [];
    for await (const e of kv.list({ prefix }, { limit: 500 })) keys.push(e.key);
    if (!keys.length) return;
    const op = kv.atomic();
    for (const k of keys) op.delete(k);
    await op.commit();
  }
}

async function releaseLock(s: Services, siteId: string, jobId: string) {
  const lock = await s.kv.get<string>(lockKey(siteId));
  if (lock.value === jobId) await s.kv.atomic().check(lock).delete(lockKey(siteId)).commit();
}

/**
 * A stale live job is handed to the queue again: its record says "no runner, fresh
 * heartbeat" and the step's message is enqueued, in one commit (so only one instance
 * does it). Answers the job as it now stands.
 */
async function revive(s: Services, entry: Deno.KvEntryMaybe<CrawlJob>): Promise<CrawlJob | null> {
  return (await reviveEntry(s, entry)).job;
}

async function reviveEntry(s: Services, entry: Deno.KvEntryMaybe<CrawlJob>) {
  const job = entry.value;
  if (!job || !isStale(s, job)) return { job, revived: false };
  const next: CrawlJob = { ...job, runner: null, heartbeatAt: s.clock() };
  const res = await s.kv.atomic().check(entry).set(entry.key, next, TTL)
    .enqueue(stepMessage(next)).commit();
  if (res.ok) return { job: next, revived: true };
  return { job: (await s.kv.get<CrawlJob>(entry.key)).value, revived: false };
}

/** A job as the API shows it: no internals. */
export function jobView(job: CrawlJob): CrawlJobView {
  const {
    siteId: _s,
    heartbeatAt: _h,
    runner: _r,
    state: _st,
    tuning: _t,
    lastmodSince: _l,
    ...rest
  } = job;
  return rest;
}

/** One job with its skipped and failed URLs, or null. */
export async function getCrawlJob(
  s: Services,
  siteId: string,
  jobId: string,
): Promise<CrawlJobView | null> {
  const job = await revive(s, await s.kv.get<CrawlJob>(jobKey(siteId, jobId)));
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
  return { ...jobView(job), skipped, failed };
}

/** The site's most recent jobs, newest first, without their URL lists. */
export async function listCrawlJobs(s: Services, siteId: string, limit = 20) {
  const jobs: CrawlJobView[] = [];
  const iter = s.kv.list<string>({ prefix: ["crawlrecent", siteId] }, { reverse: true, limit });
  for await (const e of iter) {
    const job = await revive(s, await s.kv.get<CrawlJob>(jobKey(siteId, e.value)));
    if (job) jobs.push(jobView(job));
  }
  return jobs;
}

/**
 * Hands every job whose runner went silent to the queue again (see revive). Jobs with a
 * fresh heartbeat may belong to another live instance and are left alone. Returns the
 * ids of the jobs handed on.
 */
export async function recoverCrawls(s: Services): Promise<string[]> {
  const ids: string[] = [];
  for await (const lock of s.kv.list<string>({ prefix: ["crawllock"] })) {
    const siteId = lock.key[1] as string;
    const entry = await s.kv.get<CrawlJob>(jobKey(siteId, lock.value));
    if (!entry.value || !isLive(entry.value)) {
      await s.kv.atomic().check(lock).delete(lock.key).commit();
      continue;
    }
    const { job, revived } = await reviveEntry(s, entry);
    if (revived) ids.push(job!.id);
  }
  return ids;
}

/** Stops a site's live crawl for good (the site is being deleted). True when one was live. */
export async function stopSiteCrawl(s: Services, siteId: string): Promise<boolean> {
  const lock = await s.kv.get<string>(lockKey(siteId));
  if (!lock.value) return false;
  await stopJob(s, siteId, lock.value, "The site was deleted.");
  return true;
}

/**
 * Starts the scheduled re-crawls that are due: every site with `recrawl` set whose last
 * crawl started at least a day (or week) ago crawls its last start URL again.
 */
export async function recrawlDue(s: Services): Promise<string[]> {
  const started: string[] = [];
  const now = s.clock();
  let cursor: string | undefined;
  do {
    const page = await s.sites.listPage({ cursor, limit: 500 });
    for (const site of page.sites) {
      const every = site.settings.recrawl ? RECRAWL_MS[site.settings.recrawl] : null;
      if (!every) continue;
      const info = (await s.kv.get<SiteCrawlInfo>(siteCrawlKey(site.id))).value;
      if (!info || now - info.lastStartedAt < every) continue;
      try {
        const { job } = await startCrawlJob(s, site, {
          url: info.url,
          maxPages: info.maxPages,
          include: info.include.length ? info.include : undefined,
          exclude: info.exclude,
        }, { trigger: "schedule" });
        started.push(job.id);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err; // in progress, or the URL is refused now
      }
    }
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return started;
}

/** When a site's next scheduled crawl is due (ISO), or null without a schedule or a first crawl. */
export async function nextCrawlAt(s: Services, site: Site): Promise<string | null> {
  const every = site.settings.recrawl ? RECRAWL_MS[site.settings.recrawl] : null;
  if (!every) return null;
  const info = (await s.kv.get<SiteCrawlInfo>(siteCrawlKey(site.id))).value;
  return info ? iso(info.lastStartedAt + every) : null;
}

/** The timer on the queue where Deno.cron is missing: one tick an hour, whichever instances run. */
async function recrawlTick(s: Services) {
  await recrawlDue(s).catch((err) =>
    s.log({ level: "error", msg: "scheduled re-crawl failed", error: String(err) })
  );
  await scheduleTick(s, true);
}

/** Queues the next tick unless one is already queued (`force` after a tick ran). */
async function scheduleTick(s: Services, force = false) {
  const entry = await s.kv.get<number>(TICK_KEY);
  const now = s.clock();
  // A tick due long ago was lost with its instance: queue a new one.
  if (!force && entry.value && entry.value > now - TICK_MS) return;
  await s.kv.atomic().check(entry).set(TICK_KEY, now + TICK_MS)
    .enqueue({ kind: "recrawl-tick" }, { delay: TICK_MS }).commit();
}

export interface CrawlWorker {
  /** Starts the re-crawls due (what the hourly Deno.cron calls). */
  recrawlDue: () => Promise<void>;
  /** Stops the sweeping timer. */
  stop: () => void;
  /** Stops sweeping and hands the steps running here back to the queue (at shutdown). */
  shutdown: () => Promise<void>;
}

/**
 * Makes this instance a crawl worker: it takes queued steps, hands stale jobs on at
 * start and every `staleMs`, and, without Deno.cron, keeps the hourly re-crawl tick queued.
 */
export function startCrawlWorker(
  s: Services,
  opts: { staleMs?: number; stepMs?: number; cron?: boolean } = {},
): CrawlWorker {
  const worker = workerOf(s, opts);
  const sweep = () =>
    recoverCrawls(s).catch((err) =>
      s.log({ level: "error", msg: "crawl sweep failed", error: String(err) })
    );
  sweep();
  worker.sweeper = setInterval(sweep, worker.staleMs);
  if (!opts.cron) {
    scheduleTick(s).catch((err) =>
      s.log({ level: "error", msg: "re-crawl tick failed", error: String(err) })
    );
  }
  return {
    recrawlDue: async () => void await recrawlDue(s),
    stop: () => clearInterval(worker.sweeper),
    shutdown: async () => {
      worker.closing = true;
      clearInterval(worker.sweeper);
      await Promise.all([...worker.running.values()].map((r) => r.handOff()));
      await evictIdle(worker, Infinity);
    },
  };
}
