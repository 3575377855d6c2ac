/**
 * IndexNow pings a minute per host (a KV counter per minute window): a CMS pings once per
 * publish, so more than this is a loop or someone else's flood, and each ping may fetch pages.
 */
import { type Clock, minuteWindow } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { stepCounter } from "../limits/counter.ts";

/** Pings one host may send a minute. */
export const PINGS_PER_MINUTE = 60;

/** Counts one ping for `host`, or refuses it with a 429 saying when to ping again. */
export async function countHostPing(
  s: { kv: Deno.Kv; clock: Clock },
  host: string,
  perMinute = PINGS_PER_MINUTE,
): Promise<void> {
  const win = minuteWindow(s.clock());
  const used = await stepCounter(s.kv, ["indexnow_host", host, win.id], {
    by: 1,
    limit: perMinute,
    expireIn: 120_000,
    busyMessage: "Too many IndexNow pings at once. Retry.",
  });
  if (used !== null) return;
  throw new DomainError(
    "INDEXNOW_RATE_LIMIT_EXCEEDED",
    `At most ${perMinute} IndexNow pings a minute for one host. Retry in ${win.resetIn} s.`,
    { retryAfter: win.resetIn },
  );
}
