/** Where a site's pages live, as the absolute result links of the hosted results page show them. */
import type { Site } from "./store.ts";

/**
 * The scheme and host the site was crawled from; else `https://` and the domain the owner gave;
 * else "" (links stay site-relative).
 */
export function siteBaseUrl(site: Pick<Site, "crawlOrigin" | "domain"> | null): string {
  if (site?.crawlOrigin) return site.crawlOrigin;
  return site?.domain ? `https://${site.domain}` : "";
}
