/**
 * What earlier crawls left for a re-crawl: per path the URL fetched, its validators
 * (ETag, Last-Modified) and saved links, so an unchanged page costs a 304; which pages
 * exist now; and, at the end, the removal of the pages this crawl found gone. Only
 * pages a crawl stored have a record, so pages added by hand are never touched; records
 * are kept per origin, so a crawl of one origin never removes what another's stored.
 */
import { pathOf } from "./http.ts";
import type { IndexRefresher } from "./refresh.ts";
import type { CrawlReport } from "./report.ts";
import type { FetchResult } from "./net/fetch.ts";
import type { Services } from "../services.ts";
import { commitBatches, splitList } from "../storage/kv_limits.ts";

/** A URL an earlier crawl indexed: the validators to send, and proof the crawl owns the page. */
interface CrawledRecord {
  url: string;
  /** The listed path that led here, when the page was reached through a redirect. */
  from?: string;
  etag?: string;
  lastModified?: string;
  /**
   * Its links are saved, so a 304 still tells where to go next: in this many values under
   * linksKey (true: one value at linksKey itself, as crawls before kv_limits.ts wrote them).
   */
  links?: boolean | number;
  /** The sitemap's lastmod for it when it was fetched (ms): the same one again means unchanged. */
  lastmod?: number;
  /** The extracted page's hash (duplicates.ts), which a 304 still compares by. */
  hash?: string;
  /** The page named itself its canonical URL. */
  canon?: 1;
}

const crawledKey = (site: string, origin: string, path: string) => [
  "crawled",
  site,
  origin,
  path,
];
const linksKey = (site: string, origin: string, path: string) => [
  "crawllinks",
  site,
  origin,
  path,
];
/** Values of links kept per page (each up to LIST_BYTES); a page with more is always fetched whole. */
const MAX_LINK_VALUES = 32;
/** Longer validators are not kept: no server needs them, and a record must fit one value. */
const MAX_VALIDATOR = 1024;

/** One site's crawl records, read at the start of a crawl and written as it stores pages. */
export class CrawlHistory {
  private prev = new Map<string, CrawledRecord>();
  private existing = new Set<string>();

  /** Records from before they were kept per origin (key: site, path): adopted by their URL's origin. */
  private legacy = new Map<string, Deno.KvKey>();
  private origin: string;

  /** `startUrl`'s origin is the one whose records this crawl reads, writes and may remove. */
  constructor(private s: Services, private siteId: string, startUrl: string) {
    this.origin = new URL(startUrl).origin;
  }

  /** What earlier crawls stored, and which pages exist now (a 304 only counts for a page we still hold). */
  async load() {
    for await (const e of this.s.kv.list<CrawledRecord>({ prefix: ["crawled", this.siteId] })) {
      if (e.key.length === 4 && e.key[2] === this.origin) {
        this.prev.set(e.key[3] as string, e.value);
      } else if (e.key.length === 3 && URL.parse(e.value.url)?.origin === this.origin) {
        const path = e.key[2] as string;
        if (!this.prev.has(path)) this.prev.set(path, e.value);
        this.legacy.set(path, e.key);
      }
    }
    let cursor: string | undefined;
    do {
      const page = await this.s.pages.list(this.siteId, { cursor, limit: 1000 });
      for (const p of page.pages) this.existing.add(p.url);
      cursor = page.cursor ?? undefined;
    } while (cursor);
  }

  /**
   * A page an earlier crawl stored, still held, whose content hash is `hash`, other than at
   * `except`: the URL a page met under another URL was kept under last time.
   */
  holder(hash: string, except: string): { path: string; url: string; canonical: boolean } | null {
    if (!this.byHash) {
      this.byHash = new Map();
      for (const [path, rec] of this.prev) {
        if (rec.hash && this.existing.has(path)) this.byHash.set(rec.hash, path);
      }
    }
    const path = this.byHash.get(hash);
    const rec = path === undefined ? undefined : this.prev.get(path);
    if (path === undefined || path === except || rec?.hash !== hash) return null;
    return { path, url: rec.url, canonical: rec.canon === 1 };
  }
  /** Content hash → a held page's path, made on first use (holder). */
  private byHash: Map<string, string> | null = null;

