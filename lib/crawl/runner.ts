/**
 * Running one crawl job while this instance holds its lease (leases.ts): the crawl rebuilt
 * from its marks, its marks, items and record committed every second as one cut (see
 * checkpoint.ts), each commit checked against the record this runner last wrote and
 * renewing the lease.
 */
import { type CrawlCounts, type CrawlSink } from "./report.ts";
import { DEFAULT_TUNING } from "./tuning.ts";
import { Crawl, CrawlStartError } from "./crawler.ts";
import {
  CrawlLog,
  cutPrefix,
  loadMarks,
  pathPrefix,
  stageCut,
  twinPrefix,
  urlPrefix,
} from "./checkpoint.ts";
import {
  type CrawlItem,
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
import {
  commitBatchesInSlices,
  keyBytes,
  KV_LIMITS,
  sizeOf,
  valueBytes,
} from "../storage/kv_limits.ts";
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
  /** Told once the job said it ended done; what it does is its own (failures are logged). */
  afterDone?: (site: Site) => Promise<void>;
}

/** One instant of the crawl: the marks and items pending then, and the record that counts them. */
interface Cut {
  writes: [Deno.KvKey, unknown][];
  record: CrawlJob;
}

/** Runs a job while this instance holds its lease; its whole state is saved every `stepMs`. */
export class JobRunner {
  #items: { kind: "skipped" | "failed"; n: number; item: CrawlItem }[] = [];
  #listed: { skipped: number; failed: number };
  #writing: Promise<void> = Promise.resolve();
  #lost = false;
  #ctl = new AbortController();
  #log = new CrawlLog();
  #crawl: Crawl | null = null;
  #handingOff = false;
  #done = Promise.withResolvers<void>();
  /** The record as last committed: what a staging commit renews the lease with. */
  #saved: CrawlJob;
  readonly counts: CrawlCounts;

