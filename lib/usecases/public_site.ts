/** The site a public key opens, for the public surfaces that do not search (search: the quota). */
import { invalidSearchKey } from "../errors.ts";
import type { Services } from "../services.ts";
import { originError, type Site } from "../sites/store.ts";

/** The site `key` opens from `origin` (a rotated key in its grace period too), or the refusal. */
export async function publicSiteFor(s: Services, key: string, origin?: string): Promise<Site> {
  const site = await s.sites.byPublicKeyCached(key);
  if (!site) throw invalidSearchKey();
  const refused = originError(site, origin);
  if (refused) throw refused;
  return site;
}
