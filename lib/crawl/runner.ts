/**
 * Running one crawl job while this instance holds its lease (leases.ts): the crawl rebuilt
 * from its marks, its marks, items and record committed every second, each commit checked
 * against the record this runner last wrote and renewing the lease.
 */
import { type CrawlCounts, type CrawlSink } from "./report.ts";
import { DEFAULT_TUNING } from "./tuning.ts";
import { Crawl, CrawlStartError } from "./crawler.ts";
import { CrawlLog, loadMarks, pathPrefix, urlPrefix } from "./checkpoint.ts";
import {
  type CrawlJob,
  deletePrefix,
  FLUSH_MS,
  isLive,
  iso,
  itemPrefix,
  jobKey,
  MAX_ITEM_URL,
  MAX_LISTED,
  MAX_WARNINGS,
  releaseLock,
  TTL,
} from "./job_record.ts";
import { commitBatches, keyBytes, valueBytes } from "../storage/kv_limits.ts";
import { DomainError, isLocked, isStorageFault } from "../errors.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

/** Whether `err` is storage failing (503 from the resilient KV, an I/O fault, a held lock). */
const storageDown = (err: unknown) =>
  (err instanceof DomainError && err.code === "SERVICE_UNAVAILABLE") || isStorageFault(err) ||
  isLocked(err);

interface FlushOptions {
  /** The job's last write: only it may say the job ended (the site is free by then). */
  final?: boolean;
}

export interface RunnerOptions {
  /** How long the crawl runs between two saves of its whole state. */
  stepMs: number;
  /** Told when storage failed: the lease goes back, and the instance leaves the job a while. */
  onStorageDown: () => void;
}

/** Runs a job while this instance holds its lease; its whole state is saved every `stepMs`. */
export class JobRunner {
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
    private site: Site,
    private job: CrawlJob,
    private versionstamp: string,
    private opts: RunnerOptions,
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
      warn: (message) => {
        const list = job.warnings ??= [];
        if (list.length < MAX_WARNINGS && !list.includes(message)) list.push(message);
      },
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
    // Every flush renews the lease; one a second, so a lease lapses only when its runner is gone.
    const tick = setInterval(() => this.#flush(), FLUSH_MS);
    let finished = false;
    try {
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
      // A runner that died before its first save left marks but no state: they count all the same.
      crawl.restore(job.state, await loadMarks(s.kv, site.id, job.id));
      while (!(finished = await crawl.step(Date.now() + this.opts.stepMs))) {
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
        this.opts.onStorageDown();
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
        job.error = err instanceof DomainError
          ? `The crawl stopped: ${err.message}`
          : "The crawl stopped on an internal error.";
        s.log({ level: "error", msg: "crawl failed", job: job.id, error: String(err) });
      }
    } finally {
      clearInterval(tick);
      if (this.#crawl) job.state = this.#crawl.state();
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
      // A crawl that ended done settled every page it queued, whatever counts a resume from
      // marks saved a moment ahead of the record may have left one off.
      if (job.status === "done") job.progress = { ...job.progress, done: job.progress.total };
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
