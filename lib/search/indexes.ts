/**
 * One index per site (store/site_db.ts), loaded from its snapshot in KV
 * (snapshots.ts) or built from the pages on first use, and kept current by
 * replaying the site's change log (lib/sites/pages.ts). Local writes call `refresh`; writes
 * by other instances sharing the KV are noticed by a version check at most `staleMs` old, so
 * they show up here within that time. A built or changed index is saved as a snapshot once
 * it has settled; the least recently used go first when the memory budget is spent.
 */
import { STALE_MS } from "../clock.ts";
import type { PageStore, WrittenBodies } from "../sites/pages.ts";
import {
  addDoc,
  type BodyArena,
  CODEC_VERSION,
  type Doc,
  docAt,
  docCount,
  type Expand,
  heldBytes,
  keptHeadingsBytes,
  rank,
  removeDoc,
  scoreCacheBytes,
  search,
  type SearchOptions,
  type SearchResult,
  statedEquivalences,
  statedSettled,
} from "./engine/mod.ts";
import type { SnapshotHead, Snapshots } from "./snapshots.ts";
import { toDoc } from "./documents.ts";
import { IndexBudget } from "./budget.ts";
import { noteSearch, quietSpell, searchesPaused } from "./activity.ts";
import { releaseNow, releasesMemory, releaseSoon } from "../memory_release.ts";
import { inSlices } from "../slices.ts";
import { UseOrder } from "../use_order.ts";
import {
  buildIndex,
  compact,
  COMPACT_NOW_PAGES,
  encodeWhenDone,
  loadedIndex,
  readAheadAfterPass,
  readsAheadDone,
  runPass,
  type SiteIndex,
} from "./site_index.ts";

/** Changed pages a catch-up reads from KV at once (each group indexed before the next is read). */
const CATCH_UP_GROUP = 50;
/** How long a search waits for its index to catch up before answering from what is indexed. */
const CATCH_UP_WAIT_MS = 50;
/**
 * An index checked within `staleMs` × this is answered from at once while its check runs:
 * another instance's writes show within `staleMs` on a site being searched, and at most
 * this many times later after a quiet spell.
 */
const QUIET_FACTOR = 10;

/** One version of a site's index, as `SearchIndexes.reader` hands it out. */
export interface IndexReader {
  version: number;
  search(options: SearchOptions): Promise<SearchResult>;
}

/** Searches of an index as it is now (a later catch-up replaces its db: not seen by these). */
function readerOf({ db, version }: SiteIndex): IndexReader {
  return { version, search: (options) => Promise.resolve(search(db, options)) };
}

/** A changing index is saved at most this long after its first unsaved change. */
const MAX_SAVE_WAIT_MS = 30_000;

/** How a SearchIndexes is set up: its clock, how fresh its indexes stay, its memory, its saves. */
export interface IndexesOptions {
  /** Milliseconds since the epoch (Date.now; tests pass their own). */
  clock?: () => number;
  /** How old a version check may be before a search checks again (STALE_MS). */
  staleMs?: number;
  /** Bytes all indexes may hold, or a budget shared with other indexes; the least recently used go first (INDEX_MEMORY_MB). */
  budget?: number | IndexBudget;
  /** Where indexes are saved and loaded from; none: always built from the pages. */
  snapshots?: Snapshots;
  /** How long an index stays unchanged before it is saved (debounce). */
  saveDelayMs?: number;
  /**
   * Rehearses the largest index so far with its own words while no one searches (warm.ts
   * `rehearsal`): off by default, and where CPU is billed by the request (Deploy).
   */
  rehearse?: boolean;
  /**
   * Where compacted indexes keep their pages' bodies (lib/storage/text_spill.ts); in memory
   * when unset.
   * Loaded ones keep them where their `snapshots` do.
   */
  keepBodies?: (bytes: Uint8Array) => BodyArena;
  /** Tells background work that a search read an index (activity.ts `noteSearch`, the default). */
  noteSearch?: () => void;
}

