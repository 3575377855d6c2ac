/**
 * An instance's crawl worker: it takes queued crawl steps (jobs.ts), hands stale jobs
 * on, and keeps the sites' scheduled re-crawls going (an hourly Deno.cron where the
 * runtime has it, else a delayed message on the KV queue that every tick queues again).
 */
import {
  crawlWorker,
  handOffSteps,
  recoverCrawls,
  type SiteCrawlInfo,
  siteCrawlKey,
  startCrawlJob,
} from "./jobs.ts";
import { ApiError } from "../http/errors.ts";
import { onQueue } from "../queue.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

export const RECRAWL_MS = { daily: 24 * 3600_000, weekly: 7 * 24 * 3600_000 } as const;
/** The re-crawl check's period where Deno.cron is not available (a timer on the queue). */
const TICK_MS = 3600_000;
const TICK_KEY = ["config", "recrawlTick"];
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
  const { staleMs } = crawlWorker(s, opts);
  onQueue(s.kv, "recrawl-tick", () => recrawlTick(s));
  const sweep = () =>
    recoverCrawls(s).catch((err) =>
      s.log({ level: "error", msg: "crawl sweep failed", error: String(err) })
    );
  sweep();
  const sweeper = setInterval(sweep, staleMs);
  if (!opts.cron) {
    scheduleTick(s).catch((err) =>
      s.log({ level: "error", msg: "re-crawl tick failed", error: String(err) })
    );
  }
  return {
    recrawlDue: async () => void await recrawlDue(s),
    stop: () => clearInterval(sweeper),
    shutdown: async () => {
      clearInterval(sweeper);
      await handOffSteps(s);
    },
  };
}
