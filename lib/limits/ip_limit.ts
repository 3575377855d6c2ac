/** Per client IP and site, a cap on requests a minute (a KV counter per minute window). */
import { type Clock, minuteWindow } from "../clock.ts";
import { ApiError } from "../http/errors.ts";
import { stepCounter } from "./counter.ts";

/** What one limit counts: its KV prefix, its 429 code and how its message names the requests. */
export interface IpLimitKind {
  prefix: string;
  code: "SUMMARY_RATE_LIMIT_EXCEEDED" | "EVENT_RATE_LIMIT_EXCEEDED";
  what: string;
}

const SUMMARIES: IpLimitKind = {
  prefix: "sumip",
  code: "SUMMARY_RATE_LIMIT_EXCEEDED",
  what: "AI answers",
};

export class IpLimit {
  constructor(
    private kv: Deno.Kv,
    private clock: Clock,
    readonly perMinute: number,
    private kind: IpLimitKind = SUMMARIES,
  ) {}

  /** Counts one request for this IP, or refuses it with the kind's 429. */
  async hit(siteId: string, ip: string): Promise<void> {
    const win = minuteWindow(this.clock());
    const used = await stepCounter(this.kv, [this.kind.prefix, siteId, ip, win.id], {
      by: 1,
      limit: this.perMinute,
      expireIn: 120_000,
      busyMessage: `Too many ${this.kind.what} at once. Retry.`,
    });
    if (used === null) {
      throw new ApiError(
        this.kind.code,
        `At most ${this.perMinute} ${this.kind.what} a minute from one visitor. Retry in ${win.resetIn} s.`,
        { retryAfter: win.resetIn, headers: { "Retry-After": String(win.resetIn) } },
      );
    }
  }
}