  /** The validators to send for a page, when a 304 for it would be of use. */
  conditional(u: URL, path: string, mode: "sitemap" | "links"): Record<string, string> {
    const rec = this.prev.get(path);
    const conditional: Record<string, string> = {};
    // Following links, a 304 is only of use when the page's links were saved.
    // Without its content hash, a page is fetched whole once: its twins are found by it.
    const usable = (mode === "sitemap" || this.hasLinks(path)) && rec?.hash !== undefined;
    if (rec?.url === u.href && this.existing.has(path) && usable) {
      if (rec.etag) conditional["If-None-Match"] = rec.etag;
      if (rec.lastModified) conditional["If-Modified-Since"] = rec.lastModified;
    }
    return conditional;
  }

  /** The content hash and canonical claim kept for a stored page, if any. */
  twin(path: string): { hash: string; url: string; canonical: boolean } | null {
    const rec = this.prev.get(path);
    return rec?.hash ? { hash: rec.hash, url: rec.url, canonical: rec.canon === 1 } : null;
  }

  /**
   * Records that the page stored at `from` now lives at `to` (its twin, fetched from `url`):
   * no validators, so the next crawl fetches it whole; `from`'s record goes with removeGone.
   */
  async moved(from: string, to: string, url: string) {
    const old = this.prev.get(from);
    const rec: CrawledRecord = { url };
    if (old?.hash) rec.hash = old.hash;
    await this.dropLinks(to);
    await this.s.kv.set(crawledKey(this.siteId, this.origin, to), rec);
    this.prev.set(to, rec);
  }

  /** Whether a page's links were saved at its last fetch. */
  hasLinks(path: string): boolean {
    const links = this.prev.get(path)?.links;
    return links !== undefined && links !== false;
  }

  /** The links saved for a page, to follow when it answers 304. */
  async savedLinks(path: string): Promise<string[]> {
    const key = linksKey(this.siteId, this.origin, path);
    if (typeof this.prev.get(path)?.links === "number") {
      const out: string[] = [];
      for await (const e of this.s.kv.list<string[]>({ prefix: key })) out.push(...e.value);
      return out;
    }
    const saved = await this.s.kv.get<string[]>(key);
    if (saved.value || !this.legacy.has(path)) return saved.value ?? [];
    return (await this.s.kv.get<string[]>(["crawllinks", this.siteId, path])).value ?? [];
  }

  /**
   * Whether a sitemap page may be left unfetched: its lastmod equals the one recorded when
   * it was last fetched from this URL, and the page is still stored. Any other lastmod,
   * older or newer, or none, means a (conditional) fetch: sites backdate lastmod.
   */
  sameLastmod(u: URL, path: string, lastmod: number | undefined): boolean {
    const rec = this.prev.get(path);
    return lastmod !== undefined && rec?.lastmod === lastmod && rec.url === u.href &&
      this.existing.has(path);
  }

