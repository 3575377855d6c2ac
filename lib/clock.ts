/** Milliseconds since the epoch; injected so tests can cross minute and month boundaries. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

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
