/**
 * One site's allowance as an instance holds it (a block of reserved units), and the pure
 * rules about it: the windows a time falls in, the room the counters leave, how many units
 * a refill takes. The SearchQuota in quota.ts runs the blocks; reservations.ts moves the units.
 */
import { minuteWindow, monthWindow } from "../clock.ts";
import { type DomainError } from "../errors.ts";
import { type EffectiveLimits, effectiveLimits } from "./plans.ts";
import type { Outcome, Snapshot, Window } from "./reservations.ts";
import { LiveSessions, ride, type SessionAsk, type SessionState } from "./sessions.ts";
import type { QuotaState } from "./too_many.ts";
import type { Site } from "../sites/store.ts";
import type { Stamp } from "../storage/change_marks.ts";

/** The most units one block holds. */
export const MAX_BLOCK = 4_096;
/**
 * A block is ample when what it holds is at most 1/AMPLE_SHARE of what the site has left: it
 * is then kept through re-reads of the site and while idle up to `ampleIdleMs` (no other
 * instance can miss so little), so a visit to a busy site costs a KV read, not two commits.
 */
export const AMPLE_SHARE = 256;

export interface Admitted {
  site: Site;
  state: QuotaState;
  /** False for a refinement riding on its session's counted search. */
  counted: boolean;
}

/** Decides, against the site as last read (at most `trustMs` ago), whether this request may count. */
export type Verify = (site: Site | null) => DomainError | null;

/** A request waiting for its site's next refill. */
export interface Waiter {
  verify: Verify;
  session?: SessionAsk;
  /** performance.now() when it began to wait (it is refused after waiting too long). */
  since: number;
  resolve: (a: Admitted) => void;
  reject: (e: unknown) => void;
}

/** One site's allowance as this instance holds it. */
export interface Block {
  /** The site's id. */
  id: string;
  /** The site as read at the last exchange (null: not read yet, or gone). */
  site: Site | null;
  /** That site's limits, its plan's with its overrides (null without a site). */
  limits: EffectiveLimits | null;
  /** The window `left` and `counts` belong to. */
  win: Window;
  /** performance.now() of the site's read; -Infinity when it must be read again. */
  readAt: number;
  /** The site's change mark read with it (lib/storage/change_marks.ts). */
  stamp?: Stamp;
  /** Moves on with every local change of the site: a read from before it is not trusted. */
  epoch: number;
  /** Units reserved and not yet used. */
  left: number;
  /** The counters after this instance's last exchange (every instance's reservations). */
  counts: { minute: number; month: number };
  /** At the last exchange no room was left: for good, or until other instances give back. */
  full: "final" | "others" | null;
  /** Units a refill aims to hold: doubles while used up fast, halves when units go back. */
  target: number;
  /** performance.now() when units were last taken (used up soon after: the target doubles). */
  takenAt: number;
  /** performance.now() of the last admission or take; idle give-backs count from it. */
  lastUse: number;
  /** Requests waiting for a refill, in the order they came. */
  waiters: Waiter[];
  /** The site's KV work now running (one step at a time), if any. */
  running: Promise<void> | null;
  /** Whether this instance's lease for the site is in KV. */
  leaseOpen: boolean;
  /** Wall-clock ms the lease in KV runs to (as this instance last wrote it). */
  leaseUntil: number;
  /** The next KV step gives every unused unit back (idle, old read, window's end, close). */
  settle: boolean;
  /** The next KV step refills ahead of need, or reads the site again before its read is old. */
  topUp: boolean;
  /** The scheduled give-back or re-read. */
  timer?: ReturnType<typeof setTimeout>;
}

/** A block that holds nothing yet. */
export function newBlock(id: string): Block {
  return {
    id,
    site: null,
    limits: null,
    win: { minute: -1, month: "" },
    readAt: -Infinity,
    epoch: 0,
    left: 0,
    counts: { minute: 0, month: 0 },
    full: null,
    target: 2,
    takenAt: 0,
    lastUse: 0,
    waiters: [],
    running: null,
    leaseOpen: false,
    leaseUntil: 0,
    settle: false,
    topUp: false,
  };
}

