/**
 * The KV side of search quotas: an instance takes a block of a site's allowance by moving the
 * minute and month counters by the block in one atomic commit (guarded by the versionstamps of
 * the site and both counters), and gives back what it did not use the same way. The counters
 * hold what was reserved, so what is admitted never passes them, and they never pass the limit.
 *
 * While it holds units, an instance keeps a lease in KV (`["qlease", site, instance]`, with the
 * wall-clock time by which it will have used or given them back). An instance that finds the
 * counters full waits for other instances' leases before it refuses, so "full" means used.
 */
import { LOST_RACE, retryKv } from "../storage/kv_retry.ts";
import type { Site } from "../sites/store.ts";
import { markKey, type Stamp } from "../storage/change_marks.ts";

export const minuteKey = (site: string, minute: number) => ["qmin", site, minute];
export const monthKey = (site: string, month: string) => ["qmon", site, month];
export const leaseKey = (site: string, instance: string) => ["qlease", site, instance];

/** The minute and month a reservation counts in. */
export interface Window {
  minute: number;
  month: string;
}

/** What an exchange read: the site and its counters (after any units given back). */
export interface Snapshot {
  site: Site | null;
  minute: number;
  month: number;
}

export interface Exchange {
  site: string;
  instance: string;
  now: Window;
  /** Unused units handed back, and the window they were taken in. */
  back?: { units: number; from: Window };
  /**
   * Units to take, and units held once the requests waiting are served (the lease stays open
   * while any are), decided on the snapshot; called again after a lost race.
   */
  take: (s: Snapshot) => [take: number, held: number];
  /** Whether this instance's lease is in KV now. */
  leaseOpen: boolean;
  /**
   * Wall-clock ms by which the units held will be used or given back, decided on the counters
   * after the take (`after`) and the units `held`: an ample block is kept longer.
   */
  leaseUntil: (after: Snapshot, held: number) => number;
  /** The open lease already runs past `leaseUntil`: it need not be written again. */
  leaseLasts?: boolean;
}

/** The snapshot after the commit (counters include the units taken), and what was taken. */
export interface Outcome extends Snapshot {
  taken: number;
  leaseOpen: boolean;
  /** Whether this exchange wrote the lease. */
  leaseWritten: boolean;
  /** The time the lease written runs to (`Exchange.leaseUntil`); 0 when none was written. */
  leaseUntil: number;
  /** The site's change mark, read with the site. */
  stamp: Stamp;
}

/** KV round trips, for the benchmark's figures. */
export interface QuotaStats {
  /** Reads (one per exchange attempt or lease listing). */
  batches: number;
  /** Reads of a site renewed by its change mark, without reading it (lib/storage/change_marks.ts). */
  renewals: number;
  commits: number;
  conflicts: number;
  admitted: number;
  free: number;
  /** Admissions that waited for a refill (the others were decided at once, in memory). */
  waited: number;
}

const MINUTE_TTL = 120_000;
const MONTH_TTL = 40 * 86_400_000;

/** Gives back and takes units in one commit; retries a lost race, 503 when contention persists. */
export function exchange(kv: Deno.Kv, x: Exchange, stats: QuotaStats): Promise<Outcome> {
  // Two processes on one local KV file: SQLite says "locked" where Deploy's KV would conflict.
  return retryKv(
    async () => await tryExchange(kv, x, stats) ?? LOST_RACE,
    "Too much contention on the quota. Retry.",
    () => stats.conflicts++,
  );
}

async function tryExchange(kv: Deno.Kv, x: Exchange, stats: QuotaStats) {
  const back = x.back && x.back.units > 0 ? x.back : undefined;
  const keys: Deno.KvKey[] = [
    ["site", x.site],
    minuteKey(x.site, x.now.minute),
    monthKey(x.site, x.now.month),
  ];
  // Units of a month that has ended go back to that month; of a minute that has ended, nowhere.
  const oldMonth = back && back.from.month !== x.now.month;
  if (oldMonth) keys.push(monthKey(x.site, back.from.month));
  stats.batches++;
  // The site's change mark is read with it, and never checked: another site's write moves it.
  const read = await kv.getMany<unknown[]>([...keys, markKey(x.site)]);
  const entries = read.slice(0, keys.length);
  const [siteE, minE, monE, oldE] = entries;
  const site = siteE.value as Site | null;
  let minute = (minE.value as number | null) ?? 0;
  let month = (monE.value as number | null) ?? 0;
  if (back && back.from.minute === x.now.minute) minute = Math.max(0, minute - back.units);
  if (back && !oldMonth) month = Math.max(0, month - back.units);
  const [taken, held] = x.take({ site, minute, month });
  const leaseOpen = held > 0;
  const out = {
    site,
    minute: minute + taken,
    month: month + taken,
    taken,
    leaseOpen,
    leaseWritten: false,
    leaseUntil: 0,
    stamp: read[keys.length].versionstamp,
  };
  // A deleted site's counters went with it: units given back (an instance's timer may fire
  // after the deletion) are not written again, or its counters would outlive it.
  const counters = site !== null && (taken > 0 || back);
  if (!counters && !leaseOpen && !x.leaseOpen) return out; // nothing to write
  // Units kept through a re-read of the site under a lease that still runs: a read, no write.
  if (!counters && leaseOpen && x.leaseOpen && x.leaseLasts) return out;
  out.leaseWritten = leaseOpen;
  if (leaseOpen) out.leaseUntil = x.leaseUntil(out, held);
  const op = kv.atomic();
  if (counters) {
    op.check(...entries)
      .set(keys[1], out.minute, { expireIn: MINUTE_TTL })
      .set(keys[2], out.month, { expireIn: MONTH_TTL });
    if (oldMonth && oldE.value !== null) {
      op.set(keys[3], Math.max(0, (oldE.value as number) - back.units), { expireIn: MONTH_TTL });
    }
  }
  const lease = leaseKey(x.site, x.instance);
  if (leaseOpen) op.set(lease, { until: out.leaseUntil }, { expireIn: MINUTE_TTL });
  else op.delete(lease);
  stats.commits++;
  return (await op.commit()).ok ? out : null;
}

/** The latest wall-clock time by which other instances will have settled their units (0: none). */
export async function othersHolding(
  kv: Deno.Kv,
  site: string,
  instance: string,
  stats: QuotaStats,
): Promise<number> {
  stats.batches++;
  const now = Date.now();
  let until = 0;
  for await (const e of kv.list<{ until: number }>({ prefix: ["qlease", site] })) {
    if (e.key[2] !== instance && e.value.until > now) until = Math.max(until, e.value.until);
  }
  return until;
}

/** The counters now, for the usage endpoint. */
export async function readCounters(kv: Deno.Kv, site: string, now: Window) {
  const [m, M] = await kv.getMany<[number, number]>([
    minuteKey(site, now.minute),
    monthKey(site, now.month),
  ]);
  return { minute: m.value ?? 0, month: M.value ?? 0 };
}
