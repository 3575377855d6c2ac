/** Per client IP and site, a cap on summaries a minute (a KV counter per minute window). */
import { type Clock, minuteWindow } from "../clock.ts";
import { ApiError } from "../http/errors.ts";
import { stepCounter } from "./counter.ts";

export class IpLimit {
  constructor(private kv: Deno.Kv, private clock: Clock, readonly perMinute: number) {}

  /** Counts one summary for this IP, or refuses it with SUMMARY_RATE_LIMIT_EXCEEDED. */
  async hit(siteId: string, ip: string): Promise<void> {
    const win = minuteWindow(this.clock());
    const used = await stepCounter(this.kv, ["sumip", siteId, ip, win.id], {
      by: 1,
      limit: this.perMinute,
      expireIn: 120_000,
      busyMessage: "Too many AI answers at once. Retry.",
    });
    if (used === null) {
      throw new ApiError(
        "SUMMARY_RATE_LIMIT_EXCEEDED",
        `At most ${this.perMinute} AI answers a minute from one visitor. Retry in ${win.resetIn} s.`,
        { retryAfter: win.resetIn, headers: { "Retry-After": String(win.resetIn) } },
      );
    }
  }
}
