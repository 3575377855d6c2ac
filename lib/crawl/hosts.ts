/**
 * Which sites crawl a host: the lookup an IndexNow ping needs ("re-fetch these URLs for
 * every site that crawls that host"). A crawl records its site under the host its start URL
 * answered from; the lookup checks each entry against the site as it is now, so an entry a
 * deleted site or a move to another host left behind is dropped when met.
 */
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";

/** Sites answered for one host at most: a host shared by more is answered for the first ones. */
const MAX_SITES_PER_HOST = 100;

const hostKey = (host: string, siteId: string) => ["crawlhost", host.toLowerCase(), siteId];

/** Records that `site` crawls from `origin` (called when a crawl learns where the site answers). */
export async function noteCrawlHost(s: Services, siteId: string, origin: string) {
  await s.kv.set(hostKey(new URL(origin).host, siteId), origin);
}

/** The sites whose crawls fetch from `host` (hostname[:port], lower case, as URL.host gives it). */
export async function sitesCrawlingHost(s: Services, host: string): Promise<Site[]> {
  const sites: Site[] = [];
  const prefix = ["crawlhost", host.toLowerCase()];
  for await (const e of s.kv.list<string>({ prefix }, { limit: MAX_SITES_PER_HOST * 2 })) {
    const site = await s.sites.get(e.key[2] as string);
    const still = site?.crawlOrigin && new URL(site.crawlOrigin).host === host.toLowerCase();
    if (!site || !still) {
      await s.kv.atomic().check(e).delete(e.key).commit();
      continue;
    }
    sites.push(site);
    if (sites.length === MAX_SITES_PER_HOST) break;
  }
  return sites;
}