  /**
   * Records a stored page for the next crawl: the URL that answered, its validators, its
   * sitemap lastmod and (following links) its links, every value within KV's limits.
   */
  async remember(
    requested: URL,
    path: string,
    res: FetchResult & { ok: true },
    mode: "sitemap" | "links",
    links: string[],
    lastmod?: number,
    twin?: { hash: string; canonical: boolean },
  ) {
    const rec: CrawledRecord = { url: res.url };
    if (pathOf(requested) !== path) rec.from = pathOf(requested);
    const old = this.prev.get(path);
    const etag = res.status === 304 ? old?.etag : res.headers.get("etag");
    const lastModified = res.status === 304 ? old?.lastModified : res.headers.get("last-modified");
    if (etag && etag.length <= MAX_VALIDATOR) rec.etag = etag;
    if (lastModified && lastModified.length <= MAX_VALIDATOR) rec.lastModified = lastModified;
    if (lastmod !== undefined) rec.lastmod = lastmod;
    if (twin) rec.hash = twin.hash;
    if (twin?.canonical) rec.canon = 1;
    const key = linksKey(this.siteId, this.origin, path);
    const writes: [Deno.KvKey, unknown][] = [];
    if (mode === "links" && res.status === 304) {
      rec.links = old?.links;
      // Links of a record from before per-origin keys move under this origin's key.
      if (rec.links && this.legacy.has(path)) {
        const { groups } = splitList(await this.savedLinks(path));
        groups.forEach((g, i) => writes.push([[...key, i], g]));
        rec.links = groups.length;
      }
    } else if (mode === "links") {
      const { groups, oversize } = splitList(links);
      if (!oversize.length && groups.length <= MAX_LINK_VALUES) {
        groups.forEach((g, i) => writes.push([[...key, i], g]));
        rec.links = groups.length;
      }
    }
    const changed = writes.length > 0 || JSON.stringify(rec) !== JSON.stringify(old);
    // A 304 with nothing new costs no write at all.
    if (!changed && !this.legacy.has(path)) return;
    if (res.status !== 304 || writes.length || rec.links === undefined) {
      await this.dropLinks(path, typeof rec.links === "number" ? rec.links : 0);
    }
    writes.push([crawledKey(this.siteId, this.origin, path), rec]);
    for (const batch of commitBatches(writes)) {
      const op = this.s.kv.atomic();
      for (const [k, v] of batch) op.set(k, v);
      await op.commit();
    }
    this.prev.set(path, rec);
    await this.dropLegacy(path);
  }

  /** Deletes a path's saved links: the single value of old, and chunks from `from` on. */
  private async dropLinks(path: string, from = 0) {
    const key = linksKey(this.siteId, this.origin, path);
    const op = this.s.kv.atomic().delete(key);
    for await (const e of this.s.kv.list({ prefix: key })) {
      if ((e.key.at(-1) as number) >= from) op.delete(e.key);
    }
    await op.commit();
  }

  /**
   * Removes pages an earlier crawl stored that this one found gone, or, when this crawl
   * saw the whole site, that it no longer found at all. Failed fetches and pages over
   * the limit are kept: nothing indexed is lost to a bad day or a full plan.
   */
  async removeGone(report: CrawlReport, refresher: IndexRefresher) {
    for (const [path, rec] of this.prev) {
      if (!report.isGone(path, rec.from)) continue;
      if (await this.s.pages.remove(this.siteId, path)) {
        report.counts.removed++;
        refresher.mark();
      }
      await this.s.kv.delete(crawledKey(this.siteId, this.origin, path));
      await this.dropLinks(path);
      await this.dropLegacy(path);
    }
  }

  /** Removes a path's record from before records were kept per origin. */
  private async dropLegacy(path: string) {
    const key = this.legacy.get(path);
    if (!key) return;
    this.legacy.delete(path);
    await this.s.kv.delete(key);
    await this.s.kv.delete(["crawllinks", this.siteId, path]);
  }
}

/** What an earlier crawl of `origin` recorded per stored path: the sitemap lastmod and listed path. */
export async function* crawledPaths(
  s: Services,
  siteId: string,
  origin: string,
): AsyncGenerator<{ path: string; lastmod?: number; from?: string }> {
  for await (const e of s.kv.list<CrawledRecord>({ prefix: ["crawled", siteId, origin] })) {
    yield { path: e.key[3] as string, lastmod: e.value.lastmod, from: e.value.from };
  }
}

/** Removes a page a crawl of `origin` stored, with its record and links; true when it was held. */
export async function forgetCrawled(s: Services, siteId: string, origin: string, path: string) {
  const removed = await s.pages.remove(siteId, path);
  const links = linksKey(siteId, origin, path);
  const op = s.kv.atomic().delete(crawledKey(siteId, origin, path)).delete(links);
  for await (const e of s.kv.list({ prefix: links })) op.delete(e.key);
  await op.commit();
  return removed;
}
