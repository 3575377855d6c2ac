/**
 * What a crawl step leaves in KV so that any instance can go on from there: a mark per
 * URL met (seen, to do with its task, done) and per site path what the crawl learned
 * (listed, stored, gone). Marks pile up in memory and are written with the job's
 * heartbeat; a step that dies loses at most the last second, which is fetched again.
 *
 * The marks and the job's counts are saved as one cut: both taken at one instant and
 * committed together, so a crawl resumed after a kill never holds a mark without its count
 * or a count without its mark. A cut too large for one commit is staged under `cutPrefix`,
 * and counts only once the record naming it (`CrawlJob.staged`) is committed.
 */
import type { CrawlTask } from "./queue.ts";
import { keyFits } from "../storage/kv_limits.ts";

/** 0 seen (no task), 1 to do, 2 done. */
export interface UrlMark {
  s: 0 | 1 | 2;
  /** Task kind: page or sitemap. */
  k?: "p" | "s";
  /** Sitemap depth. */
  d?: number;
  /** Sitemap lastmod of a page, ms. */
  l?: number;
}

/** A URL set aside as a duplicate (duplicates.ts): its page's content hash, URL and canonical claim. */
export interface TwinMark {
  h: string;
  u: string;
  c?: 1;
}

export const PATH_LISTED = 1;
export const PATH_CLAIMED = 2;
export const PATH_GONE = 4;

/** Marks' keys stay this far under KV's key limit: never near it. */
const KEY_SPARE = 512;

export const urlPrefix = (site: string, job: string) => ["crawlurl", site, job];
export const pathPrefix = (site: string, job: string) => ["crawlpath", site, job];
/** Per path set aside as a duplicate, its content hash (duplicates.ts). */
export const twinPrefix = (site: string, job: string) => ["crawltwin", site, job];
/** Staged cuts: [...cutPrefix, cut number, i] holds one write of the cut as [key, value]. */
export const cutPrefix = (site: string, job: string) => ["crawlcut", site, job];

/** A cut's writes as staged entries of cut `n`. */
export function stageCut(
  site: string,
  job: string,
  n: number,
  writes: [Deno.KvKey, unknown][],
): [Deno.KvKey, unknown][] {
  return writes.map(([key, value], i) => [[...cutPrefix(site, job), n, i], [key, value]]);
}

/** One crawl's marks waiting to be written. */
export class CrawlLog {
  private urls = new Map<string, UrlMark>();
  private paths = new Map<string, number>();
  /** Path flags known so far, so a write carries the whole value. */
  private flags = new Map<string, number>();
  private twins = new Map<string, TwinMark>();

  seen(url: string) {
    if (!this.urls.has(url)) this.urls.set(url, { s: 0 });
  }

  todo(task: CrawlTask) {
    const cur = this.urls.get(task.url.href);
    if (cur && cur.s === 2) return;
    const mark: UrlMark = task.kind === "page"
      ? { s: 1, k: "p", ...(task.lastmod !== undefined ? { l: task.lastmod } : {}) }
      : { s: 1, k: "s", d: task.depth };
    this.urls.set(task.url.href, mark);
  }

  done(task: CrawlTask) {
    this.urls.set(task.url.href, { s: 2, k: task.kind === "page" ? "p" : "s" });
  }

  path(path: string, flag: number, on: boolean) {
    const cur = this.flags.get(path) ?? 0;
    const next = on ? cur | flag : cur & ~flag;
    if (next === cur) return;
    this.flags.set(path, next);
    this.paths.set(path, next);
  }

  twin(path: string, mark: TwinMark) {
    this.twins.set(path, mark);
  }

  /** Known flags from a restore, so later writes keep them. */
  restorePath(path: string, flags: number) {
    this.flags.set(path, flags);
  }

  /** The pending writes as [key, value] pairs; the log is empty afterwards. */
  take(site: string, job: string): [Deno.KvKey, unknown][] {
    const out: [Deno.KvKey, unknown][] = [];
    // A URL too long for a key is not saved: a resumed crawl may meet it again.
    for (const [url, mark] of this.urls) {
      const key = [...urlPrefix(site, job), url];
      if (keyFits(key, KEY_SPARE)) out.push([key, mark]);
    }
    for (const [path, flags] of this.paths) {
      const key = [...pathPrefix(site, job), path];
      if (keyFits(key, KEY_SPARE)) out.push([key, flags]);
    }
    for (const [path, mark] of this.twins) {
      const key = [...twinPrefix(site, job), path];
      if (keyFits(key, KEY_SPARE)) out.push([key, mark]);
    }
    this.urls.clear();
    this.paths.clear();
    this.twins.clear();
    return out;
  }
}

/** Reads a job's marks back: every URL met, the tasks left, the path flags and twins. */
export async function loadMarks(kv: Deno.Kv, site: string, job: string) {
  const urls = new Map<string, UrlMark>();
  const paths = new Map<string, number>();
  for await (const e of kv.list<UrlMark>({ prefix: urlPrefix(site, job) })) {
    urls.set(e.key[3] as string, e.value);
  }
  for await (const e of kv.list<number>({ prefix: pathPrefix(site, job) })) {
    paths.set(e.key[3] as string, e.value);
  }
  const twins = new Map<string, TwinMark>();
  for await (const e of kv.list<TwinMark>({ prefix: twinPrefix(site, job) })) {
    twins.set(e.key[3] as string, e.value);
  }
  return { urls, paths, twins };
}

/** A Set that reports each new member (to a CrawlLog). */
export class TrackedSet extends Set<string> {
  constructor(private onChange: (v: string, added: boolean) => void) {
    super();
  }

  override add(v: string): this {
    if (!this.has(v)) this.onChange(v, true);
    return super.add(v);
  }

  override delete(v: string): boolean {
    const had = super.delete(v);
    if (had) this.onChange(v, false);
    return had;
  }

  /** Adds without reporting (a restore, or a claim not to be saved yet). */
  quietAdd(v: string) {
    super.add(v);
  }

  /** Removes without reporting (a claim that was never saved). */
  quietDelete(v: string): boolean {
    return super.delete(v);
  }

  /** Reports a member added quietly before (a claim now saved). */
  announce(v: string) {
    this.onChange(v, true);
    super.add(v);
  }
}
