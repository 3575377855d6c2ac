/**
 * What crawls learned of each URL of a site, kept so that "why is this page not searchable?"
 * has an answer for every URL a crawl met (url_status.ts): per site path, the last reason a
 * crawl gave it (`indexed`, or why not), when it was last fetched, and where it pointed (a
 * redirect's target, the page a duplicate defers to). A crawl notes as it goes and writes a
 * batch a second; a crawl that saw the whole site drops the records of paths it never met,
 * so what is kept stays bounded by what the site links to. URLs a crawl met past its limits
 * (more than it keeps) get records only as many as the URLs it keeps: one page of 300,000
 * links would otherwise cost as many KV reads and writes on a 20-page plan.
 */
import { pathOf, siteKeyOf } from "./http.ts";
import { commitBatchesInSlices, keyFits } from "../storage/kv_limits.ts";

/** One URL's record: reason, when (ms) the crawl last met it, whether it was fetched then. */
export interface UrlRecord {
  r: string;
  /** When a crawl last fetched it (ms); absent when no crawl did (robots, patterns, limits). */
  at?: number;
  /** A redirect's target, or the URL a duplicate's page is stored under. */
  to?: string;
}

/** Reasons a crawl gives a URL it did not fetch: the record keeps the last fetch's time. */
const UNFETCHED = new Set([
  "robots",
  "excluded",
  "not_included",
  "page_limit",
  "discovery_limit",
  "sitemap_limit",
  "invalid_url",
  "off_site",
  "blocked_address",
]);
/** Reasons a crawl gives a URL it met past its limits, whose records are bounded per crawl. */
const PAST_LIMITS = new Set(["discovery_limit", "sitemap_limit"]);
/** Paths longer than this are not kept (crawls keep none longer). */
const MAX_PATH = 1000;
/** Targets are kept this long at most, within one small value. */
const MAX_TO = 2000;

export const ledgerPrefix = (site: string) => ["crawlurlstate", site];
const ledgerKey = (site: string, path: string) => [...ledgerPrefix(site), path];

/** A site's record for one path, or null when no crawl met it. */
export async function readUrlRecord(kv: Deno.Kv, site: string, path: string) {
  const key = ledgerKey(site, path);
  return keyFits(key) ? (await kv.get<UrlRecord>(key)).value : null;
}

/** One crawl's notes, written in batches. */
export class UrlLedger {
  private pending = new Map<string, { reason: string; to?: string; fetched: boolean }>();
  /** Paths that redirected in this crawl: met again as their target's duplicate, still redirects. */
  private redirects = new Set<string>();
  private writing: Promise<void> = Promise.resolve();
  /** URLs noted past the crawl's limits so far. */
  private pastLimits = 0;

  constructor(
    private readonly o: {
      kv: Deno.Kv;
      siteId: string;
      /** The site crawled (siteKeyOf), known once the start URL answered. */
      siteKey: () => string;
      clock: () => number;
      /** Records at most for URLs met past the crawl's limits: as many as the URLs it keeps. */
      maxPastLimits: number;
    },
  ) {}

  /** What became of `url` (absolute); URLs of other sites are not kept. */
  note(url: string, reason: string, to?: string) {
    // Past the limits the job counts them; the first of them keep a record each.
    if (PAST_LIMITS.has(reason) && this.pastLimits++ >= this.o.maxPastLimits) return;
    const u = URL.parse(url);
    if (!u || siteKeyOf(u) !== this.o.siteKey()) return;
    const path = pathOf(u);
    if (path.length > MAX_PATH) return;
    if (reason === "redirect") this.redirects.add(path);
    else if (reason === "duplicate" && this.redirects.has(path)) return;
    this.notePath(path, reason, to);
  }

  /** A page stored at `path`; `fetched` false when kept unfetched (its sitemap lastmod unchanged). */
  indexed(path: string, fetched: boolean) {
    if (path.length > MAX_PATH) return;
    if (fetched) this.notePath(path, "indexed");
    else if (!this.pending.has(path)) this.pending.set(path, { reason: "indexed", fetched: false });
  }

  private notePath(path: string, reason: string, to?: string) {
    this.pending.set(path, {
      reason,
      fetched: !UNFETCHED.has(reason),
      ...(to ? { to: to.slice(0, MAX_TO) } : {}),
    });
  }

  /** Writes the notes taken so far, one batch at a time; a failure is left to the caller. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write(), () => this.write());
    return this.writing;
  }

  private async write() {
    if (!this.pending.size) return;
    const notes = [...this.pending];
    this.pending.clear();
    const now = this.o.clock();
    // Unfetched now, a URL keeps the time of its last fetch.
    const old = await Promise.all(
      notes.map(([path, n]) =>
        n.fetched ? null : this.o.kv.get<UrlRecord>(ledgerKey(this.o.siteId, path))
      ),
    );
    const writes: [Deno.KvKey, unknown][] = notes.map(([path, n], i) => {
      const at = n.fetched ? now : old[i]?.value?.at;
      const rec: UrlRecord = { r: n.reason, ...(at ? { at } : {}), ...(n.to ? { to: n.to } : {}) };
      return [ledgerKey(this.o.siteId, path), rec];
    });
    for (const batch of await commitBatchesInSlices(writes)) {
      const op = this.o.kv.atomic();
      for (const [k, v] of batch) op.set(k, v);
      await op.commit();
    }
  }

  /** Drops the records of paths `met` says no crawl of the whole site met this time. */
  async prune(met: (path: string) => boolean) {
    await this.flush();
    let batch: Deno.KvKey[] = [];
    const drop = async () => {
      const op = this.o.kv.atomic();
      for (const k of batch) op.delete(k);
      await op.commit();
      batch = [];
    };
    for await (const e of this.o.kv.list({ prefix: ledgerPrefix(this.o.siteId) })) {
      if (met(e.key[2] as string)) continue;
      batch.push(e.key);
      if (batch.length === 500) await drop();
    }
    if (batch.length) await drop();
  }
}