/** Search indexes for all sites this instance has served. */
export class SearchIndexes {
  /** Least recently used first (a Map keeps insertion order; a use re-inserts). */
  private sites = new UseOrder<string, Promise<SiteIndex>>();
  private built = new Map<string, SiteIndex>(); // the indexes built so far, for the budget
  /** The passes after a change under way (rank.ts prepareIndex), one an index. */
  private preparing = new Map<SiteIndex, Promise<void>>();
  /** Searches waiting for the next slice of an index's pass; indexes being caught up. */
  private sliced = new Map<SiteIndex, PromiseWithResolvers<void>>();
  private catchingUp = new Set<SiteIndex>();
  /** Sites whose index has changes not yet in a snapshot, with the save's timer. */
  private unsaved = new Map<string, { timer: ReturnType<typeof setTimeout>; since: number }>();
  private saving = new Set<Promise<boolean>>(); // saves under way
  private snapshots?: Snapshots;
  private saveDelayMs: number;
  private budget: IndexBudget;
  readonly opened = { loaded: 0, built: 0 }; // indexes loaded from a snapshot, built from pages
  /** Indexes evicted, and the time opening took (first read to a usable index), for operators. */
  readonly churn = { evicted: 0, loadMs: 0, buildMs: 0 };

  /** Indexes opened and evicted so far: unchanged while none comes or goes (a quiet time to trim). */
  get turnover(): number {
    return this.opened.loaded + this.opened.built + this.churn.evicted;
  }

  private clock: () => number;
  private staleMs: number;
  private rehearse: boolean;
  private keepBodies?: (bytes: Uint8Array) => BodyArena;
  readonly #noteSearch: () => void;

  constructor(private pages: PageStore, opts: IndexesOptions = {}) {
    const { clock = Date.now, staleMs = STALE_MS, budget = Infinity } = opts;
    this.clock = clock;
    this.staleMs = staleMs;
    this.budget = typeof budget === "number" ? new IndexBudget(budget) : budget;
    this.budget.join(() => this.held().bytes);
    this.snapshots = opts.snapshots;
    this.saveDelayMs = opts.saveDelayMs ?? 1_000;
    this.rehearse = opts.rehearse ?? false;
    this.keepBodies = opts.keepBodies;
    this.#noteSearch = opts.noteSearch ?? noteSearch;
  }

  /** Tells background work that a search came (IndexesOptions.noteSearch). */
  noteSearch() {
    this.#noteSearch();
  }

  /** Bytes the indexes sharing this one's budget may hold. */
  get budgetBytes(): number {
    return this.budget.bytes;
  }

  /** Sites whose index is in memory (or being built). */
  get loaded(): number {
    return this.sites.size;
  }

  /** Drops the least recently used indexes, never `keep`, until the rest fit the budget. */
  private evict(keep: string) {
    let total = this.budget.used();
    for (const site of this.sites.keys()) {
      if (total <= this.budget.bytes) break;
      if (site === keep) continue;
      const idx = this.built.get(site);
      total -= idx?.bytes ?? 0;
      // Changes not yet in a snapshot are saved on the way out: the next load is then cheap.
      if (idx && this.unsaved.has(site)) this.saveNow(site, idx);
      this.drop(site);
      this.churn.evicted++;
    }
  }

  /** Saves a site's index once it has gone `saveDelayMs` without a change. */
  private scheduleSave(site: string) {
    if (!this.snapshots) return;
    const now = performance.now();
    const since = this.unsaved.get(site)?.since ?? now;
    clearTimeout(this.unsaved.get(site)?.timer);
    const wait = Math.max(0, Math.min(this.saveDelayMs, since + MAX_SAVE_WAIT_MS - now));
    const timer = setTimeout(() => {
      const idx = this.built.get(site);
      if (idx) this.saveNow(site, idx);
      else this.unsaved.delete(site); // dropped meanwhile
    }, wait);
    Deno.unrefTimer(timer); // a pending save never keeps the process alive
    this.unsaved.set(site, { timer, since });
  }

