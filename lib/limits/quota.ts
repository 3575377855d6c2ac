/**
 * Search quotas. Each instance reserves small blocks of a site's allowance in KV
 * (reservations.ts: the counters move by the block in one guarded commit) and admits from the
 * block in memory, synchronously, while the block lasts and the site read with it is at most
 * `trustMs` old. When a block runs out, one refill round trip serves every request waiting on
 * that site; busy sites refill ahead of need. Blocks start at 2 units, double while used up
 * fast, halve when units go back unused, and never take more than a quarter of what is left
 * beyond the requests waiting, so a Free site's 30 a minute spreads over several instances.
 * Unused units go back after `idleMs` without a search, when the site's read gets old, when the
 * window ends (to the month counter) and on close. Nothing is admitted past the counters, and
 * the counters never pass the limit, on any number of instances.
 */
import { type Clock, monthWindow, REREAD_AT, steadyClock, WARM_MS } from "../clock.ts";
import { DomainError, invalidSearchKey } from "../errors.ts";
import {
  absorb,
  type Admitted,
  ampleAfter,
  type Block,
  isAmple,
  MAX_BLOCK,
  newBlock,
  refillSize,
  roomIn,
  sameWindow,
  stateOf,
  unitsNeeded,
  type Verify,
  type Waiter,
  windows,
} from "./block.ts";
import {
  exchange,
  leaseKey,
  othersHolding,
  type QuotaStats,
  readCounters,
  type Window,
} from "./reservations.ts";
import { LiveSessions, ride, type SessionAsk } from "./sessions.ts";
import { searchRefused } from "./too_many.ts";
import { type ChangeMarks, changeMarks } from "../storage/change_marks.ts";

/** Timings of the reservations (docs/architecture.md, "Quotas"). */
export interface QuotaTiming {
  /** How long a site read at a refill is trusted (key revocations, origins, plans elsewhere). */
  trustMs: number;
  /** Unused units go back after this long without an admission. */
  idleMs: number;
  /** A used-up block's lease is closed after this long without a refill. */
  drainMs: number;
  /** How often a request waiting for other instances' unused units looks again. */
  pollMs: number;
  /** Ample units (AMPLE_SHARE) go back after this long without an admission. */
  ampleIdleMs: number;
  /** An ample block's site is read again ahead of need for this long after an admission. */
  warmMs: number;
}

const QUOTA_TIMING: QuotaTiming = {
  trustMs: 1_000,
  idleMs: 200,
  drainMs: 25,
  pollMs: 25,
  ampleIdleMs: 10_000,
  warmMs: WARM_MS,
};
/** A lease runs this much past the moment its units are due to be used or given back. */
const LEASE_MARGIN_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A block whose units are running out: refilled ahead of need. */
const runsLow = (b: Block) => b.target >= 4 && b.left <= b.target / 4;

/** Admits searches within each site's per-minute and monthly limits. */
export class SearchQuota {
  /** KV round trips made, for the benchmark's figures. */
  stats: QuotaStats = {
    batches: 0,
    renewals: 0,
    commits: 0,
    conflicts: 0,
    admitted: 0,
    free: 0,
    waited: 0,
  };
  private blocks = new Map<string, Block>();
  private sessions = new LiveSessions();
  private instance = crypto.randomUUID();
  private closed = false;
  private timing: QuotaTiming;

  private marks: ChangeMarks;

  constructor(private kv: Deno.Kv, private clock: Clock, timing: Partial<QuotaTiming> = {}) {
    this.timing = { ...QUOTA_TIMING, ...timing };
    this.marks = changeMarks(kv);
  }

  /**
   * Admits at once from this instance's block when it can, else after one refill shared with
   * every request waiting on the site. Throws (or rejects with) the DomainError that refuses it.
   */
  admit(siteId: string, verify: Verify, session?: SessionAsk): Admitted | Promise<Admitted> {
    const b = this.block(siteId);
    if (b.waiters.length === 0) {
      const out = this.decide(b, verify, session);
      if (out instanceof DomainError) throw out;
      if (out) return out;
    }
    return new Promise((resolve, reject) => {
      b.waiters.push({ verify, session, since: performance.now(), resolve, reject });
      void this.pump(b);
    });
  }

