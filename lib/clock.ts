/** Milliseconds since the epoch; injected so tests can cross minute and month boundaries. */
export type Clock = () => number;

/**
 * The clocks, each read once per run of synchronous code: later reads answer the same time until
 * the microtasks queued by then have run (an await of I/O or a timer always reads anew). A
 * repeated search answered from the cache asks for the time 20 times (the server's deadlines and
 * Date header, the site's, quota's, levers' and index's checks, analytics, activity), ~55 ns a
 * wall-clock read and ~95 a monotonic one here: read once, it took 1.2-1.9 µs less CPU, 4-6 %
 * of it (BENCHMARKS.md). No reader needs time to move within one run: what measures a duration
 * or waits in a loop reads `performance.now()` or `Date.now()` itself.
 */
let wallAt = 0, steadyAt = 0;
/** Which clocks were read in this run (1: the wall clock, 2: the monotonic one). */
let read = 0;
const forget = () => read = 0;

/** Milliseconds since the epoch, as of this run of synchronous code. */
export const systemClock: Clock = () => {
  if (read & 1) return wallAt;
  if (read === 0) queueMicrotask(forget);
  read |= 1;
  return wallAt = Date.now();
};

/** `performance.now()` as of this run of synchronous code (activity marks, trust windows). */
export function steadyClock(): number {
  if (read & 2) return steadyAt;
  if (read === 0) queueMicrotask(forget);
  read |= 2;
  return steadyAt = performance.now();
}

/**
 * How long an instance answers from what it holds in memory (a site's index, its levers)
 * before it asks KV whether another instance changed it: another instance's writes show
 * within this.
 */
export const STALE_MS = 500;

/**
 * What an instance keeps fresh ahead of need, so a visitor's search waits on no KV read: the
 * sites searched within WARM_MS, read again once REREAD_AT of the time their read is trusted has
 * gone (the quota's site read, limits/quota.ts; the levers' heads, levers/levers.ts).
 */
export const WARM_MS = 5_000;
export const REREAD_AT = 0.8;

/** The minute window a time falls in, and the seconds until it ends. */
export function minuteWindow(now: number): { id: number; resetIn: number } {
  const id = Math.floor(now / 60_000);
  return { id, resetIn: Math.max(1, Math.ceil(((id + 1) * 60_000 - now) / 1000)) };
}

/** The UTC calendar month a time falls in ("2026-11"), and when the next one starts. */
export function monthWindow(now: number): { id: string; resetsAt: Date; resetIn: number } {
  const d = new Date(now);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return {
    id: d.toISOString().slice(0, 7),
    resetsAt: new Date(next),
    resetIn: Math.max(1, Math.ceil((next - now) / 1000)),
  };
}