  /** Saves an index in the background, encoded between catch-ups (never during one). */
  private saveNow(site: string, idx: SiteIndex) {
    clearTimeout(this.unsaved.get(site)?.timer);
    this.unsaved.delete(site);
    // After the pass, so the snapshot holds the passages it read and a load needs no pass.
    const asked = idx.version, db = idx.db;
    const encode = () => encodeWhenDone(idx, asked, this.preparing.get(idx));
    // A failed save (KV unavailable, the site deleted) only means the next load rebuilds.
    const run = this.snapshots!.save(site, idx.version, encode).catch(() => false);
    this.saving.add(run);
    run.finally(() => {
      this.saving.delete(run);
      // Compacted by the save, the index is new: its pass runs again. Refused as changed
      // since, it is saved again (that change's own save may have found this one under way).
      if (idx.db !== db && this.built.get(site) === idx) this.prepare(site, idx, true);
      const again = idx.version !== asked && this.built.get(site) === idx;
      if (again && !this.unsaved.has(site)) this.scheduleSave(site);
    });
  }

  /** Saves every index with unsaved changes now and waits for all saves (tests, benchmarks, shutdown). */
  async flush(): Promise<void> {
    for (const site of [...this.unsaved.keys()]) {
      const idx = this.built.get(site);
      if (idx) this.saveNow(site, idx);
      else clearTimeout(this.unsaved.get(site)?.timer), this.unsaved.delete(site);
    }
    await Promise.all(this.saving);
  }

  /**
   * Opens a site's index: its snapshot when one is usable, else a build from KV. `known`: the
   * snapshot's head when the caller has just read it.
   */
  private async open(site: string, known?: SnapshotHead): Promise<SiteIndex> {
    const started = performance.now();
    // The snapshot's head is read beside the version: a load is one KV round trip shorter.
    const [{ version }, head] = await Promise.all([
      this.pages.version(site),
      known ?? this.snapshots?.head(site).catch(() => null) ?? null,
    ]);
    const saved = await this.snapshots?.loadAt(site, head, version).catch(() => null);
    if (saved) {
      this.opened.loaded++;
      const idx = loadedIndex(saved, this.clock);
      idx.keepBodies = this.keepBodies;
      // An older snapshot is caught up from the change log (or rebuilt where it has a gap).
      if (saved.version !== version) await this.catchUp(site, idx);
      this.churn.loadMs += performance.now() - started;
      return idx;
    }
    this.opened.built++;
    const idx = await buildIndex(this.pages, site, this.clock);
    idx.keepBodies = this.keepBodies;
    // As after a catch-up of many pages: compacted when no one searches, what it left freed.
    if (idx.builtPages >= COMPACT_NOW_PAGES) {
      if (searchesPaused() && this.compactsNow()) compact(idx);
      await this.release(idx);
    }
    this.churn.buildMs += performance.now() - started;
    this.scheduleSave(site);
    return idx;
  }

  /**
   * Whether a loose index is compacted as soon as a build or catch-up leaves it so, rather than
   * by its save a second later. Compacting leaves the columns it replaces as garbage: at once
   * only where the host frees that when told (memory_release.ts), or where no save follows.
   * Otherwise each upsert of a burst would compact anew for V8 to collect seconds later: 2,400
   * pages upserted in ten requests leave RSS 63-65 MB per 1,000 pages higher 2 s after that way,
   * 48-60 when the save alone compacts (external memory 59-64 MB against 19-36).
   */
  private compactsNow = () => !this.snapshots || releasesMemory();

  /** Frees what building `idx` left: before answering if it is a quarter of all held, else soon. */
  private release = async (idx: SiteIndex) =>
    idx.bytes * 4 >= this.held().bytes ? await releaseNow() : releaseSoon();