  /** The site changed here (key, origins, plan): the next search reads it again. */
  forget(siteId: string) {
    const b = this.blocks.get(siteId);
    if (b) [b.readAt, b.full, b.epoch] = [-Infinity, null, b.epoch + 1];
  }

  /**
   * Searches counted this minute and month. Units this instance holds go back first, and
   * other instances' for up to a few idle periods, so an idle site's figures are exact.
   */
  async usage(siteId: string) {
    const b = this.blocks.get(siteId);
    if (b) await this.release(b);
    const deadline = performance.now() + 3 * this.timing.idleMs;
    while (performance.now() < deadline) {
      if (!(await othersHolding(this.kv, siteId, this.instance, this.stats))) break;
      await sleep(this.timing.pollMs);
    }
    return await readCounters(this.kv, siteId, windows(this.clock()));
  }

  /** Gives back every unused unit (shutdown); waiting requests are still decided first. */
  async close() {
    this.closed = true;
    await Promise.all([...this.blocks.values()].map((b) => this.release(b)));
  }

  /** Forgets everything without KV (the KV is closing under a test). */
  discard() {
    this.closed = true;
    for (const b of this.blocks.values()) clearTimeout(b.timer);
    this.blocks.clear();
  }

  private block(siteId: string): Block {
    let b = this.blocks.get(siteId);
    if (!b) {
      if (this.blocks.size >= 10_000) this.sweep();
      this.blocks.set(siteId, b = newBlock(siteId));
    }
    return b;
  }

  /** Drops the blocks that hold nothing and do nothing. */
  private sweep() {
    for (const [id, b] of this.blocks) {
      if (!b.running && !b.left && !b.leaseOpen && !b.waiters.length) this.blocks.delete(id);
    }
  }

  private fresh(b: Block, win: Window, perf: number) {
    return perf - b.readAt < this.timing.trustMs && sameWindow(b.win, win);
  }

  /** Admitted, refused, or null when the request must wait for a refill. Synchronous. */
  private decide(b: Block, verify: Verify, session?: SessionAsk): Admitted | DomainError | null {
    const now = this.clock();
    const perf = steadyClock();
    if (!this.fresh(b, windows(now), perf)) return null;
    const refused = verify(b.site);
    if (refused) return refused;
    if (!b.site || !b.limits) return invalidSearchKey();
    const key = session && LiveSessions.key(b.id, session.id);
    const rode = session && ride(this.sessions.get(key!), session, now);
    if (rode) {
      this.sessions.set(key!, rode);
      this.stats.admitted++, this.stats.free++;
      b.lastUse = perf;
      this.afterUse(b, perf);
      return { site: b.site, state: stateOf(b, now), counted: false };
    }
    if (b.left > 0) {
      b.left--;
      b.lastUse = perf;
      this.stats.admitted++;
      if (session) this.sessions.set(key!, { q: session.q, at: now, free: 0 });
      if (b.left === 0 && perf - b.takenAt < this.timing.trustMs / 4) {
        b.target = Math.min(b.target * 2, MAX_BLOCK); // used up fast: take more next time
      }
      this.afterUse(b, perf);
      return { site: b.site, state: stateOf(b, now), counted: true };
    }
    return b.full === "final" ? this.refusal(b, now) : null;
  }

  /**
   * Refills ahead of need on a busy site, and keeps the site's read fresh while it is used: read
   * again once REREAD_AT of `trustMs` has gone, the rest left for the read to land before a
   * search would wait on it (a read already under way, such as the warm timer's, renews it: one
   * read, not two).
   */
  private afterUse(b: Block, perf: number) {
    const low = runsLow(b);
    const old = !b.running && perf - b.readAt > this.timing.trustMs * REREAD_AT;
    if (low || old) {
      b.topUp = true;
      void this.pump(b);
    } else this.arm(b);
  }

  private refusal(b: Block, now: number): DomainError {
    return searchRefused(stateOf(b, now), monthWindow(now));
  }

