/**
 * The sites whose indexes an instance holds, written to KV now and then and when it stops, so
 * that a restarted instance opens them again before their visitors come back. Without it, a
 * deploy or a restart makes the first search of every busy site read and decode its snapshot
 * (a 2,000-page site: ~140 ms over HTTP, where a held index answers in ~1 ms). One list per
 * kind of index for all instances, the last writer's: a hint of what is busy, never a source of
 * truth; a site in it that has no snapshot (deleted, never saved) is skipped.
 */
import type { SearchIndexes } from "./indexes.ts";

/** Sites a list holds at most (~25 bytes each: far under KV's 64 KiB value). */
export const WORKING_SET_SITES = 200;
/** What a restore may open at most, as a share of the index memory budget. */
export const RESTORE_SHARE = 0.25;
/** How often the list is written while the instance runs (when it changed). */
const SAVE_EVERY_MS = 60_000;
/** A site id as a list may hold it (ids are far shorter; anything else is not ours). */
const MAX_ID_LENGTH = 100;

const keyOf = (kind: string) => ["config", "workingset", kind];

/** One instance's working set of one kind of index ("page" or "doc"), kept in KV. */
export class WorkingSet {
  private timer?: ReturnType<typeof setInterval>;
  /** The list as last written or read, so an unchanged one is not written again. */
  private last = "";

  constructor(private kv: Deno.Kv, private indexes: SearchIndexes, private kind: string) {}

  /** The list in KV: site ids, the most recently used first (empty when none or malformed). */
  async read(): Promise<string[]> {
    const value = (await this.kv.get<{ sites?: unknown }>(keyOf(this.kind))).value;
    const sites = Array.isArray(value?.sites) ? value.sites : [];
    return sites
      .filter((s): s is string =>
        typeof s === "string" && s.length > 0 && s.length <= MAX_ID_LENGTH
      )
      .slice(0, WORKING_SET_SITES);
  }

  /** Writes the sites held now, unless none is held or the list has not changed. */
  async save(): Promise<void> {
    const sites = this.indexes.inUse(WORKING_SET_SITES);
    const text = sites.join("\n");
    if (!sites.length || text === this.last) return;
    await this.kv.set(keyOf(this.kind), { sites });
    this.last = text;
  }

  /**
   * Opens the listed sites' indexes from their snapshots, the most recently used first, up to
   * RESTORE_SHARE of the memory budget; resolves to how many were opened (0 on any KV fault: the
   * first searches then load them as they would have). `firstDone` is told once the most
   * recently used is open, or when there is none to open.
   */
  async restore(firstDone = () => {}): Promise<number> {
    try {
      const sites = await this.read();
      this.last = sites.join("\n");
      return await this.indexes.reopen(sites, this.indexes.budgetBytes * RESTORE_SHARE, firstDone);
    } catch {
      return 0;
    } finally {
      firstDone();
    }
  }

  /** Writes the list every minute from now on (the timer never keeps the process alive). */
  start() {
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.save().catch(() => {}), SAVE_EVERY_MS);
    Deno.unrefTimer(this.timer);
  }

  /** Stops the timer and writes the list a last time (shutdown). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.save().catch(() => {});
  }
}