  /** What this process's indexes hold now, as the budget counts it. */
  held(): { sites: number; bytes: number } {
    let bytes = 0;
    for (const idx of this.built.values()) {
      bytes += idx.bytes + scoreCacheBytes(idx.db) + keptHeadingsBytes(idx.db);
    }
    return { sites: this.built.size, bytes };
  }

  private load(site: string): Promise<SiteIndex> {
    let p = this.sites.get(site);
    if (p) {
      this.sites.use(site, p);
      return p;
    }
    p = this.opening(site);
    this.sites.set(site, p);
    return p;
  }

  /** Opens a site's index and keeps it once open (unless dropped meanwhile). */
  private opening(site: string, known?: SnapshotHead): Promise<SiteIndex> {
    const p = this.open(site, known);
    p.then((idx) => {
      if (this.sites.get(site) !== p) return; // dropped while it was being built
      this.built.set(site, idx);
      this.evict(site);
      this.prepare(site, idx);
    }, () => this.sites.delete(site));
    return p;
  }

  /** Sites whose index is in memory, the most recently used first (at most `limit`). */
  inUse(limit: number): string[] {
    const out: string[] = [];
    for (const site of [...this.sites.keys()].reverse()) {
      if (out.length >= limit) break;
      if (this.built.has(site)) out.push(site);
    }
    return out;
  }

  /**
   * Opens sites' indexes from their snapshots before anyone searches them (a restarted
   * instance's working set, working_set.ts), one at a time in the order given, while their
   * snapshots fit in `bytes` and in what the budget has free. A site with no usable snapshot
   * (deleted, never saved) is skipped, never built. Each goes in as the least recently used,
   * so a site searched meanwhile is never evicted for it. The first goes at once, each other
   * once no search came for a moment: a search's KV reads would wait behind a load's on KV's
   * one thread. Resolves to how many were opened; `firstDone` is told once the first is open
   * (or was skipped, or there is none).
   */
  async reopen(sites: readonly string[], bytes: number, firstDone = () => {}): Promise<number> {
    let opened = 0, share = bytes;
    try {
      if (!this.snapshots) return 0;
      for (const [i, site] of sites.entries()) {
        if (i === 1) firstDone();
        if (i > 0) await quietSpell();
        if (this.sites.has(site)) continue;
        const head = await this.snapshots.head(site).catch(() => null);
        const room = Math.min(share, this.budget.bytes - this.budget.used());
        if (head?.codec !== CODEC_VERSION || head.size > room || this.sites.has(site)) continue;
        const p = this.opening(site, head);
        this.sites.putFirst(site, p);
        if (await p.then(() => true, () => false)) opened++;
        share -= head.size;
      }
      return opened;
    } finally {
      firstDone(); // the first was the only one, or there was none
    }
  }

  /**
   * Replays changes since the index's version; rebuilds if the log has a gap. `written`: the
   * bodies the caller just stored, read from there rather than back from KV.
   */
  async refresh(site: string, written?: WrittenBodies): Promise<void> {
    const idx = await this.load(site);
    const [db, version] = [idx.db, idx.version];
    idx.waiting = (idx.waiting ?? 0) + 1;
    const run = idx.busy.then(() => {
      idx.waiting!--;
      idx.checkedAt = this.clock();
      this.catchingUp.add(idx);
      return this.catchUp(site, idx, written);
    });
    idx.busy = run.catch(() => {});
    await run.finally(() => {
      this.catchingUp.delete(idx);
      if (idx.db !== db || idx.version !== version) this.prepare(site, idx, true);
    });
  }

  /**
   * Reads what searches use off their path (site_index.ts runPass) in slices, after an index
   * is opened or `changed` (caught up, or compacted by its save); again from the start when it
   * changed meanwhile, never once dropped. Only a changed index is rehearsed on: one opened as
   * a process starts would hold its first visitors behind steps V8 has compiled nothing for yet
   * (the first search after a restart took 81–89 ms in two black-box runs, against 29–65).
   */
  private prepare(site: string, idx: SiteIndex, changed = false) {
    if (this.preparing.has(idx)) return; // the running pass sees the change and starts again
    const sliced = () => (this.sliced.get(idx)?.resolve(), this.sliced.delete(idx));
    const held = () => this.built.get(site) === idx;
    const run = runPass(idx, held, sliced)
      .finally(() => {
        this.preparing.delete(idx);
        sliced();
        readAheadAfterPass(idx, held, changed && this.rehearse);
      });
    this.preparing.set(idx, run);
  }