/** The windows of the last time asked, kept for the minute (read on every search). */
let last = { minute: NaN, month: "", monthEnd: 0, monthEndIso: "" };
/** The minute and month a time falls in, and the month's end. */
export function windows(now: number) {
  if (Math.floor(now / 60_000) !== last.minute) {
    const mon = monthWindow(now);
    const monthEnd = mon.resetsAt.getTime();
    last = {
      minute: minuteWindow(now).id,
      month: mon.id,
      monthEnd,
      monthEndIso: mon.resetsAt.toISOString(),
    };
  }
  return last;
}

/** Whether two reservations count in the same minute and month. */
export const sameWindow = (a: Window, b: Window) => a.minute === b.minute && a.month === b.month;

/** Units the site may still take this minute and month, given counters. */
export function roomIn(limits: EffectiveLimits, c: { minute: number; month: number }) {
  const month = limits.perMonth === null ? Infinity : limits.perMonth - c.month;
  return Math.max(0, Math.min(limits.perMinute - c.minute, month));
}

/** Keeps what an exchange read; `readAt` -Infinity when the site changed here meanwhile. */
export function absorb(b: Block, out: Outcome, win: Window, readAt: number) {
  b.site = out.site;
  b.limits = out.site ? effectiveLimits(out.site.plan, out.site.limits) : null;
  b.win = win;
  b.readAt = readAt;
  b.stamp = out.stamp;
  b.counts = { minute: out.minute, month: out.month };
  b.leaseOpen = out.leaseOpen;
}

/** Whether the units held are too few for any other instance to miss (AMPLE_SHARE). */
export function isAmple(b: Block): boolean {
  return b.limits !== null && ample(b.left, b.limits, b.counts);
}

/** Whether `held` units are ample (isAmple) against counters an exchange leaves, `after`. */
export function ampleAfter(after: Snapshot, held: number): boolean {
  return !!after.site && ample(held, effectiveLimits(after.site.plan, after.site.limits), after);
}

const ample = (held: number, limits: EffectiveLimits, c: { minute: number; month: number }) =>
  held * AMPLE_SHARE <= roomIn(limits, c);

/** What the RateLimit headers say of a block at `now`: units held count as not used yet. */
export function stateOf(b: Block, now: number): QuotaState {
  const { monthEnd, monthEndIso } = windows(now);
  return {
    limits: b.limits!,
    minute: { used: Math.max(0, b.counts.minute - b.left), resetIn: minuteWindow(now).resetIn },
    month: {
      used: Math.max(0, b.counts.month - b.left),
      resetIn: Math.max(1, Math.ceil((monthEnd - now) / 1000)),
      resetsAt: monthEndIso,
    },
  };
}

/** How many waiting requests will take a unit (the others are refused or ride a session). */
export function unitsNeeded(b: Block, site: Site, now: number, sessions: LiveSessions): number {
  let need = 0;
  const seen = new Map<string, SessionState>();
  for (const w of b.waiters) {
    if (w.verify(site)) continue;
    if (w.session) {
      const key = LiveSessions.key(b.id, w.session.id);
      const rode = ride(seen.get(key) ?? sessions.get(key), w.session, now);
      seen.set(key, rode ?? { q: w.session.q, at: now, free: 0 });
      if (rode) continue;
    }
    need++;
  }
  return need;
}

/** Units a refill takes and units held once `need` waiting requests are served. */
export function refillSize(b: Block, s: Snapshot, need: number, hold: number): [number, number] {
  if (!s.site) return [0, hold];
  const room = roomIn(effectiveLimits(s.site.plan, s.site.limits), s);
  const want = Math.max(0, need - hold);
  // Requests queued during one round trip show the rate: hold twice that from now on. Of a
  // large allowance a sliver is taken at once: an ample block then rarely needs a commit.
  const sliver = Math.floor(room / (2 * AMPLE_SHARE));
  b.target = Math.min(MAX_BLOCK, Math.max(b.target, 2 * need, sliver));
  // Beyond the requests waiting, at most a quarter of what is left; a block that still
  // holds more than a quarter of its target is not topped up (a re-read writes nothing).
  const low = want > 0 || hold <= b.target / 4;
  const extra = !low
    ? 0
    : Math.min(Math.max(0, b.target - want - hold), Math.floor(Math.max(0, room - want) / 4));
  const take = Math.min(room, want + extra);
  return [take, hold + take - Math.min(need, hold + take)];
}
