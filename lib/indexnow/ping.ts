/**
 * An IndexNow ping, whole: the URLs it names are fetched again for every site here that crawls
 * their host, once the host's key file vouches for the key. Refusals come in the order the
 * protocol's statuses suggest, and before anything costly: the ping's shape (400, the route's
 * parse), its key and URLs (422, protocol.ts), the host's pings this minute (429), a host no
 * site here crawls (422, and nothing fetched from it), the key file (403).
 */
import { DomainError } from "../errors.ts";
import { sitesCrawlingHost } from "../crawl/hosts.ts";
import { MAX_REFETCH_URLS, refetchUrls } from "../crawl/refetch.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import { countHostPing } from "./host_limit.ts";
import { checkKeyFile } from "./key_check.ts";
import type { IndexNowPing } from "./protocol.ts";

/** What a ping queued: URLs in all (counted once per site) and the sites that queued any. */
export interface PingOutcome {
  queued: number;
  sites: number;
}

/** Checks a parsed ping and queues its URLs for every site crawling its host. */
export async function indexNowPing(s: Services, ping: IndexNowPing): Promise<PingOutcome> {
  await countHostPing(s, ping.host);
  const sites = await sitesCrawlingHost(s, ping.host);
  if (sites.length === 0) {
    throw new DomainError(
      "INDEXNOW_HOST_NOT_CRAWLED",
      `No site here crawls ${ping.host}: crawl it from a site's dashboard first, then ping.`,
    );
  }
  await checkKeyFile(s, {
    host: ping.host,
    key: ping.key,
    keyFile: ping.keyLocation ?? `${schemeOf(sites, ping.host)}//${ping.host}/${ping.key}.txt`,
  });
  let queued = 0, queuedSites = 0;
  let refused: DomainError | null = null;
  for (const site of sites) {
    const r = await refetchSite(s, site, ping);
    queued += r.queued;
    if (r.queued > 0) queuedSites++;
    refused ??= r.refused;
  }
  // A site with too many re-fetches waiting refuses the ping only when no other site took it.
  if (queuedSites === 0 && refused) throw refused;
  return { queued, sites: queuedSites };
}

/** The scheme a site crawling the host was answered on ("http:" in tests), else "https:". */
function schemeOf(sites: Site[], host: string): string {
  for (const site of sites) {
    const origin = site.crawlOrigin ? URL.parse(site.crawlOrigin) : null;
    if (origin?.host === host) return origin.protocol;
  }
  return "https:";
}

/** Queues the ping's URLs for one site in chunks, stopping at its first 429. */
async function refetchSite(s: Services, site: Site, ping: IndexNowPing) {
  let queued = 0;
  for (let at = 0; at < ping.urls.length; at += MAX_REFETCH_URLS) {
    try {
      const r = await refetchUrls(s, site, {
        urls: ping.urls.slice(at, at + MAX_REFETCH_URLS),
        trigger: "indexnow",
      });
      queued += r.queued;
    } catch (err) {
      if (err instanceof DomainError && err.code === "REFETCH_RATE_LIMIT_EXCEEDED") {
        return { queued, refused: err };
      }
      throw err instanceof DomainError ? asPingParam(err, ping, at) : err;
    }
  }
  return { queued, refused: null };
}

/** A refusal of `urls[i]` of one chunk, said of the ping's own field (`urlList[at + i]`, `url`). */
function asPingParam(err: DomainError, ping: IndexNowPing, at: number): DomainError {
  const i = /^urls\[(\d+)\]$/.exec(err.details.param ?? "")?.[1];
  if (i === undefined) return err;
  const param = ping.form === "get" ? "url" : `urlList[${at + Number(i)}]`;
  const message = err.message.replaceAll(`urls[${i}]`, param);
  return new DomainError(err.code, message, { ...err.details, param });
}
