/**
 * Whether anything a search trusts from memory has been written since it was read: one read of
 * a few keys for every site an instance holds, instead of a read per site and cache.
 *
 * What a search answers from memory (a site's record, its pages' version, its levers' heads) is
 * checked against KV at least every second, so another instance's writes show within it. With
 * 200 sites searched at once, those checks were ~1,000 KV reads a second: a quarter of a core on
 * KV's own thread and ~5 % of the main thread, and the 200-site round's mean search took 1.15 ms
 * against 0.82 with the checks left out (BENCHMARKS.md).
 *
 * So every write of those keys also sets its site's mark, `["changed", shard]`, in the same
 * atomic commit: the mark's versionstamp moves with each of them. A cache reads the mark beside
 * what it keeps, in one `getMany` (one snapshot). Later, a read of all the marks that finds the
 * same versionstamp proves that nothing it keeps was written since, and renews it without
 * reading it again. A site's writes move only its shard's mark, so a site being crawled sends
 * the sites that share its shard back to their own reads, not every site.
 */

/** Marks in all: one `getMany` reads them (KV takes at most ten keys in one). */
const SHARDS = 10;
/** How long one read of the marks answers every cache that asks (ms). */
const SHARE_MS = 100;
/**
 * A renewing read begins at least this long after the check it renews: a caller's clock counts
 * whole milliseconds, and a renewal must move its time forward.
 */
const AFTER_MS = 2;

const shardKey = (shard: number): Deno.KvKey => ["changed", shard];

/** The mark of a site's shard. */
export const markKey = (site: string): Deno.KvKey => shardKey(shardOf(site));

/** FNV-1a of the site's id, folded to a shard. */
function shardOf(site: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < site.length; i++) h = Math.imul(h ^ site.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SHARDS;
}

/**
 * Adds the site's mark to a commit that writes what a search trusts of the site: its record,
 * its pages' version, its levers' heads. A write of those without it would be trusted unseen.
 */
export const withMark = (op: Deno.AtomicOperation, site: string): Deno.AtomicOperation =>
  op.set(markKey(site), true);

/** A versionstamp read beside a cached value: null when the mark was never written. */
export type Stamp = string | null;

/** Reads `keys` and the site's mark in one snapshot: their entries, then the mark's stamp. */
export async function readMarked(
  kv: Deno.Kv,
  site: string,
  keys: Deno.KvKey[],
): Promise<[Deno.KvEntryMaybe<unknown>[], Stamp]> {
  const got = await kv.getMany([...keys, markKey(site)]);
  return [got.slice(0, keys.length), got[keys.length].versionstamp];
}

/** The marks as one instance last read them, shared by its caches. */
export class ChangeMarks {
  #stamps: Stamp[] = [];
  /** When the last read that answered began (performance.now()). */
  #readAt = -Infinity;
  #reading: { from: number; done: Promise<void> } | null = null;

  constructor(private kv: Deno.Kv) {}

  /**
   * Whole milliseconds since a read of the marks began that found the site's mark still at `stamp`,
   * a read begun after the cached value was checked `checkedAgoMs` ago; null when it moved or
   * could not be read (the caller then reads its keys as before).
   */
  async unchanged(site: string, stamp: Stamp, checkedAgoMs: number): Promise<number | null> {
    const after = performance.now() - checkedAgoMs + AFTER_MS;
    if (!(this.#readAt >= after && performance.now() - this.#readAt <= SHARE_MS)) {
      await this.#readSince(after).catch(() => {});
      if (this.#readAt < after) return null;
    }
    // In whole milliseconds, rounded up: callers' clocks count them, and their timers fire then.
    return this.#stamps[shardOf(site)] === stamp
      ? Math.ceil(performance.now() - this.#readAt)
      : null;
  }

  /**
   * The time a value checked at `checkedAt` (on `clock`) is renewed to when its site's mark is
   * still at `stamp` (unchanged); null when it moved, was not read with it (`stamp` undefined),
   * or could not be read. Never earlier than `checkedAt`.
   */
  async renewed(
    site: string,
    stamp: Stamp | undefined,
    checkedAt: number,
    clock: () => number,
  ): Promise<number | null> {
    if (stamp === undefined) return null;
    const age = await this.unchanged(site, stamp, clock() - checkedAt);
    return age === null ? null : Math.max(checkedAt, clock() - age);
  }

  /** A read of the marks begun at or after `after`: the one running, or one after it. */
  async #readSince(after: number): Promise<void> {
    while (this.#reading && this.#reading.from < after) await this.#reading.done.catch(() => {});
    if (this.#reading) return this.#reading.done;
    const from = performance.now();
    const done = this.kv.getMany(Array.from({ length: SHARDS }, (_, i) => shardKey(i)))
      .then((got) => {
        this.#stamps = got.map((e) => e.versionstamp);
        this.#readAt = from;
      })
      .finally(() => this.#reading = null);
    this.#reading = { from, done };
    return done;
  }
}

const shared = new WeakMap<Deno.Kv, ChangeMarks>();

/** The marks of a KV, one reader per KV in a process. */
export function changeMarks(kv: Deno.Kv): ChangeMarks {
  let m = shared.get(kv);
  if (!m) shared.set(kv, m = new ChangeMarks(kv));
  return m;
}
