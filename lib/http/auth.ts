/** Who is calling: public search keys for the public API, bearer tokens for the admin API. */
import type { Context } from "hono";
import { DomainError } from "../errors.ts";
import type { AdminCaller, AppEnv } from "./middleware.ts";
import { constantTimeEqual, isAdminKey, isPublicKey, sha256HexSync } from "../sites/keys.ts";
import { originError, type Site, type SiteStore } from "../sites/store.ts";

/** The public key of a request: the `X-API-Key` header wins over the `key` parameter. */
export function publicKeyOf(c: Context): string {
  return publicKeyFrom(c.req.header("x-api-key"), c.req.queries("key") ?? []);
}

/** The public key from an `X-API-Key` header's value and the `key` parameters, checked. */
export function publicKeyFrom(header: string | undefined, params: string[]): string {
  const key = header ?? params[0];
  if (key === undefined || key === "") {
    throw new DomainError(
      "MISSING_API_KEY",
      "Send the site's public search key as X-API-Key or ?key=.",
    );
  }
  if (header === undefined && params.length > 1) {
    throw new DomainError("INVALID_PARAMETER", "key must be given once.", { param: "key" });
  }
  if (!isPublicKey(key)) {
    const hint = isAdminKey(key) ? " An admin key is never a search key." : "";
    throw new DomainError("INVALID_API_KEY", "The search key is not valid." + hint);
  }
  return key;
}

/** The site of a public key (cached briefly), its origin checked. */
export async function publicSite(
  c: Context,
  sites: SiteStore,
): Promise<{ site: Site; key: string }> {
  const key = publicKeyOf(c);
  const site = await sites.byPublicKeyCached(key);
  if (!site) throw new DomainError("INVALID_API_KEY", "The search key is not valid.");
  const refused = originError(site, c.req.header("origin"));
  if (refused) throw refused;
  return { site, key };
}

/**
 * Which site a public key names, from a cache up to `hintMs` old, for a caller that checks
 * the key and origin itself against the site as freshly read (the search quota does).
 */
export async function publicSiteHint(
  c: Context,
  sites: SiteStore,
  hintMs: number,
): Promise<{ site: Site; key: string }> {
  const key = publicKeyOf(c);
  const site = await sites.byPublicKeyCached(key, hintMs);
  if (!site) throw new DomainError("INVALID_API_KEY", "The search key is not valid.");
  return { site, key };
}

export type { AdminCaller };

/** Authenticates `Authorization: Bearer <admin key | operator token>`; the token is checked by its hash. */
export async function adminCaller(
  c: Context,
  sites: SiteStore,
  operatorTokenHash: string | null,
): Promise<AdminCaller> {
  const auth = c.req.header("authorization") ?? "";
  const viaSession = (c as Context<AppEnv>).get("adminCaller");
  if (!auth && viaSession) return viaSession;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (!m) {
    throw new DomainError(
      "MISSING_API_KEY",
      "Send Authorization: Bearer <admin key or operator token>.",
    );
  }
  const token = m[1];
  if (operatorTokenHash && constantTimeEqual(sha256HexSync(token), operatorTokenHash)) {
    return { operator: true, site: null };
  }
  if (isAdminKey(token)) {
    const site = await sites.byAdminKey(token);
    if (site) return { operator: false, site };
  }
  const hint = isPublicKey(token) ? " A public search key never authorises an admin call." : "";
  throw new DomainError("INVALID_API_KEY", "The admin key is not valid." + hint);
}

/** The site an admin call names; another site's id answers 404 as if it did not exist. */
export async function adminSite(
  caller: AdminCaller,
  id: string,
  sites: SiteStore,
): Promise<Site> {
  const site = caller.operator ? await sites.get(id) : caller.site?.id === id ? caller.site : null;
  if (!site) throw new DomainError("NOT_FOUND", `No site with id ${JSON.stringify(id)}.`);
  return site;
}

/** The site of an admin route's `:id`, for a caller allowed to reach it, noted for the request log. */
export async function adminTarget(
  c: Context<AppEnv>,
  sites: SiteStore,
  operatorToken: string | null,
): Promise<{ site: Site; caller: AdminCaller }> {
  const caller = await adminCaller(c, sites, operatorToken);
  const site = await adminSite(caller, c.req.param("id") ?? "", sites);
  c.set("siteId", site.id);
  return { site, caller };
}