  constructor(
    private s: Services,
    private site: Site,
    private job: CrawlJob,
    private versionstamp: string,
    private opts: RunnerOptions,
  ) {
    this.counts = job.counts;
    this.#saved = structuredClone(job);
    this.#listed = {
      skipped: Math.min(job.counts.skipped, MAX_LISTED),
      failed: Math.min(job.counts.failed, MAX_LISTED),
    };
  }

  /** The site the job crawls (an instance counts its slots per site). */
  get siteId(): string {
    return this.site.id;
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
      item: (kind, url, reason, duplicateOf) => {
        job.reasons[reason] = (job.reasons[reason] ?? 0) + 1;
        if (this.#listed[kind] >= MAX_LISTED) return;
        const item: CrawlItem = { url: url.slice(0, MAX_ITEM_URL), reason };
        if (duplicateOf) item.duplicateOf = duplicateOf.slice(0, MAX_ITEM_URL);
        this.#items.push({ kind, n: this.#listed[kind]++, item });
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
          named: job.urls !== undefined,
        },
        sink,
        { ...DEFAULT_TUNING, ...job.tuning },
        this.#ctl.signal,
        this.#log,
      );
      // A cut a dead runner staged is put in place if its record was committed, else dropped
      // (in turn with the ticks' writes: they check the same versionstamp).
      const settling = this.#writing.then(() => this.#settleStaged());
      this.#writing = settling.then(() => {}, () => {});
      if (!(await settling)) return;
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
          await deletePrefix(s.kv, twinPrefix(site.id, job.id));
          await deletePrefix(s.kv, cutPrefix(site.id, job.id));
          await releaseLock(s, site.id, job.id);
          // Last of all: once the job says it ended, this runner writes nothing more.
          job.finishedAt = iso(s.clock());
          job.runner = null;
          await this.#flush({ final: true });
          // A re-fetch of a few pages is no new crawl of the site: nothing follows it.
          if (job.status === "done" && job.urls === undefined) await this.#afterDone();
        }
      }
    } catch (err) {
      s.log({ level: "error", msg: "crawl end failed", job: job.id, error: String(err) });
    }
  }

  /** What follows a crawl ended done: the site as it is now (its settings may have changed). */
  async #afterDone() {
    if (!this.opts.afterDone) return;
    try {
      const site = await this.s.sites.get(this.site.id);
      if (site) await this.opts.afterDone(site);
    } catch (err) {
      this.s.log({
        level: "error",
        msg: "after crawl failed",
        job: this.job.id,
        error: String(err),
      });
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
   * One cut of the crawl (its marks, items and record) committed as a whole, checked against
   * the record this runner last wrote (nobody else took the job) and renewing the lease. Until
   * the final write, an ended job's record still says "running": a tick's flush must never
   * announce the end while the site's lock is held.
   */
  async #write({ final = false }: FlushOptions) {
    if (this.#lost) return;
    const { job, site } = this;
    // Taken in a timer's turn, when no task is between two steps that only microtasks join: a
    // page's count and its marks (stored path, done) are on the same side of the cut.
    const cut = await new Promise<Cut>((resolve) => setTimeout(() => resolve(this.#cut(final)), 0));
    if (this.#lost) return;
    const key = jobKey(site.id, job.id);
    const reserve = keyBytes(key) + valueBytes(cut.record) + 1024;
    const room = { mutations: 2, keyBytes: keyBytes(key) * 2, bytes: reserve * 2 };
    const batches = await commitBatchesInSlices(cut.writes, room);
    if (batches.length <= 1) {
      // The usual case: the marks and the record that counts them in one commit.
      if (await this.#commit(cut.record, batches[0] ?? [])) this.#saved = cut.record;
      return;
    }
    // Too large for one commit: staged, each staging commit renewing the lease with the
    // record as last committed; the record naming the cut commits it; then it is put in place.
    const n = (this.#saved.staged ?? 0) + 1;
    const staged = await commitBatchesInSlices(stageCut(site.id, job.id, n, cut.writes), room);
    for (const batch of staged) {
      if (!(await this.#commit(this.#saved, batch))) return;
    }
    const record = { ...cut.record, staged: n };
    if (!(await this.#commit(record, []))) return;
    [this.#saved, job.staged] = [record, n];
    await this.#settleStaged();
  }

  /** The pending marks and items, and the record as it stands, at one instant. */
  #cut(final: boolean): Cut {
    const { job, site } = this;
    const writes: [Deno.KvKey, unknown][] = [
      ...this.#log.take(site.id, job.id),
      ...this.#items.splice(0).map((it): [Deno.KvKey, unknown] => [
        [...itemPrefix(site.id, job.id, it.kind), it.n],
        it.item,
      ]),
    ];
    if (this.#crawl) [job.state, job.progress] = [this.#crawl.state(), this.#crawl.progress()];
    // A crawl that ended done settled every page it queued, whatever counts a resume from
    // marks saved a moment ahead of the record may have left one off.
    if (job.status === "done") job.progress = { ...job.progress, done: job.progress.total };
    const record = !final && !isLive(job) ? { ...job, status: "running" as const } : job;
    return { writes, record: structuredClone(record) };
  }

  /**
   * Commits `writes` with `record` (a fresh heartbeat: every commit carries it, so that a long
   * flush of 100,000 marks never leaves the lease to lapse); false when the job is lost.
   */
  async #commit(
    record: CrawlJob,
    writes: [Deno.KvKey, unknown][],
    deletes: Deno.KvKey[] = [],
  ): Promise<boolean> {
    if (this.#lost) return false;
    const key = jobKey(this.site.id, this.job.id);
    const op = this.s.kv.atomic().check({ key, versionstamp: this.versionstamp });
    for (const [k, v] of writes) op.set(k, v, TTL);
    for (const k of deletes) op.delete(k);
    this.job.heartbeatAt = this.s.clock();
    const res = await op.set(key, { ...record, heartbeatAt: this.job.heartbeatAt }, TTL).commit();
    if (!res.ok) {
      this.#lose();
      return false;
    }
    this.versionstamp = res.versionstamp;
    return true;
  }

  /**
   * Puts staged cuts the record names (up to `staged`) in place and drops any later one (its
   * runner died before committing it); false when the job is lost.
   */
  async #settleStaged(): Promise<boolean> {
    const { s, job, site } = this;
    const committed = this.#saved.staged ?? 0;
    const key = jobKey(site.id, job.id);
    const budget = {
      mutations: KV_LIMITS.mutations - 2,
      keys: KV_LIMITS.commitKeyBytes * 0.9 - keyBytes(key) * 2,
      bytes: KV_LIMITS.commitBytes * 0.9 - 2 * (keyBytes(key) + valueBytes(this.#saved) + 1024),
    };
    while (true) {
      const writes: [Deno.KvKey, unknown][] = [];
      const deletes: Deno.KvKey[] = [];
      let [keys, bytes] = [0, 0];
      const iter = s.kv.list<[Deno.KvKey, unknown]>({ prefix: cutPrefix(site.id, job.id) });
      for await (const e of iter) {
        const put = (e.key[3] as number) <= committed;
        const k = keyBytes(e.key) + (put ? keyBytes(e.value[0]) : 0);
        const b = k + (put ? sizeOf(e.value[1]) : 0);
        if (
          deletes.length &&
          (writes.length + deletes.length + 2 > budget.mutations || keys + k > budget.keys ||
            bytes + b > budget.bytes)
        ) break;
        if (put) writes.push(e.value);
        deletes.push(e.key);
        [keys, bytes] = [keys + k, bytes + b];
      }
      if (!deletes.length) return true;
      if (!(await this.#commit(this.#saved, writes, deletes))) return false;
    }
  }

  /** Someone stopped the job, or took it for dead: stop, say nothing more. */
  #lose() {
    this.#lost = true;
    if (!this.#ctl.signal.aborted) this.abort("The job was taken over elsewhere.");
  }
}
