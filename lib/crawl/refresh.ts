/**
 * Keeps a site's search index close behind its crawl: a refresh after `every` changes
 * or a second after the last one, never two at once, and a last one when the crawl ends.
 */
import type { SearchIndexes } from "../search/mod.ts";

export class IndexRefresher {
  private pending = 0;
  private lastRefresh = 0;
  private refreshing: Promise<void> | null = null;

  constructor(
    private indexes: SearchIndexes,
    private siteId: string,
    private every: number,
  ) {}

  /** Counts a change, and refreshes when enough have piled up or a second has passed. */
  async changed() {
    this.pending++;
    if (this.pending >= this.every || Date.now() - this.lastRefresh >= 1000) {
      await this.refresh();
    }
  }

  /** Counts a change for the next refresh to pick up. */
  mark() {
    this.pending++;
  }

  /** Refreshes when changes wait and no refresh is running (the crawl's once-a-second tick). */
  refreshIfPending() {
    if (this.pending > 0 && !this.refreshing) this.refresh().catch(() => {});
  }

  /** Waits for a running refresh, then refreshes once more so the index holds every change. */
  async finish() {
    await this.refreshing;
    await this.indexes.refresh(this.siteId);
  }

  /** Waits for a running refresh, whatever its outcome. */
  async close() {
    await this.refreshing?.catch(() => {});
  }

  /** One refresh at a time; changes made meanwhile are caught by the next or the last one. */
  private refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    this.pending = 0;
    this.lastRefresh = Date.now();
    this.refreshing = this.indexes.refresh(this.siteId).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }
}
