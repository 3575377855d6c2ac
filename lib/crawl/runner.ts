/**
 * Running crawl jobs on leases in KV, with no queue (the new Deno Deploy and a remote denokv
 * have none). A job's record holds its lease: the instance running it (`runner`) and its last
 * write (`heartbeatAt`). An instance takes a job that waits for a lease, or whose lease
 * lapsed, with an atomic check on the record; it then crawls with its own timers and renews
 * the lease in every commit that saves the crawl's marks and state, so a lease is only ever
 * held by the one that wrote last. A write that finds the record changed by someone else
 * stops the runner. At shutdown a runner hands its lease back (`runner: null`), and the next
 * sweep of any instance takes the job over from its saved marks.
 */
import { type CrawlCounts, type CrawlSink } from "./report.ts";
import { DEFAULT_TUNING } from "./tuning.ts";
import { Crawl, CrawlStartError } from "./crawler.ts";
import { CrawlLog, loadMarks, pathPrefix, urlPrefix } from "./checkpoint.ts";
import {
  type CrawlJob,
  deletePrefix,
  FLUSH_MS,
  interrupted,
  isLive,
  iso,
  itemPrefix,
  jobKey,
  LOCK_PREFIX,
  MAX_ITEM_URL,
  MAX_LISTED,
  MAX_RUNNING,
  releaseLock,
  STALE_MS,
  STEP_MS,
  TTL,
} from "./job_record.ts";
import { commitBatches, keyBytes, valueBytes } from "../storage/kv_limits.ts";
import { ApiError, isLocked, isStorageFault } from "../http/errors.ts";
import { newId } from "../sites/keys.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

/** One instance's crawl worker: its id, settings, and the runners it has going. */
export interface Worker {
  id: string;
  staleMs: number;
  stepMs: number;
  /** Jobs this instance runs at once. */
  maxRunning: number;
  running: Map<string, JobRunner>;
  /** Jobs being claimed now: they hold a slot of `maxRunning` already. */
  claiming: Set<string>;
  /** Jobs that met storage down here, and when this instance may take them again. */
  backoff: Map<string, number>;
  /** The sweep under way, and whether another was asked for meanwhile. */
  sweeping: Promise<string[]> | null;
  again: boolean;
  /** Shutting down: no job is taken, and running ones hand their lease back. */
  closing?: boolean;
}

const workers = new WeakMap<Services, Worker>();

/** This instance's worker for `s`, made on first use. */
export function workerOf(s: Services): Worker {
  let w = workers.get(s);
  if (w) return w;
  w = {
    id: newId("run"),
    staleMs: STALE_MS,
    stepMs: STEP_MS,
    maxRunning: MAX_RUNNING,
    running: new Map(),
    claiming: new Set(),
    backoff: new Map(),
    sweeping: null,
    again: false,
  };
  workers.set(s, w);
  return w;
}

/** This instance's worker for `s`; `opts` set its timings. */
export function crawlWorker(
  s: Services,
  opts: { staleMs?: number; stepMs?: number; maxRunning?: number } = {},
) {
  const w = workerOf(s);
  if (opts.staleMs) w.staleMs = opts.staleMs;
  if (opts.stepMs) w.stepMs = opts.stepMs;
  if (opts.maxRunning) w.maxRunning = opts.maxRunning;
  return { staleMs: w.staleMs };
}

/** Hands the leases of the jobs running here back (at shutdown); nothing is taken after. */
export async function handOffSteps(s: Services) {
  const worker = workerOf(s);
  worker.closing = true;
  await Promise.all([...worker.running.values()].map((r) => r.handOff()));
}

/** Resolves once no job runs here, or after `ms`. */
export async function whileRunning(s: Services, ms: number) {
  const worker = workerOf(s);
  const until = Date.now() + ms;
  while (worker.running.size + worker.claiming.size > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, Math.min(1000, until - Date.now())));
  }
}

/** A live job whose lease was held but not renewed for longer than `staleMs`. */
export const isStale = (s: Services, j: CrawlJob, now = s.clock()) =>
  isLive(j) && j.runner !== null && now - j.heartbeatAt > workerOf(s).staleMs;

/** A live job that any instance may take: it waits for a lease, or its lease lapsed. */
export const isClaimable = (s: Services, j: CrawlJob, now = s.clock()) =>
  isLive(j) && (j.runner === null || isStale(s, j, now));

/**
 * Takes every job here that waits for a lease or whose lease lapsed, as far as this
 * instance has room; ends the locks of jobs that ended. Sweeps run one at a time: one asked
 * for during another runs right after it. Answers the ids of the jobs taken.
 */
