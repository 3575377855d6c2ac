/**
 * One Orama database per site, built from KV on first use and kept current by
 * replaying the site's change log (lib/pages.ts). Local writes call `refresh`;
 * writes by other instances sharing the KV are noticed by a version check at
 * most `staleMs` old, so they show up here within that time.
 */
import {
  type Highlight,
  highlightField,
  highlightSnippet,
  makeMatcher,
  SNIPPET_SCAN_CHARS,
} from "./highlight.ts";
import type { Page, PageStore } from "../sites/pages.ts";
import { rank } from "./rank.ts";
import { addDoc, createSiteDb, type Doc, docAt, removeDoc, type SiteDb } from "./site_db.ts";
import { queryWords } from "./text.ts";

export interface SearchHit {
  title: string;
  description: string;
  url: string;
  highlights: Highlight[];
}

export interface SearchResult {
  found: number;
  hits: SearchHit[];
}

interface SiteIndex {
  db: SiteDb;
  version: number;
  checkedAt: number;
  /** Serialises catch-ups so two never replay the same log at once. */
  busy: Promise<void>;
}

function toDoc(p: Page): Doc {
  const headings = (p.headings ?? []).join("\n");
  return { id: p.url, title: p.title, description: p.description, headings, body: p.body };
}

/** The description shown for a result: the page's own, else the start of its text. */
function describe(doc: Doc): string {
  if (doc.description) return doc.description;
  const text = doc.body.slice(0, 400).replace(/\s+/g, " ").trim();
  if (text.length <= 160) return text;
  const cut = text.lastIndexOf(" ", 157);
  return text.slice(0, cut > 80 ? cut : 157) + "…";
}

/** Longest stretch of indexing between yields to the event loop, so searches never wait behind it. */
const SLICE_MS = 8;
/** How long a search waits for its index to catch up before answering from what is indexed. */
const CATCH_UP_WAIT_MS = 50;

/** Runs `step` on each item, yielding to the event loop whenever a slice has run SLICE_MS. */
async function inSlices<T>(items: Iterable<T> | AsyncIterable<T>, step: (item: T) => void) {
  let sliceStart = performance.now();
  for await (const item of items) {
    step(item);
    if (performance.now() - sliceStart >= SLICE_MS) {
      await new Promise((r) => setTimeout(r, 0));
      sliceStart = performance.now();
    }
  }
}

/** Search indexes for all sites this instance has served. */
export class SearchIndexes {
  private sites = new Map<string, Promise<SiteIndex>>();

  constructor(
    private pages: PageStore,
    private clock: () => number,
    private staleMs = 500,
  ) {}

  /** Builds a site's index from KV. */
  private async build(site: string): Promise<SiteIndex> {
    const { version } = await this.pages.version(site);
    const db = createSiteDb();
    await inSlices(this.pages.all(site), (page) => addDoc(db, toDoc(page)));
    return { db, version, checkedAt: this.clock(), busy: Promise.resolve() };
  }

  private load(site: string): Promise<SiteIndex> {
    let p = this.sites.get(site);
    if (!p) {
      p = this.build(site);
      p.catch(() => this.sites.delete(site));
      this.sites.set(site, p);
    }
    return p;
  }

  /** Replays changes since the index's version; rebuilds if the log has a gap. */
  async refresh(site: string): Promise<void> {
    const idx = await this.load(site);
    const run = idx.busy.then(async () => {
      idx.checkedAt = this.clock();
      const { version } = await this.pages.version(site);
      if (version === idx.version) return;
      const urls = await this.pages.changesSince(site, idx.version, version);
      if (urls === null) {
        const fresh = await this.build(site);
        [idx.db, idx.version] = [fresh.db, fresh.version];
        return;
      }
      const pages = await Promise.all(urls.map((u) => this.pages.get(site, u)));
      await inSlices(urls.keys(), (i) => {
        removeDoc(idx.db, urls[i]);
        const page = pages[i];
        if (page) addDoc(idx.db, toDoc(page));
      });
      idx.version = version;
    });
    idx.busy = run.catch(() => {});
    await run;
  }

  /** The site's index, caught up if its last check is older than `staleMs`. */
  private async current(site: string): Promise<SiteIndex> {
    const idx = await this.load(site);
    if (this.clock() - idx.checkedAt >= this.staleMs) {
      // A long catch-up (a large upsert by another instance) goes on in the background.
      const caughtUp = this.refresh(site);
      caughtUp.catch(() => {});
      let timer: ReturnType<typeof setTimeout> | undefined;
      const wait = new Promise((r) => timer = setTimeout(r, CATCH_UP_WAIT_MS));
      await Promise.race([caughtUp, wait]).finally(() => clearTimeout(timer));
    }
    return idx;
  }

  /** Ranked, highlighted results for a query. */
  async search(site: string, q: string, page: number, perPage: number): Promise<SearchResult> {
    const { db } = await this.current(site);
    const { ids, corrections } = rank(db, q);
    const words = queryWords(q);
    const stems = db.orama.tokenizer.tokenize(q, "english") as string[];
    const match = makeMatcher(words, [...stems, ...corrections]);
    const hits = ids.slice((page - 1) * perPage, page * perPage).map((id) => {
      const doc = docAt(db, id, SNIPPET_SCAN_CHARS);
      const description = describe(doc);
      const highlights = [
        highlightField("title", doc.title, match),
        highlightField("description", description, match),
        highlightSnippet(doc.body, match),
      ].filter((h): h is Highlight => h !== null);
      return { title: doc.title, description, url: doc.id, highlights };
    });
    return { found: ids.length, hits };
  }

  /** The best-matching whole documents (id = url or document id), for summary retrieval. */
  async top(site: string, q: string, limit: number, maxChars = Infinity): Promise<Doc[]> {
    const { db } = await this.current(site);
    return rank(db, q).ids.slice(0, limit).map((id) => docAt(db, id, maxChars));
  }

  /** Forgets an index (tests, memory pressure); the next search rebuilds it. */
  drop(site: string) {
    this.sites.delete(site);
  }
}
