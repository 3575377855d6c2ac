/**
 * The sitemap watch: a site whose crawl read a sitemap has it read again every 15 minutes
 * (paid plans) or every day (Free). Pages listed with a `<lastmod>` other than the one recorded
 * when they were fetched, and pages listed that the site does not hold, are re-fetched
 * (refetch.ts); pages a sitemap-only site no longer lists leave the index. No page is fetched
 * otherwise: it is no full re-crawl. What each look found is kept (watch_record.ts).
 */
import { crawledPaths, forgetCrawled } from "./history.ts";
import { MAX_LIVE_REFETCHES, MAX_REFETCH_URLS, refetchUrls } from "./refetch.ts";
import { MAX_SITEMAPS, SEEN_PER_PAGE } from "./discovery.ts";
import { pathOf, siteKeyOf } from "./http.ts";
import { decodeSitemapBody, MAX_SITEMAP_BYTES, parseLastmod, parseSitemap } from "./sitemap.ts";
import { urlFilter } from "./patterns.ts";
import { RobotsCache } from "./robots_rules.ts";
import { ledgerPrefix } from "./url_ledger.ts";
import { botFetcher, DEFAULT_TUNING, hopLimits } from "./tuning.ts";
import { dueKey, everyMs, watchKey, type WatchRecord } from "./watch_record.ts";
import { DomainError } from "../errors.ts";
import { PLANS } from "../limits/plans.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

/** Sitemap index levels read below a watched sitemap, as a crawl reads them. */
const MAX_DEPTH = 3;
/** Watches one instance runs in one turn of the minute's check; the rest wait for the next. */
const PER_TURN = 20;
const TURN_KEY = ["config", "watchTurn"];

/**
 * The minute's check: whichever instance first finds the minute's turn free claims it, and
 * looks at the sites whose watch is due (each claimed on its own, so none is looked at twice).
 */
export async function watchTurn(s: Services): Promise<number> {
  const turn = await s.kv.get<number>(TURN_KEY);
  const now = s.clock();
  if (turn.value && turn.value > now) return 0;
  const claimed = await s.kv.atomic().check(turn).set(TURN_KEY, now + 55_000).commit();
  return claimed.ok ? await watchDue(s) : 0;
}

/** Looks at every watch due now (at most PER_TURN); answers how many were looked at. */
export async function watchDue(s: Services): Promise<number> {
  const due: string[] = [];
  const end = ["sitemapdue", s.clock() + 1];
  for await (const e of s.kv.list({ start: ["sitemapdue"], end }, { limit: PER_TURN })) {
    due.push(e.key[2] as string);
  }
  let looked = 0;
  for (const siteId of due) {
    try {
      if (await lookOnce(s, siteId)) looked++;
    } catch (err) {
      s.log({ level: "error", msg: "sitemap watch failed", site: siteId, error: String(err) });
    }
  }
  return looked;
}

/** One look at one site's sitemaps, if it is still due and no other instance took it. */
async function lookOnce(s: Services, siteId: string): Promise<boolean> {
  const entry = await s.kv.get<WatchRecord>(watchKey(siteId));
  const site = await s.sites.get(siteId);
  const rec = entry.value;
  if (!rec || !site) {
    // The site or its watch is gone: what the due list still holds of it goes too.
    for await (const e of s.kv.list({ prefix: ["sitemapdue"] })) {
      if (e.key[2] === siteId) await s.kv.delete(e.key);
    }
    return false;
  }
  const now = s.clock();
  if (rec.nextAt > now) return false;
  const nextAt = now + everyMs(site);
  const taken: WatchRecord = { ...rec, lastLookedAt: now, nextAt };
  const claim = await s.kv.atomic().check(entry)
    .delete(dueKey(rec.nextAt, siteId))
    .set(watchKey(siteId), taken)
    .set(dueKey(nextAt, siteId), true)
    .commit();
  if (!claim.ok) return false;
  const result = await look(s, site, rec);
  const after = await s.kv.get<WatchRecord>(watchKey(siteId));
  if (after.value) {
    await s.kv.atomic().check(after).set(after.key, { ...after.value, ...result }).commit();
  }
  return true;
}