export function sweepCrawls(s: Services): Promise<string[]> {
  const worker = workerOf(s);
  if (worker.sweeping) {
    worker.again = true;
    return worker.sweeping;
  }
  const run = async () => {
    const taken: string[] = [];
    do {
      worker.again = false;
      taken.push(...await sweepOnce(s, worker));
    } while (worker.again && !worker.closing);
    return taken;
  };
  return worker.sweeping = run().finally(() => worker.sweeping = null);
}

async function sweepOnce(s: Services, worker: Worker): Promise<string[]> {
  const taken: string[] = [];
  for await (const lock of s.kv.list<string>({ prefix: LOCK_PREFIX })) {
    if (worker.closing) break;
    const siteId = lock.key[1] as string;
    const entry = await s.kv.get<CrawlJob>(jobKey(siteId, lock.value));
    if (!entry.value || !isLive(entry.value)) {
      await s.kv.atomic().check(lock).delete(lock.key).commit();
      continue;
    }
    if (await claim(s, worker, entry)) taken.push(entry.value.id);
  }
  return taken;
}

/** Ends a live job "interrupted" with `error`; its runner notices on its next write and stops. */
export async function stopJob(s: Services, siteId: string, jobId: string, error: string) {
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

/** How long an instance leaves a job alone after its storage failed here. */
const STORAGE_RETRY_MS = 5000;

/** Whether `err` is storage failing (503 from the resilient KV, an I/O fault, a held lock). */
const storageDown = (err: unknown) =>
  (err instanceof ApiError && err.code === "SERVICE_UNAVAILABLE") || isStorageFault(err) ||
  isLocked(err);

interface FlushOptions {
  /** The job's last write: only it may say the job ended (the site is free by then). */
  final?: boolean;
}

/**
 * Takes the job's lease, if it is free or lapsed and this instance has room, and runs the
 * job here without waiting for it. Whether it was taken.
 */
async function claim(
  s: Services,
  worker: Worker,
  entry: Deno.KvEntryMaybe<CrawlJob>,
): Promise<boolean> {
  const job = entry.value;
  if (!job || worker.closing || !isClaimable(s, job)) return false;
  if (worker.running.has(job.id) || worker.claiming.has(job.id)) return false;
  if (worker.running.size + worker.claiming.size >= worker.maxRunning) return false;
  if ((worker.backoff.get(job.id) ?? 0) > Date.now()) return false;
  worker.backoff.delete(job.id);
  worker.claiming.add(job.id);
  try {
    const site = await s.sites.get(job.siteId);
    if (!site) {
      await stopJob(s, job.siteId, job.id, "The site was deleted.");
      return false;
    }
    const claimed: CrawlJob = {
      ...job,
      status: "running",
      runner: worker.id,
      heartbeatAt: s.clock(),
      error: null,
    };
    const res = await s.kv.atomic().check(entry).set(entry.key, claimed, TTL).commit();
    if (!res.ok || worker.closing) return false; // another instance took it first
    const runner = new JobRunner(s, worker, site, claimed, res.versionstamp);
    worker.running.set(job.id, runner);
    void runner.run().finally(() => {
      if (worker.running.get(job.id) === runner) worker.running.delete(job.id);
      // A slot is free: a job waiting for one goes on here at once.
      if (!worker.closing) void sweepCrawls(s).catch(() => {});
    });
    return true;
  } finally {
    worker.claiming.delete(job.id);
  }
}

/**
 * Runs a job while this instance holds its lease: the crawl rebuilt from its marks, its
 * record, marks and items written as it goes, its whole state saved every `stepMs`.
 */
class JobRunner {
  #items: { kind: "skipped" | "failed"; n: number; url: string; reason: string }[] = [];
  #listed: { skipped: number; failed: number };
  #writing: Promise<void> = Promise.resolve();
  #lost = false;
  #ctl = new AbortController();
  #log = new CrawlLog();
  #crawl: Crawl | null = null;
  #handingOff = false;
  #done = Promise.withResolvers<void>();
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

  /** Stops the crawl and hands the lease back (the instance is shutting down). */
  handOff(): Promise<void> {
    this.#handingOff = true;
    this.abort("The instance is shutting down.");
    return this.#done.promise;
  }

  async run(): Promise<void> {
    try {
      await this.#run();
    } finally {
      await this.#crawl?.close().catch(() => {}); // its connections
      this.#crawl = null;
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
    const crawl = this.#crawl = new Crawl(
      s,
      site,
      {
        url: job.url,
        maxPages: job.maxPages,
        include: job.include,
        exclude: job.exclude,
      },
      sink,
      { ...DEFAULT_TUNING, ...job.tuning },
      this.#ctl.signal,
      this.#log,
    );
    // Every flush renews the lease; one a second, so a lease lapses only when its runner is gone.
    const tick = setInterval(() => this.#flush(), FLUSH_MS);
    let finished = false;
    try {
      // A runner that died before its first save left marks but no state: they count all the same.
      crawl.restore(job.state, await loadMarks(s.kv, site.id, job.id));
      while (!(finished = await crawl.step(Date.now() + this.worker.stepMs))) {
        job.step++;
        await this.#flush(); // the whole state, with the lease renewed
        if (this.#lost) return;
      }
      job.status = "done";
    } catch (err) {
      // Storage down is no fault of the crawl: the lease goes back with the marks saved so
      // far, and this instance leaves the job alone for a while (another may take it now).
      if (!this.#ctl.signal.aborted && storageDown(err)) {
        this.#handingOff = true;
        this.worker.backoff.set(job.id, Date.now() + STORAGE_RETRY_MS);
        s.log({
          level: "warn",
          msg: "crawl waits for storage",
          job: job.id,
          error: String(err),
        });
      }
      finished = !this.#handingOff;
      const aborted = this.#ctl.signal.aborted;
      job.status = aborted ? "interrupted" : "failed";
      if (aborted || this.#handingOff) {
        job.error = (this.#ctl.signal.reason as Error)?.message ?? null;
      } else if (err instanceof CrawlStartError) job.error = err.message;
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
    if (this.#lost) return;
    // Nobody awaits a runner's outcome: a failure here (KV closed) must not escape.
    try {
      if (this.#handingOff) {
        // The lease goes back: any instance's next sweep goes on from the marks saved now.
        [job.runner, job.status, job.error] = [null, "running", null];
        await this.#flush();
      } else if (finished) {
        // The last marks and items, still as a running job; then, still the owner, the
        // checkpoint goes, and only then does the job say it ended.
        await this.#flush();
        if (!this.#lost) {
          await deletePrefix(s.kv, urlPrefix(site.id, job.id));
          await deletePrefix(s.kv, pathPrefix(site.id, job.id));
          await releaseLock(s, site.id, job.id);
          // Last of all: once the job says it ended, this runner writes nothing more.
          job.finishedAt = iso(s.clock());
          job.runner = null;
          await this.#flush({ final: true });
        }
      }
    } catch (err) {
      s.log({ level: "error", msg: "crawl end failed", job: job.id, error: String(err) });
    }
  }

  /** Serialised writes; a failed one is logged and the next tick tries again. */
  #flush(opts: FlushOptions = {}): Promise<void> {
    this.#writing = this.#writing.then(() => this.#write(opts)).catch((err) => {
      this.s.log({ level: "error", msg: "crawl job write failed", error: String(err) });
    });
    return this.#writing;
  }

  /**
   * Marks and items first, then the record, each commit checked against the record this
   * runner last wrote (nobody else took the job) and renewing the lease. Until the final
   * write, an ended job's record still says "running": a tick's flush must never announce
   * the end while the site's lock is held.
   */
  async #write({ final = false }: FlushOptions) {
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
    // The record as it stands, with a fresh heartbeat: every commit carries it, so that a
    // long flush (100,000 marks) never leaves the lease to lapse.
    const record = () => {
      job.heartbeatAt = s.clock();
      if (this.#crawl) [job.state, job.progress] = [this.#crawl.state(), this.#crawl.progress()];
      return !final && !isLive(job) ? { ...job, status: "running" as const } : job;
    };
    const commit = async (op: Deno.AtomicOperation) => {
      const res = await op.set(key, record(), TTL).commit();
      if (!res.ok) return false;
      this.versionstamp = res.versionstamp;
      return true;
    };
    const reserve = keyBytes(key) + valueBytes(record()) + 1024;
    const room = { mutations: 2, keyBytes: keyBytes(key) * 2, bytes: reserve * 2 };
    for (const batch of commitBatches(writes, room)) {
      const op = s.kv.atomic().check({ key, versionstamp: this.versionstamp });
      for (const [k, v] of batch) op.set(k, v, TTL);
      if (!(await commit(op))) return this.#lose();
    }
    const op = s.kv.atomic().check({ key, versionstamp: this.versionstamp });
    if (!(await commit(op))) this.#lose();
  }

  /** Someone stopped the job, or took it for dead: stop, say nothing more. */
  #lose() {
    this.#lost = true;
    if (!this.#ctl.signal.aborted) this.abort("The job was taken over elsewhere.");
  }
}