  /** Whether a search would wait for the pass to settle what results hang on (query/stated.ts). */
  private unsettled(idx: SiteIndex): boolean {
    return this.preparing.has(idx) && !this.catchingUp.has(idx) && !statedSettled(idx.db);
  }

  /** Waits for the pass to settle what results hang on, unless a catch-up runs. */
  private async settle(idx: SiteIndex) {
    while (this.unsettled(idx)) {
      let next = this.sliced.get(idx);
      if (!next) this.sliced.set(idx, next = Promise.withResolvers());
      await next.promise;
    }
  }

  /** Waits until no pass after a change, nor a read ahead after one, runs (tests, the eval). */
  async idle(): Promise<void> {
    while (this.preparing.size) await Promise.all(this.preparing.values());
    await readsAheadDone();
  }

  /** Brings an index to the site's current version: replays the log, or rebuilds at a gap. */
  private async catchUp(site: string, idx: SiteIndex, written?: WrittenBodies): Promise<void> {
    const { version, stamp } = await this.pages.marked(site);
    if (version === idx.version) {
      idx.stamp = stamp;
      return;
    }
    const changed = await this.pages.changesSince(site, idx.version, version);
    // An empty index (a new site's first pages) is built in one pass, the shared title part and
    // language read first, not replayed and then built again once they show.
    const urls = changed !== null && docCount(idx.db) > 0 ? changed : null;
    if (urls !== null) {
      // Read a group at a time: an upsert of 500 long pages is never all in memory at once.
      for (let from = 0; from < urls.length; from += CATCH_UP_GROUP) {
        const group = urls.slice(from, from + CATCH_UP_GROUP);
        const pages = await Promise.all(group.map((u) => this.pages.get(site, u, written)));
        await inSlices(group.keys(), (i) => {
          const url = group[i], page = pages[i];
          removeDoc(idx.db, url);
          idx.names.remove(url);
          if (page) idx.names.add(url, page.title, page.lang);
          if (page) addDoc(idx.db, toDoc(page, idx.names));
        });
      }
      idx.version = version;
      idx.bytes = heldBytes(idx.db);
      // Mostly pages added since its load: the next save makes its columns anew.
      if (idx.db.docs.loose) idx.loose = true;
    }
    // Indexed again at a gap in the log, when empty, or when the shared title part or language
    // changed (the first pages of a crawl show it).
    const { names } = idx;
    const renamed = names.key() !== idx.builtWith &&
      (idx.builtPages < 10 || names.size >= 2 * idx.builtPages);
    const rebuilt = urls === null || renamed;
    if (rebuilt) {
      Object.assign(idx, await buildIndex(this.pages, site, this.clock), {
        checkedAt: idx.checkedAt,
        busy: idx.busy,
        packed: undefined, // the bytes of the index this replaces: not kept alive
      });
    }
    // A rebuild may have read a later version: the mark then moved, and the next check reads.
    idx.stamp = stamp;
    // Many pages indexed: compacted now if loose (left to the save while searches come, which
    // compacts in slices), and what it left and the catch-up read freed.
    if ((rebuilt ? idx.builtPages : urls.length) >= COMPACT_NOW_PAGES) {
      if (idx.loose && searchesPaused() && this.compactsNow()) compact(idx);
      await this.release(idx);
    }
    this.scheduleSave(site);
  }

  /**
   * A search's check of an index against the site's version: none when the site's change mark
   * is where it was when the version was last read (only another instance's writes are found
   * this way; a write made here refreshes the index itself).
   */
  private async recheck(site: string, idx: SiteIndex): Promise<void> {
    const renewed = await this.pages.renewed(site, idx.stamp, idx.checkedAt, this.clock);
    if (renewed !== null) idx.checkedAt = renewed;
    else await this.refresh(site);
  }