  /** Runs the site's KV work one step at a time: refills for waiters, give-backs, top-ups. */
  private pump(b: Block): Promise<void> {
    clearTimeout(b.timer);
    b.timer = undefined;
    return b.running ??= this.run(b).finally(() => {
      b.running = null;
      // Work that came after the loop's last look (a request enqueued meanwhile) starts it again.
      if (b.waiters.length || b.settle || b.topUp) void this.pump(b);
      else this.arm(b);
    });
  }

  private async run(b: Block) {
    while (true) {
      try {
        if (b.waiters.length) await this.serve(b);
        else if (b.settle) await this.giveBack(b);
        else if (b.topUp) {
          b.topUp = false;
          await this.refill(b);
        } else return;
      } catch (err) {
        // A failing store: waiting requests get its error (503); held units count as used.
        for (const w of b.waiters.splice(0)) w.reject(err);
        [b.settle, b.topUp, b.readAt] = [false, false, -Infinity];
      }
    }
  }

  /** One refill, then every waiting request decided in order; waits if others may give back. */
  private async serve(b: Block) {
    await this.refill(b);
    const keep: Waiter[] = [];
    for (const w of b.waiters) {
      const out = this.decide(b, w.verify, w.session);
      if (out === null) keep.push(w);
      else if (out instanceof DomainError) w.reject(out);
      else this.stats.waited++, w.resolve(out);
    }
    b.waiters = keep;
    if (!keep.length || b.full !== "others") return;
    // Out of room while other instances hold units they may not use: wait, but not forever.
    const perf = performance.now();
    const { trustMs, idleMs, pollMs } = this.timing;
    b.waiters = keep.filter((w) => {
      if (perf - w.since < trustMs + idleMs + 500) return true;
      w.reject(this.refusal(b, this.clock()));
      return false;
    });
    if (b.waiters.length) await sleep(pollMs);
  }

  /** Reads the site and counters, gives back units of an expired block, takes what is needed. */
  private async refill(b: Block) {
    if (await this.unchanged(b)) return;
    const now = this.clock();
    const win = windows(now);
    const perf = performance.now();
    const valid = this.fresh(b, win, perf);
    // An expired block admits nothing; its units go back in this commit, unless they are
    // ample and of this minute: then they are kept and only the site is read again.
    const keep = valid || (sameWindow(b.win, win) && isAmple(b));
    const back = !keep && b.left > 0 ? { units: b.left, from: b.win } : undefined;
    if (back) b.left = 0;
    const hold = b.left; // a valid block's units keep being used meanwhile
    const epoch = b.epoch;
    const wall = Date.now();
    // Kept past the site's next read: an ample block's lease, from its first take, runs long
    // enough to keep it while idle, so that read writes nothing.
    const lasts = wall + this.timing.trustMs + LEASE_MARGIN_MS;
    let out;
    try {
      out = await exchange(this.kv, {
        site: b.id,
        instance: this.instance,
        now: win,
        back,
        leaseOpen: b.leaseOpen,
        leaseUntil: (after, held) =>
          lasts + (ampleAfter(after, held) ? this.timing.ampleIdleMs : 0),
        leaseLasts: b.leaseOpen && b.leaseUntil >= lasts,
        take: (s) =>
          refillSize(b, s, s.site ? unitsNeeded(b, s.site, now, this.sessions) : 0, hold),
      }, this.stats);
    } catch (err) {
      if (back) b.left += back.units;
      throw err;
    }
    absorb(b, out, win, epoch === b.epoch ? perf : -Infinity);
    if (out.leaseWritten) b.leaseUntil = out.leaseUntil;
    b.left += out.taken;
    if (out.taken > 0) b.takenAt = b.lastUse = perf;
    const limits = b.limits;
    const room = limits ? roomIn(limits, out) : 1;
    b.full = room > 0
      ? null
      : await othersHolding(this.kv, b.id, this.instance, this.stats)
      ? "others"
      : await this.givenBack(b, win)
      ? null
      : "final";
  }

