/**
 * A number in KV moved by one and never past a limit, exact under any
 * concurrency: read, decide, commit guarded by the versionstamp, and retry a
 * lost race (SQLite's "locked", when two processes share one KV file, too).
 */
import { LOST_RACE, retryKv } from "../storage/kv_retry.ts";

export interface CounterStep {
  /** +1 takes one, -1 gives one back (never below 0). */
  by: 1 | -1;
  /** Taking stops here; null or absent: no limit. */
  limit?: number | null;
  expireIn?: number;
  /** The 503's message if every attempt lost its race. */
  busyMessage: string;
}

/** The counter's new value, or null when taking one would pass the limit. */
export function stepCounter(kv: Deno.Kv, key: Deno.KvKey, step: CounterStep) {
  return retryKv(async () => {
    const entry = await kv.get<number>(key);
    const value = entry.value ?? 0;
    if (step.by > 0 && step.limit != null && value >= step.limit) return null;
    const next = Math.max(0, value + step.by);
    if (next === value) return value;
    const res = await kv.atomic().check(entry).set(key, next, { expireIn: step.expireIn })
      .commit();
    return res.ok ? next : LOST_RACE;
  }, step.busyMessage);
}
