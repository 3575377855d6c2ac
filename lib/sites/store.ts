/** Sites and their keys in Deno KV: create, read, change settings, rotate keys. */
import { DomainError } from "../errors.ts";
import { LOST_RACE, retryKv } from "../storage/kv_retry.ts";
import { withMark } from "../storage/change_marks.ts";
import { constantTimeEqual, newAdminKey, newId, newPublicKey, sha256Hex } from "./keys.ts";
import type { LimitOverrides, PlanName } from "../limits/plans.ts";

export interface SiteSettings {
  aiSummaries: boolean;
  externalKnowledge: boolean;
  followups: boolean;
  allowedOrigins: string[];
  resultsPage: string;
  /** The language visitors read the scripts' strings in when the host page names none ("de"). */
  lang?: string | null;
  /** Scheduled re-crawl of the site's last crawl URL. */
  recrawl?: "daily" | "weekly" | null;
  /** URL patterns every crawl of the site applies (a crawl's own include replaces these). */
  include?: string[];
  exclude?: string[];
}

export interface Site {
  id: string;
  name: string;
  domain: string | null;
  /**
   * Scheme, host and port the site's last crawl was answered from ("http://127.0.0.1:8878"):
   * absolute result links keep it. Absent until a crawl reached its start URL.
   */
  crawlOrigin?: string | null;
  plan: PlanName;
  createdAt: string;
  publicKey: string;
  /** The public key before the last rotation, still accepted until `expiresAt` (grace period). */
  previousPublicKey?: { key: string; expiresAt: string } | null;
  adminKeyHash: string;
  settings: SiteSettings;
  limits: LimitOverrides;
}

const DEFAULT_SETTINGS: SiteSettings = {
  aiSummaries: true,
  externalKnowledge: false,
  followups: true,
  allowedOrigins: [],
  resultsPage: "/search-results",
  lang: null,
  recrawl: null,
  include: [],
  exclude: [],
};

const siteKey = (id: string) => ["site", id];
const publicKeyKey = (pk: string) => ["pk", pk];
const adminKeyKey = (hash: string) => ["ak", hash];

/** What an API answers about a site: everything but the admin key's hash and a lapsed old key. */
export function publicView(site: Site, now = Date.now()) {
  const { adminKeyHash: _, previousPublicKey: prev, ...rest } = site;
  return { ...rest, previousPublicKey: prev && now < Date.parse(prev.expiresAt) ? prev : null };
}

/** True when `key` opens `site` at `now`: its public key, or the one before it in its grace period. */
export function acceptsPublicKey(site: Site, key: string, now: number): boolean {
  if (site.publicKey === key) return true;
  const prev = site.previousPublicKey;
  return !!prev && prev.key === key && now < Date.parse(prev.expiresAt);
}

/** The origin refusal for a site, or null when a request from `origin` may call it. */
export function originError(site: Site, origin: string | undefined): DomainError | null {
  const allowed = site.settings.allowedOrigins;
  if (!origin || allowed.length === 0 || allowed.includes(origin)) return null;
  return new DomainError(
    "ORIGIN_NOT_ALLOWED",
    "This site does not accept requests from this origin.",
  );
}

/** The public keys a site's record indexes: its current one and, during a grace period, the old. */
const indexedKeys = (site: Site) =>
  site.previousPublicKey ? [site.publicKey, site.previousPublicKey.key] : [site.publicKey];

/** Site storage: the one place that reads and writes site records and key lookups. */
export class SiteStore {
  /** Public key -> site, briefly cached; searches re-check the key against a fresh read. */
  private cache = new Map<string, { site: Site | null; at: number }>();
  /** Site id -> the public key it is cached under, so a rotation drops the old entry at once. */
  private cachedKey = new Map<string, string>();

  constructor(private kv: Deno.Kv, private now: () => number, private cacheMs = 2_000) {}

  /** Called after this instance changes or deletes a site (the quota reads it again). */
  onChange: (id: string) => void = () => {};

  /**
   * Like byPublicKey, answered from a cache at most `maxAgeMs` (default `cacheMs`) old: at once
   * (not as a promise) when the cache has it.
   */
  byPublicKeyCached(pk: string, maxAgeMs = this.cacheMs): Site | null | Promise<Site | null> {
    const hit = this.cache.get(pk);
    if (hit && this.now() - hit.at < maxAgeMs) return hit.site;
    return this.byPublicKeyRead(pk);
  }

  private async byPublicKeyRead(pk: string): Promise<Site | null> {
    const site = await this.byPublicKey(pk);
    if (this.cache.size > 10_000) [this.cache, this.cachedKey] = [new Map(), new Map()];
    if (site) this.remember(site);
    if (site?.publicKey !== pk) this.cache.set(pk, { site, at: this.now() }); // unknown, or old
    return site;
  }

  /** Records a freshly read site so cached lookups see its current keys and settings. */
  remember(site: Site) {
    const old = this.cachedKey.get(site.id);
    if (old !== undefined && old !== site.publicKey) this.cache.delete(old);
    this.cache.set(site.publicKey, { site, at: this.now() });
    this.cachedKey.set(site.id, site.publicKey);
  }