  /**
   * Renews the site's read without reading it when its change mark has not moved since
   * (lib/storage/change_marks.ts): only for an ample block that is still valid, whose units need
   * no top-up and whose lease already runs past the renewed read (the exchange would write
   * nothing). That is the read a site searched all the time makes every second.
   */
  private async unchanged(b: Block): Promise<boolean> {
    const perf = performance.now();
    const lasts = Date.now() + this.timing.trustMs + LEASE_MARGIN_MS;
    const readOnly = !b.waiters.length && isAmple(b) && !runsLow(b) && b.leaseOpen &&
      b.leaseUntil >= lasts && this.fresh(b, windows(this.clock()), perf);
    if (!readOnly) return false;
    const epoch = b.epoch;
    const renewed = await this.marks.renewed(b.id, b.stamp, b.readAt, () => performance.now());
    if (renewed === null || epoch !== b.epoch || b.readAt === -Infinity) return false;
    b.readAt = renewed;
    this.stats.renewals++;
    return true;
  }

  /**
   * Whether the counters have room again: units another instance gave back between the
   * exchange and the lease listing (two reads) would otherwise be refused as used until the
   * site is read again. Waiting requests then take them at the next refill.
   */
  private async givenBack(b: Block, win: Window): Promise<boolean> {
    this.stats.batches++;
    const counts = await readCounters(this.kv, b.id, win);
    if (!b.limits || roomIn(b.limits, counts) <= 0) return false;
    b.readAt = -Infinity; // the next request refills rather than deciding on this read
    return true;
  }

  /** Gives every unused unit back (and closes the lease). */
  private async giveBack(b: Block) {
    b.settle = false;
    const units = b.left;
    b.left = 0;
    if (units === 0) {
      if (!b.leaseOpen) return;
      this.stats.commits++;
      b.leaseOpen = false;
      await this.kv.delete(leaseKey(b.id, this.instance));
      return;
    }
    b.target = Math.max(1, Math.floor(b.target / 2)); // more than was used: take less next time
    const now = this.clock();
    const win = windows(now);
    const perf = performance.now();
    const epoch = b.epoch;
    b.leaseOpen = false; // if the commit fails, the lease lapses by its time
    const out = await exchange(this.kv, {
      site: b.id,
      instance: this.instance,
      now: win,
      back: { units, from: b.win },
      leaseOpen: true,
      leaseUntil: () => 0,
      take: () => [0, 0],
    }, this.stats);
    absorb(b, out, win, epoch === b.epoch ? perf : -Infinity);
    b.full = null;
  }

  /** Runs the pump until this instance holds nothing of the site. */
  private async release(b: Block) {
    for (let i = 0; i < 50 && (b.left > 0 || b.leaseOpen || b.running); i++) {
      b.settle = true;
      await this.pump(b);
    }
  }

  /** Schedules the give-back of an idle, old or used-up block. */
  private arm(b: Block) {
    if (this.closed || b.running || b.timer !== undefined || (!b.left && !b.leaseOpen)) return;
    const { idleMs, trustMs, drainMs } = this.timing;
    // The lease's end in performance.now() time (it is written in wall-clock time).
    const leaseEnd = () => b.leaseUntil - Date.now() + performance.now();
    const due = () =>
      b.left
        ? isAmple(b)
          // Kept while idle, but never past the lease that tells other instances of them.
          ? Math.min(b.lastUse + this.timing.ampleIdleMs, leaseEnd() - LEASE_MARGIN_MS)
          : Math.min(b.lastUse + idleMs, b.readAt + trustMs)
        : b.lastUse + drainMs;
    // An ample block of a site searched a moment ago is read again before its read gets old,
    // so the site's next visit is admitted at once instead of after a KV read. Not after a
    // failed or discarded read (readAt -Infinity): the next visit reads, never a loop.
    const refreshAt = () =>
      b.left && b.readAt > -Infinity && performance.now() - b.lastUse < this.timing.warmMs &&
        isAmple(b)
        ? b.readAt + trustMs * REREAD_AT
        : Infinity;
    const timer = setTimeout(() => {
      b.timer = undefined;
      if (b.running) return;
      const now = performance.now();
      if (now >= due() - 1) {
        b.settle = true;
        void this.pump(b);
      } else if (now >= refreshAt() - 1) {
        b.topUp = true;
        void this.pump(b);
      } else this.arm(b);
    }, Math.max(0, Math.min(due(), refreshAt()) - performance.now()));
    Deno.unrefTimer(timer); // a process may end with units held: they count as used
    b.timer = timer;
  }
}
