/**
 * An instance's crawl worker: it sweeps for crawl jobs to take (runner.ts) at its start and
 * every SWEEP_MS, keeps the sites' scheduled re-crawls going (an hourly Deno.cron where the
 * runtime has it, else a timer whose hourly turn one instance claims in KV), and takes its
 * turn at the sitemap watch every minute (watch.ts; the per-minute cron's wake-up too).
 */
import {
  crawlWorker,
  handOffLeases,
  type SiteCrawlInfo,
  siteCrawlKey,
  startCrawlJob,
  sweepCrawls,
  whileRunning,
} from "./jobs.ts";
import { SWEEP_MS } from "./job_record.ts";
import { watchTurn } from "./watch.ts";
import { DomainError } from "../errors.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

export const RECRAWL_MS = { daily: 24 * 3600_000, weekly: 7 * 24 * 3600_000 } as const;
/** The re-crawl check's period where Deno.cron is not available. */
const TICK_MS = 3600_000;
/** How often each instance looks whether the hourly check is due (one instance claims it). */
const TICK_CHECK_MS = 60_000;
const TICK_KEY = ["config", "recrawlTick"];
/** How often an instance offers to take the sitemap watch's turn (one instance a minute takes it). */
const WATCH_CHECK_MS = 60_000;
const iso = (t: number) => new Date(t).toISOString();

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
        if (!(err instanceof DomainError)) throw err; // in progress, or the URL is refused now
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

/**
 * The hourly check where Deno.cron is missing: whichever instance first finds the hour's
 * turn due claims it in KV (an atomic check), so the sites are checked once an hour however
 * many instances run.
 */
async function recrawlTick(s: Services) {
  const entry = await s.kv.get<number>(TICK_KEY);
  const now = s.clock();
  if (entry.value && entry.value > now) return;
  const claimed = await s.kv.atomic().check(entry).set(TICK_KEY, now + TICK_MS).commit();
  if (claimed.ok) await recrawlDue(s);
}

export interface CrawlWorker {
  /** Starts the re-crawls due (what the hourly Deno.cron calls). */
  recrawlDue: () => Promise<void>;
  /**
   * Sweeps for jobs to take, then waits while this instance runs any (at most `ms`): what
   * the per-minute Deno.cron calls, so that an instance woken only by it keeps working.
   */
  wake: (ms: number) => Promise<void>;
  /** Stops the timers. */
  stop: () => void;
  /** Stops the timers and hands the leases of the jobs running here back (at shutdown). */
  shutdown: () => Promise<void>;
}

/**
 * Makes this instance a crawl worker: it sweeps for jobs to take at start and every
 * SWEEP_MS and, without Deno.cron, checks hourly for re-crawls due.
 */
export function startCrawlWorker(
  s: Services,
  opts: {
    staleMs?: number;
    stepMs?: number;
    cron?: boolean;
    /** Told of each site whose crawl ended done on this instance. */
    afterCrawl?: (site: Site) => Promise<void>;
  } = {},
): CrawlWorker {
  crawlWorker(s, opts);
  const logged = (what: string) => (err: unknown) =>
    s.log({ level: "error", msg: `${what} failed`, error: String(err) });
  const sweep = () => sweepCrawls(s).catch(logged("crawl sweep"));
  const watch = () => watchTurn(s).catch(logged("sitemap watch"));
  void sweep();
  const timers = [setInterval(sweep, SWEEP_MS), setInterval(watch, WATCH_CHECK_MS)];
  if (!opts.cron) {
    const tick = () => recrawlTick(s).catch(logged("scheduled re-crawl"));
    void tick();
    timers.push(setInterval(tick, TICK_CHECK_MS));
  }
  const stop = () => timers.forEach(clearInterval);
  return {
    recrawlDue: async () => void await recrawlDue(s),
    wake: async (ms) => {
      await watch();
      await sweep();
      await whileRunning(s, ms);
    },
    stop,
    shutdown: async () => {
      stop();
      await handOffLeases(s);
    },
  };
}