  /**
   * The site's index, caught up if its last check is older than `staleMs`: beside the search
   * while that check is recent (a site being searched), waited for after a quiet spell.
   */
  private async current(site: string): Promise<SiteIndex> {
    const ready = this.ready(site);
    if (ready) return ready;
    this.noteSearch(); // every read (results, answers, levers) holds back a thorough release
    const idx = await this.load(site);
    await this.settle(idx);
    const age = this.clock() - idx.checkedAt;
    if (age >= this.staleMs) {
      // A long catch-up (a large upsert by another instance) goes on in the background.
      const caughtUp = this.recheck(site, idx);
      caughtUp.catch(() => {});
      // A KV round trip on a busy site's path only delays answers no fresher by much.
      if (age < this.staleMs * QUIET_FACTOR) return idx;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const wait = new Promise((r) => timer = setTimeout(r, CATCH_UP_WAIT_MS));
      await Promise.race([caughtUp, wait]).finally(() => clearTimeout(timer));
    }
    return idx;
  }

  /**
   * The site's index when `current` would answer with it at once, without a read or a wait: in
   * memory, settled, and checked within `staleMs` (the most recently used now); else undefined.
   */
  private ready(site: string): SiteIndex | undefined {
    const idx = this.built.get(site), p = this.sites.get(site);
    if (!idx || !p || this.clock() - idx.checkedAt >= this.staleMs || this.unsettled(idx)) return;
    this.noteSearch();
    this.sites.use(site, p);
    return idx;
  }

  /**
   * The site's index caught up once: its version, and searches
   * of the index that version names, so a cached answer is filed under the version it shows.
   * An index not in memory would be loaded and caught up to the site's version: its version is
   * read from KV, so a cached answer at that version needs no load. Answered at once (not as a
   * promise) when the index is ready: a search answered from the result cache then waits for
   * nothing.
   */
  reader(site: string): IndexReader | Promise<IndexReader> {
    const idx = this.ready(site);
    return idx ? readerOf(idx) : this.readerLater(site);
  }

  private async readerLater(site: string): Promise<IndexReader> {
    if (!this.sites.has(site)) {
      const { version } = await this.pages.version(site);
      return {
        version,
        search: async (options) => search((await this.current(site)).db, options),
      };
    }
    return readerOf(await this.current(site));
  }

  /** Ranked, highlighted results for a query. */
  search = async (site: string, options: SearchOptions): Promise<SearchResult> =>
    search((await this.current(site)).db, options);

  /** The equivalences a site's pages state (query/stated.ts), as its searches use them. */
  stated = async (site: string) => statedEquivalences((await this.current(site)).db);

  /** The best-matching whole documents (id = url or document id), for summary retrieval. */
  async top(
    site: string,
    { query, limit, maxChars = Infinity, expand }: {
      query: string;
      limit: number;
      /** Text of each document kept, at most. */
      maxChars?: number;
      expand?: Expand;
    },
  ): Promise<Doc[]> {
    const { db } = await this.current(site);
    return rank(db, query, { limit, expand }).ids.map((id) => docAt(db, id, maxChars));
  }

  /** Forgets an index (tests, memory pressure); the next search loads or rebuilds it. */
  drop(site: string) {
    this.sites.delete(site);
    this.built.delete(site);
  }

  /** Forgets a deleted site: its index, its pending save, and waits out a save under way. */
  async forget(site: string): Promise<void> {
    clearTimeout(this.unsaved.get(site)?.timer);
    this.unsaved.delete(site);
    this.drop(site);
    await this.snapshots?.settle(site);
  }

  /** Stops pending saves without making them (a test's KV is about to close). */
  discard() {
    for (const { timer } of this.unsaved.values()) clearTimeout(timer);
    this.unsaved.clear();
  }
}
