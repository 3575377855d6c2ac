/**
 * One page per document: URLs whose pages are byte-identical after extraction (`/docs/` and
 * `/docs/index.html`) are stored once. A crawl keeps the first it meets and sets the others
 * aside; at its end the page goes under the URL that declares itself canonical, else the one
 * the site's pages link most, else the shorter directory form, and every other URL is reported
 * skipped as a `duplicate` of it. Only a hash of the extracted page is kept per URL, and the
 * link counts are bounded like the URLs a crawl may meet. The counts are kept in memory only
 * (rewritten at every checkpoint they would cost a write per linked path a second): a crawl
 * taken over by another instance counts the links it reads from then on.
 */
import { pathOf, siteKeyOf } from "./http.ts";
import type { CrawlLog, TwinMark } from "./checkpoint.ts";

/** A URL whose page has a given content hash. */
export interface Twin {
  /** The page's site-relative path. */
  path: string;
  /** The URL that answered. */
  url: string;
  /** The page names itself as its canonical URL. */
  canonical: boolean;
}

/** The hash two pages share exactly when they are the same after extraction. */
export async function contentHash(page: object): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(page));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return btoa(String.fromCharCode(...digest.subarray(0, 18))).replace(
    /[+/=]/g,
    (c) => c === "+" ? "-" : c === "/" ? "_" : "",
  );
}

const INDEX_FILE_RE = /\/index\.(?:html?|php|aspx?)$/i;

/** One crawl's stored pages by content hash, the URLs set aside as their twins, and link counts. */
export class CrawlTwins {
  /** Same-site links to each path from other pages this crawl read. */
  private inbound = new Map<string, number>();
  /** Content hash → the URL stored for it. */
  private kept = new Map<string, Twin>();
  /** Content hash → URLs met with the same content and not stored. */
  private aside = new Map<string, Map<string, Twin>>();

  /** `cap`: paths whose links are counted at most (the URLs the crawl may meet). */
  constructor(private cap: number, private log?: CrawlLog) {}

  /** Counts a link the page at `from` makes, when it is to another page of the site `siteKey`. */
  linked(from: string, u: URL, siteKey: string) {
    if (siteKeyOf(u) !== siteKey) return;
    const path = pathOf(u);
    if (path === from) return;
    const n = this.inbound.get(path);
    if (n === undefined && this.inbound.size >= this.cap) return;
    this.inbound.set(path, (n ?? 0) + 1);
  }

  /** The URL stored for `hash` other than `path`, if any: the page at `path` is its twin. */
  twinOf(hash: string, path: string): Twin | null {
    const kept = this.kept.get(hash);
    return kept && kept.path !== path ? kept : null;
  }

  /** Records the URL stored for a hash (the first met). */
  keep(hash: string, twin: Twin) {
    if (!this.kept.has(hash)) this.kept.set(hash, twin);
  }

  /**
   * Records, for a hash met first under another URL, the URL an earlier crawl stored it under
   * (still held, not met yet in this crawl): a re-crawl keeps the page where it is.
   */
  adopt(hash: string, twin: Twin) {
    this.kept.set(hash, twin);
    this.adopted.add(hash);
  }
  /** Hashes whose stored URL an earlier crawl chose (adopt). */
  private adopted = new Set<string>();

  /**
   * The hashes adopted for `path` other than `hash`, each with its best twin set aside: the
   * page at `path` is about to change, and the page it held goes under that twin first.
   */
  *leaving(path: string, hash: string): Generator<{ hash: string; to: Twin }> {
    for (const h of this.adopted) {
      const kept = this.kept.get(h);
      const group = this.aside.get(h);
      if (h === hash || kept?.path !== path || !group?.size) continue;
      const to = [...group.values()].reduce((a, b) => (this.better(b, a) ? b : a));
      group.delete(to.path);
      this.kept.set(h, to);
      this.adopted.delete(h);
      yield { hash: h, to };
    }
  }

  /** Forgets the URL recorded for a hash whose page could not be stored after all. */
  release(hash: string, path: string) {
    if (this.kept.get(hash)?.path === path) this.kept.delete(hash);
  }

  /** Sets a URL aside as a twin of the page stored for `hash`. */
  setAside(hash: string, twin: Twin) {
    const group = this.aside.get(hash) ?? new Map<string, Twin>();
    group.set(twin.path, twin);
    this.aside.set(hash, group);
    this.log?.twin(twin.path, { h: hash, u: twin.url, ...(twin.canonical ? { c: 1 } : {}) });
  }

  /** Puts back what a checkpoint kept. */
  restore(aside: Map<string, TwinMark>) {
    for (const [path, m] of aside) {
      const group = this.aside.get(m.h) ?? new Map<string, Twin>();
      group.set(path, { path, url: m.u, canonical: m.c === 1 });
      this.aside.set(m.h, group);
    }
  }

  /**
   * Each group of twins: the URL stored now, the one to keep, and the others. `met` says
   * whether this crawl met a URL: one an earlier crawl chose that this one never met is gone
   * from the site, and keeps the page only where no twin was met.
   */
  *groups(
    met: (path: string) => boolean = () => true,
  ): Generator<{ hash: string; kept: Twin; best: Twin; others: Twin[] }> {
    for (const [hash, group] of this.aside) {
      const kept = this.kept.get(hash);
      if (!kept) continue;
      if (!group.size) continue;
      const all = [kept, ...[...group.values()].filter((t) => t.path !== kept.path)];
      const gone = this.adopted.has(hash) && !met(kept.path);
      const best = all.filter((t) => !gone || t !== kept)
        .reduce((a, b) => (this.better(b, a) ? b : a));
      yield { hash, kept, best, others: all.filter((t) => t !== best) };
    }
  }

  /** Whether `a` names the page better than `b`: canonical, most linked, directory form, shorter. */
  private better(a: Twin, b: Twin): boolean {
    if (a.canonical !== b.canonical) return a.canonical;
    const [la, lb] = [this.inbound.get(a.path) ?? 0, this.inbound.get(b.path) ?? 0];
    if (la !== lb) return la > lb;
    const [ia, ib] = [INDEX_FILE_RE.test(a.path), INDEX_FILE_RE.test(b.path)];
    if (ia !== ib) return ib;
    if (a.path.length !== b.path.length) return a.path.length < b.path.length;
    return a.path < b.path;
  }
}