  /** Creates a site with fresh keys; the admin key is returned once and stored as a hash. */
  async create(input: { name: string; plan: PlanName; domain?: string | null }) {
    const publicKey = newPublicKey();
    const adminKey = newAdminKey();
    const site: Site = {
      id: newId("site"),
      name: input.name,
      domain: input.domain ?? null,
      plan: input.plan,
      createdAt: new Date(this.now()).toISOString(),
      publicKey,
      adminKeyHash: await sha256Hex(adminKey),
      settings: { ...DEFAULT_SETTINGS },
      limits: {},
    };
    const res = await withMark(this.kv.atomic(), site.id)
      .check({ key: siteKey(site.id), versionstamp: null })
      .set(siteKey(site.id), site)
      .set(publicKeyKey(publicKey), site.id)
      .set(adminKeyKey(site.adminKeyHash), site.id)
      .commit();
    if (!res.ok) throw new Error("site id collision");
    return { site, publicKey, adminKey };
  }

  /** Deletes a site record and its key lookups (a demo site another instance beat us to). */
  async remove(id: string) {
    const site = await this.get(id);
    if (!site) return;
    await withMark(this.kv.atomic(), id).delete(siteKey(id)).delete(publicKeyKey(site.publicKey))
      .delete(adminKeyKey(site.adminKeyHash)).commit();
    this.cache.delete(site.publicKey);
    this.cachedKey.delete(id);
  }

  /** The site, with the versionstamp callers use to write it back safely. */
  async getEntry(id: string) {
    return await this.kv.get<Site>(siteKey(id));
  }

  async get(id: string): Promise<Site | null> {
    return (await this.getEntry(id)).value;
  }

  /** The site a public key belongs to, if the key is current or in its grace period. */
  async byPublicKey(pk: string): Promise<Site | null> {
    const id = (await this.kv.get<string>(publicKeyKey(pk))).value;
    const site = id ? await this.get(id) : null;
    return site && acceptsPublicKey(site, pk, this.now()) ? site : null;
  }

  /** The site an admin key belongs to, compared by hash in constant time. */
  async byAdminKey(key: string): Promise<Site | null> {
    const hash = await sha256Hex(key);
    const id = (await this.kv.get<string>(adminKeyKey(hash))).value;
    const site = id ? await this.get(id) : null;
    return site && constantTimeEqual(site.adminKeyHash, hash) ? site : null;
  }

  /** Applies `change` to the stored site, retrying if someone else wrote it meanwhile. */
  update(id: string, change: (site: Site) => Site): Promise<Site> {
    return retryKv(async () => {
      const entry = await this.getEntry(id);
      if (!entry.value) {
        throw new DomainError("NOT_FOUND", `No site with id ${JSON.stringify(id)}.`);
      }
      const next = change(structuredClone(entry.value));
      const op = withMark(this.kv.atomic(), id).check(entry).set(siteKey(id), next);
      const [before, after] = [indexedKeys(entry.value), indexedKeys(next)];
      for (const pk of before) if (!after.includes(pk)) op.delete(publicKeyKey(pk));
      for (const pk of after) if (!before.includes(pk)) op.set(publicKeyKey(pk), id);
      const prev = next.previousPublicKey;
      if (prev && prev.key !== entry.value.previousPublicKey?.key) {
        // The old key's lookup goes by itself a minute after its grace period ends.
        const left = Math.max(0, Date.parse(prev.expiresAt) - this.now());
        op.set(publicKeyKey(prev.key), id, { expireIn: left + 60_000 });
      }
      if (next.adminKeyHash !== entry.value.adminKeyHash) {
        op.delete(adminKeyKey(entry.value.adminKeyHash)).set(adminKeyKey(next.adminKeyHash), id);
      }
      if (!(await op.commit()).ok) return LOST_RACE;
      this.remember(next);
      this.onChange(id);
      return next;
    }, "The site is being changed by others. Retry.");
  }

  /**
   * Replaces one key. The old one stops working with this commit, except an old public key
   * given `graceSeconds`, which works until then (an earlier old key lapses at once).
   */
  async rotate(id: string, which: "public" | "admin", graceSeconds = 0) {
    const fresh = which === "public" ? newPublicKey() : newAdminKey();
    const hash = which === "admin" ? await sha256Hex(fresh) : "";
    const expiresAt = new Date(this.now() + graceSeconds * 1000).toISOString();
    const site = await this.update(id, (site) =>
      which === "public"
        ? {
          ...site,
          publicKey: fresh,
          previousPublicKey: graceSeconds > 0 ? { key: site.publicKey, expiresAt } : null,
        }
        : { ...site, adminKeyHash: hash });
    return { key: fresh, previousPublicKey: site.previousPublicKey ?? null };
  }

  /** Drops a removed site from the key cache, so its public key stops working here at once. */
  forget(site: Site) {
    this.cache.delete(site.publicKey);
    this.cachedKey.delete(site.id);
    this.onChange(site.id);
  }

  /** Deletes the site record (the site is gone for every call from now on); false if already gone. */
  async delete(site: Site): Promise<boolean> {
    const entry = await this.getEntry(site.id);
    if (!entry.value) return false;
    const res = await withMark(this.kv.atomic(), site.id).check(entry).delete(siteKey(site.id))
      .commit();
    this.forget(site);
    return res.ok;
  }

  /** One page of sites in id order, and the cursor of the next (null at the end). */
  async listPage(opts: { cursor?: string; limit: number }) {
    const sites: Site[] = [];
    const iter = this.kv.list<Site>({ prefix: ["site"] }, {
      cursor: opts.cursor,
      limit: opts.limit,
    });
    for await (const e of iter) sites.push(e.value);
    return { sites, cursor: sites.length === opts.limit && iter.cursor ? iter.cursor : null };
  }

  /** Every site id (for the operator and start-up). */
  async listIds(): Promise<string[]> {
    const ids: string[] = [];
    for await (const e of this.kv.list<Site>({ prefix: ["site"] })) ids.push(e.value.id);
    return ids;
  }
}
