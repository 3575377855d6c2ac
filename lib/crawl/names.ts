/**
 * Names a crawl finds for pages in their URLs: a URL that redirects to a page, and a page
 * that declares another its canonical URL (lib/meaning/url_names.ts). Each is kept in KV
 * per site, origin and naming path as it is seen, so a crawl resumed by another instance
 * keeps what its earlier steps found; fetched again and naming nothing, it goes. At the
 * end of a crawl, every name the site's crawls keep is published to its levers, where
 * searches use them and the owner is offered them (lib/levers/suggestions_names.ts).
 */
import { mergeEquivalences } from "../search/engine/mod.ts";
import { urlEquivalence } from "../meaning/url_names.ts";
import { publishUrlNames } from "../levers/suggestions_names.ts";
import type { Services } from "../services.ts";
import { keyFits } from "../storage/kv_limits.ts";

type NameKind = "redirect" | "canonical";

interface NameRecord {
  to: string;
  kind: NameKind;
}

/** A longer path is kept by no record (a name is in its last segment, under 64 characters). */
const MAX_PATH_CHARS = 2_000;
/** Names kept per site at most: what a site of redirects may add stays bounded. */
const MAX_RECORDS = 2_000;

const prefix = (site: string) => ["crawlnames", site];
const nameKey = (site: string, origin: string, path: string) => [
  ...prefix(site),
  origin,
  path,
];

/** One crawl's view of the names its origin's URLs give pages. */
export class CrawlNames {
  /** Paths of this origin that named a page when the crawl began (or since). */
  private kept = new Set<string>();
  private origin: string;

  constructor(private s: Services, private siteId: string, startUrl: string) {
    this.origin = new URL(startUrl).origin;
  }

  /** Reads which paths name a page now. */
  async load() {
    const list = this.s.kv.list<NameRecord>(
      { prefix: [...prefix(this.siteId), this.origin] },
      { limit: MAX_RECORDS },
    );
    for await (const e of list) this.kept.add(e.key.at(-1) as string);
  }

  /** Notes that fetching `from` gave the page at `to` this way; `to` null: it names none. */
  async note(from: string, to: string | null, kind: NameKind) {
    const key = nameKey(this.siteId, this.origin, from);
    const fits = keyFits(key) && to !== null && to.length <= MAX_PATH_CHARS;
    if (!fits || !urlEquivalence(from, to, kind)) {
      if (this.kept.delete(from)) await this.s.kv.delete(key);
      return;
    }
    if (!this.kept.has(from) && this.kept.size >= MAX_RECORDS) return;
    await this.s.kv.set(key, { to, kind } satisfies NameRecord);
    this.kept.add(from);
  }

  /** Publishes the names every crawl of the site keeps (all its origins) to its levers. */
  async publish() {
    const found = [];
    const list = this.s.kv.list<NameRecord>({ prefix: prefix(this.siteId) }, {
      limit: MAX_RECORDS * 2,
    });
    for await (const e of list) {
      const eq = urlEquivalence(e.key.at(-1) as string, e.value.to, e.value.kind);
      if (eq) found.push([eq]);
    }
    await publishUrlNames(this.s, this.siteId, mergeEquivalences(found));
  }
}
