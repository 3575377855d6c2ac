/**
 * Which instance runs which crawl job: leases in KV, with no queue (the new Deno Deploy and a
 * remote denokv have none). A job's record holds its lease: the instance running it (`runner`) and its last
 * write (`heartbeatAt`). An instance takes a job that waits for a lease, or whose lease
 * lapsed, with an atomic check on the record; it then crawls with its own timers and renews
 * the lease in every commit that saves the crawl's marks and state, so a lease is only ever
 * held by the one that wrote last. A write that finds the record changed by someone else
 * stops the runner. At shutdown a runner hands its lease back (`runner: null`), and the next
 * sweep of any instance takes the job over from its saved marks.
 */
import { JobRunner } from "./runner.ts";
import {
  type CrawlJob,
  interrupted,
  isLive,
  jobKey,
  LEASE_LAPSE_MS,
  LOCK_PREFIX,
  MAX_RUNNING,
  MAX_RUNNING_PER_SITE,
  releaseLock,
  STEP_MS,
  TTL,
} from "./job_record.ts";
import { newId } from "../sites/keys.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

/** One instance's crawl worker: its id, settings, and the runners it has going. */
export interface Worker {
  id: string;
  staleMs: number;
  stepMs: number;
  /** Jobs this instance runs at once, in all and of one site. */
  maxRunning: number;
  maxPerSite: number;
  running: Map<string, JobRunner>;
  /** Jobs being claimed now, with their site: they hold a slot already. */
  claiming: Map<string, string>;
  /** Jobs that met storage down here, and when this instance may take them again. */
  backoff: Map<string, number>;
  /** The sweep under way, and whether another was asked for meanwhile. */
  sweeping: Promise<string[]> | null;
  again: boolean;
  /** Shutting down: no job is taken, and running ones hand their lease back. */
  closing?: boolean;
  /** Told of each site whose crawl ended done here (the answers' self-check runs then). */
  afterCrawl?: (site: Site) => Promise<void>;
}

const workers = new WeakMap<Services, Worker>();

/** This instance's worker for `s`, made on first use. */
export function workerOf(s: Services): Worker {
  let w = workers.get(s);
  if (w) return w;
  w = {
    id: newId("run"),
    staleMs: LEASE_LAPSE_MS,
    stepMs: STEP_MS,
    maxRunning: MAX_RUNNING,
    maxPerSite: MAX_RUNNING_PER_SITE,
    running: new Map(),
    claiming: new Map(),
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
  opts: {
    staleMs?: number;
    stepMs?: number;
    maxRunning?: number;
    afterCrawl?: (site: Site) => Promise<void>;
  } = {},
) {
  const w = workerOf(s);
  if (opts.afterCrawl) w.afterCrawl = opts.afterCrawl;
  if (opts.staleMs) w.staleMs = opts.staleMs;
  if (opts.stepMs) w.stepMs = opts.stepMs;
  if (opts.maxRunning) w.maxRunning = opts.maxRunning;
  return { staleMs: w.staleMs };
}

/** Hands the leases of the jobs running here back (at shutdown); nothing is taken after. */
export async function handOffLeases(s: Services) {
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

/** Has this instance sweep for jobs to take, without waiting for it (a job was just made). */
export function kick(s: Services) {
  sweepCrawls(s).catch((err) =>
    s.log({ level: "error", msg: "crawl sweep failed", error: String(err) })
  );
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

/** Slots the site's jobs hold on this instance, running or being claimed. */
function slotsOf(worker: Worker, siteId: string): number {
  let n = 0;
  for (const r of worker.running.values()) if (r.siteId === siteId) n++;
  for (const id of worker.claiming.values()) if (id === siteId) n++;
  return n;
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
  if (slotsOf(worker, job.siteId) >= worker.maxPerSite) return false;
  if ((worker.backoff.get(job.id) ?? 0) > Date.now()) return false;
  worker.backoff.delete(job.id);
  worker.claiming.set(job.id, job.siteId);
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
    if (!res.ok) return false; // another instance took it first
    if (worker.closing) {
      // Shutdown began during the commit: the lease goes straight back, not left to lapse.
      const back = { ...claimed, runner: null };
      await s.kv.atomic().check({ key: entry.key, versionstamp: res.versionstamp })
        .set(entry.key, back, TTL).commit();
      return false;
    }
    const runner = new JobRunner(s, site, claimed, res.versionstamp, {
      stepMs: worker.stepMs,
      onStorageDown: () => worker.backoff.set(job.id, Date.now() + STORAGE_RETRY_MS),
      afterDone: worker.afterCrawl,
    });
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
