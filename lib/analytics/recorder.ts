/**
 * Search analytics, counted in memory and written to KV in batches: a search costs no KV round
 * trip of its own. Every `flushMs` (and on `flush()`), the counts gathered since go out as
 * `sum` mutations, which add up correctly whatever other instances write meanwhile.
 */
import type { Clock } from "../clock.ts";
import {
  clickedPage,
  clickKey,
  clickPositionKey,
  dayOf,
  emptyQueryKey,
  type Metric,
  normalizeQuery,
  queryKey,
  totalKey,
} from "./keys.ts";

/**
 * Mutations per atomic commit (Deno KV allows 1,000). Small commits, one after another, let
 * a search's own KV reads in between: one commit of 500 holds them up for 5–20 ms.
 */
const PER_COMMIT = 100;

/** Counts searches, answers and clicks per site and day; writes them out in batches. */
export class Analytics {
  /** Off: nothing is counted (the benchmark's baseline). */
  enabled = true;
  private pending = new Map<string, { key: string[]; n: number }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private kv: Deno.Kv,
    private clock: Clock,
    private flushMs = 5_000,
    private onError: (err: unknown) => void = () => {},
  ) {}

  /** One search (first page of results) for `q` that found `found` results. */
  search(siteId: string, q: string, found: number) {
    if (!this.enabled) return;
    const query = normalizeQuery(q);
    const day = dayOf(this.clock());
    this.add(totalKey(siteId, day, "searches"), 1);
    if (!query) return;
    this.add(queryKey(siteId, day, query), 1);
    if (found === 0) {
      this.add(totalKey(siteId, day, "noResults"), 1);
      this.add(emptyQueryKey(siteId, day, query), 1);
    }
  }

  /** One AI answer delivered. */
  answer(siteId: string) {
    if (this.enabled) this.add(totalKey(siteId, dayOf(this.clock()), "answers"), 1);
  }

  /** One click on the result at `position` (from 1), for `query` when the beacon named it. */
  click(siteId: string, position: number, query?: string, url?: string) {
    if (!this.enabled) return;
    const day = dayOf(this.clock());
    this.add(totalKey(siteId, day, "clicks"), 1);
    this.add(totalKey(siteId, day, "clickPositions" satisfies Metric), position);
    const q = query ? normalizeQuery(query) : "", page = url ? clickedPage(url) : null;
    if (!q || !page) return;
    this.add(clickKey(siteId, day, q, page), 1);
    this.add(clickPositionKey(siteId, day, q, page), position);
  }

  private add(key: string[], n: number) {
    const id = key.join("\u0000"); // every part is a string: joined, they name the key
    const cur = this.pending.get(id);
    if (cur) cur.n += n;
    else this.pending.set(id, { key, n });
    if (this.timer === undefined) {
      const timer = this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush().catch(this.onError);
      }, this.flushMs);
      Deno.unrefTimer(timer); // a pending batch never keeps the process alive
    }
  }

  /** Writes every count gathered so far; resolves when they are in KV. */
  flush(): Promise<void> {
    const batch = [...this.pending.values()];
    this.pending.clear();
    this.flushing = this.flushing.then(() => this.write(batch), () => this.write(batch));
    return this.flushing;
  }

  private async write(batch: { key: string[]; n: number }[]) {
    for (let i = 0; i < batch.length; i += PER_COMMIT) {
      const op = this.kv.atomic();
      for (const { key, n } of batch.slice(i, i + PER_COMMIT)) op.sum(key, BigInt(n));
      await op.commit();
    }
  }

  /** Stops the timer and writes what is pending (shutdown, tests). */
  async close() {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Stops the timer and forgets what is pending (a test's KV is about to close). */
  discard() {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}
