/** Per client IP and site, a cap on summaries a minute (a KV counter per minute window). */
import { type Clock, minuteWindow } from "./clock.ts";
import { ApiError } from "./errors.ts";

export class IpLimit {
  constructor(private kv: Deno.Kv, private clock: Clock, readonly perMinute: number) {}

  /** Counts one summary for this IP, or refuses it with SUMMARY_RATE_LIMIT_EXCEEDED. */
  async hit(siteId: string, ip: string): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const win = minuteWindow(this.clock());
      const key = ["sumip", siteId, ip, win.id];
      const entry = await this.kv.get<number>(key);
      const used = entry.value ?? 0;
      if (used >= this.perMinute) {
        throw new ApiError(
          "SUMMARY_RATE_LIMIT_EXCEEDED",
          `At most ${this.perMinute} AI answers a minute from one visitor. Retry in ${win.resetIn} s.`,
          { retryAfter: win.resetIn, headers: { "Retry-After": String(win.resetIn) } },
        );
      }
      const ok = await this.kv.atomic().check(entry).set(key, used + 1, { expireIn: 120_000 })
        .commit();
      if (ok.ok) return;
    }
  }
}
