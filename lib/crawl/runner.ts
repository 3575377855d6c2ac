/**
 * Running crawl steps. Each instance has one worker per KV: it takes step messages from
 * the queue, claims the job (its id and a heartbeat in the record, by an atomic check),
 * runs the crawl until the step's deadline, and saves its marks and state with the next
 * step's message in one commit. The runner of a step goes on with the next one when it
 * comes here and nobody wrote the job since; elsewhere the crawl is rebuilt from the
 * marks. A write that finds the record changed by someone else stops the runner.
 */
import { type CrawlCounts, type CrawlSink } from "./report.ts";
import { DEFAULT_TUNING } from "./tuning.ts";
import { Crawl, CrawlStartError } from "./crawler.ts";
import { CrawlLog, loadMarks, pathPrefix, urlPrefix } from "./checkpoint.ts";
import {
  type CrawlJob,
  deletePrefix,
  FLUSH_MS,
  HANDOFF_DELAY_MS,
  interrupted,
  isLive,
  iso,
  itemPrefix,
  jobKey,
  MAX_ITEM_URL,
  MAX_LISTED,
  releaseLock,
  STALE_MS,
  STEP_MS,
  type StepMessage,
  stepMessage,
  TTL,
} from "./job_record.ts";
import { commitBatches, keyBytes, valueBytes } from "../storage/kv_limits.ts";
import { ApiError, isLocked, isStorageFault } from "../http/errors.ts";
import { newId } from "../sites/keys.ts";
import { onQueue } from "../queue.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

/** One instance's crawl worker: its id, settings, and the runners it has going. */
export interface Worker {
  id: string;
  staleMs: number;
  stepMs: number;
  running: Map<string, JobRunner>;
  /** Runners between two steps, kept so a next step here needs no rebuild; with the time they went idle. */
  idle: Map<string, { runner: JobRunner; since: number }>;
  /** Shutting down: steps are left for other instances. */
  closing?: boolean;
}

const workers = new WeakMap<Services, Worker>();

/** This instance's worker for `s`, made (and listening to the queue) on first use. */
export function workerOf(s: Services): Worker {
  let w = workers.get(s);
  if (w) return w;
  w = {
    id: newId("run"),
    staleMs: STALE_MS,
    stepMs: STEP_MS,
    running: new Map(),
    idle: new Map(),
  };
  workers.set(s, w);
  const worker = w;
  onQueue<StepMessage>(s.kv, "crawl-step", (msg) => runStep(s, worker, msg));
  return w;
}

/** This instance's worker for `s`, taking queued steps; `opts` set its timings. */
export function crawlWorker(s: Services, opts: { staleMs?: number; stepMs?: number } = {}) {
  const w = workerOf(s);
  if (opts.staleMs) w.staleMs = opts.staleMs;
  if (opts.stepMs) w.stepMs = opts.stepMs;
  return { staleMs: w.staleMs };
}

/** Hands the steps running here back to the queue and lets go of idle ones (at shutdown). */
export async function handOffSteps(s: Services) {
  const worker = workerOf(s);
  worker.closing = true;
  await Promise.all([...worker.running.values()].map((r) => r.handOff()));
  await evictIdle(worker, Infinity);
}

/** A live job whose runner has been silent longer than `staleMs`. */
export const isStale = (s: Services, j: CrawlJob, now = s.clock()) =>
  isLive(j) && now - j.heartbeatAt > workerOf(s).staleMs;

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

/** How long a step that met storage down waits before it is tried again. */
const STORAGE_RETRY_MS = 5000;

/** Whether `err` is storage failing (503 from the resilient KV, an I/O fault, a held lock). */
const storageDown = (err: unknown) =>
  (err instanceof ApiError && err.code === "SERVICE_UNAVAILABLE") || isStorageFault(err) ||
  isLocked(err);

interface FlushOptions {
  /** Queue the next step with the record. */
  next?: boolean;
  /** How long the queued step waits (ms). */
  delay?: number;
  /** The job's last write: only it may say the job ended (the site is free by then). */
  final?: boolean;
}

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
  /** Set when storage failed: the step is handed on after this long. */
  #retryMs = 0;

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
      // Storage down is no fault of the crawl: the step is saved and tried again later, by
      // the queue's delayed message or, if even that write fails, by the stale-job sweep.
      if (!this.#ctl.signal.aborted && storageDown(err)) {
        this.#handingOff = true;
        this.#retryMs = STORAGE_RETRY_MS;
        s.log({
          level: "warn",
          msg: "crawl step waits for storage",
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
    // Nobody awaits a queue handler's outcome: a failure here (KV closed) must not escape.
    try {
      if (this.#handingOff) {
        // The same step again, from the marks saved now, on whichever instance takes it.
        [job.runner, job.status, job.error] = [null, "running", null];
        await this.#flush({ next: true, delay: this.#retryMs || HANDOFF_DELAY_MS });
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

  /** Serialised writes; a failed one is logged and the next tick tries again. */
  #flush(opts: FlushOptions = {}): Promise<void> {
    this.#writing = this.#writing.then(() => this.#write(opts)).catch((err) => {
      this.s.log({ level: "error", msg: "crawl job write failed", error: String(err) });
    });
    return this.#writing;
  }

  /**
   * Marks and items first, then the record, each commit checked against the record this
   * runner last wrote (nobody else took the job); `next` queues the next step with it.
   * Until the final write, an ended job's record still says "running": a tick's flush
   * must never announce the end while the site's lock is held.
   */
  async #write({ next = false, delay, final = false }: FlushOptions) {
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
    // long flush (100,000 marks) never leaves the job silent long enough to look dead.
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
    // A hand-off waits a moment, so that the instance going away does not take it back.
    if (next) op.enqueue(stepMessage(job), delay ? { delay } : undefined);
    if (!(await commit(op))) this.#lose();
  }

  /** Someone stopped the job, or took it for dead and handed it on: stop, say nothing more. */
  #lose() {
    this.#lost = true;
    if (!this.#ctl.signal.aborted) this.abort("The job was taken over elsewhere.");
  }
}