/** Reads the sitemaps, queues what changed, removes what is no longer listed. */
async function look(
  s: Services,
  site: Site,
  rec: WatchRecord,
): Promise<Pick<WatchRecord, "found" | "error">> {
  const listed = await readSitemaps(s, site, rec);
  const filter = urlFilter(site.settings.include ?? [], site.settings.exclude ?? []);
  const siteKey = siteKeyOf(new URL(rec.origin));
  const held = new Map<string, { lastmod?: number; from?: string }>();
  const from = new Set<string>();
  for await (const r of crawledPaths(s, site.id, rec.origin)) {
    held.set(r.path, r);
    if (r.from) from.add(r.from);
  }
  const changed: string[] = [];
  const added: string[] = [];
  const lastmods = new Map<string, number>();
  const listedPaths = new Set<string>();
  for (const [href, lastmod] of listed.urls) {
    const u = new URL(href);
    if (siteKeyOf(u) !== siteKey || filter?.(u)) continue;
    const path = pathOf(u);
    listedPaths.add(path);
    if (!held.has(path) && !from.has(path)) added.push(href);
    else if (lastmod !== undefined && held.has(path) && held.get(path)!.lastmod !== lastmod) {
      changed.push(href);
    } else continue;
    if (lastmod !== undefined) lastmods.set(href, lastmod);
  }
  const queued = await queue(s, site, [...changed, ...added], lastmods);
  let removed = 0;
  if (rec.removes && !listed.error) {
    for (const [path, r] of held) {
      if (listedPaths.has(path) || (r.from && listedPaths.has(r.from))) continue;
      if (await forgetCrawled(s, site.id, rec.origin, path)) removed++;
      await s.kv.delete([...ledgerPrefix(site.id), path]);
    }
    if (removed) await s.indexes.refresh(site.id);
  }
  const error = listed.error ??
    (queued < changed.length + added.length
      ? `${
        changed.length + added.length - queued
      } changed pages wait for the next look (too many re-fetches at once).`
      : null);
  return {
    found: {
      changed: Math.min(changed.length, queued),
      added: Math.max(0, queued - changed.length),
      removed,
    },
    error,
  };
}

/** Queues the URLs as re-fetches, as many as the site may have waiting; answers how many. */
async function queue(s: Services, site: Site, urls: string[], lastmods: Map<string, number>) {
  let queued = 0;
  for (let i = 0; i < urls.length && i < MAX_REFETCH_URLS * MAX_LIVE_REFETCHES;) {
    const chunk = urls.slice(i, i + MAX_REFETCH_URLS);
    try {
      queued += (await refetchUrls(s, site, { urls: chunk, trigger: "watch", lastmods })).queued;
    } catch (err) {
      if (err instanceof DomainError && err.code === "REFETCH_RATE_LIMIT_EXCEEDED") break;
      throw err;
    }
    i += chunk.length;
  }
  return queued;
}

/** Every page URL the watched sitemaps list (with its lastmod), and why a read failed, if one did. */
async function readSitemaps(s: Services, site: Site, rec: WatchRecord) {
  const fetcher = botFetcher(s.crawl, { concurrency: DEFAULT_TUNING.concurrency });
  const cap = PLANS[site.plan].maxPages * SEEN_PER_PAGE;
  const urls = new Map<string, number | undefined>();
  const seen = new Set<string>();
  let error: string | null = null;
  const todo = rec.sitemaps.map((href) => ({ href, depth: 0 }));
  // robots.txt is obeyed for sitemaps as a crawl obeys it (RFC 9309).
  const robots = new RobotsCache({ crawl: s.crawl, fetcher, tuning: DEFAULT_TUNING });
  try {
    while (todo.length && seen.size < MAX_SITEMAPS && urls.size < cap) {
      const { href, depth } = todo.shift()!;
      if (seen.has(href)) continue;
      seen.add(href);
      if (!(await robots.get(new URL(href))).rules.isAllowed(pathOf(new URL(href)))) {
        error = `robots.txt does not allow reading the sitemap ${href}; nothing was removed.`;
        continue;
      }
      const res = await fetcher.fetch(href, {
        headers: { Accept: "application/xml,text/xml;q=0.9,*/*;q=0.5" },
        maxBytes: MAX_SITEMAP_BYTES,
        beforeHop: (next) =>
          Promise.resolve(siteKeyOf(next) === siteKeyOf(new URL(href)) ? null : "off_site"),
        ...hopLimits(DEFAULT_TUNING),
      });
      if (!res.ok || res.status < 200 || res.status >= 300) {
        error = `The sitemap ${href} could not be read (${
          res.ok ? `HTTP ${res.status}` : res.reason.replaceAll("_", " ")
        }); nothing was removed.`;
        continue;
      }
      let parsed;
      try {
        const type = res.headers.get("content-type");
        parsed = await parseSitemap(await decodeSitemapBody(res.body, type, res.url));
      } catch {
        error = `${href} is not a sitemap any more; nothing was removed.`;
        continue;
      }
      for (const { loc, lastmod } of parsed.urls) {
        const u = URL.parse(loc.trim());
        if (!u) continue;
        u.hash = "";
        if (parsed.kind === "index") {
          if (depth + 1 <= MAX_DEPTH) todo.push({ href: u.href, depth: depth + 1 });
        } else if (urls.size < cap) {
          urls.set(u.href, parseLastmod(lastmod));
        }
      }
    }
  } finally {
    await fetcher.close();
  }
  if (!error && (todo.length || urls.size >= cap)) {
    error = "The sitemaps list more URLs than one look reads; nothing was removed.";
  }
  return { urls, error };
}
