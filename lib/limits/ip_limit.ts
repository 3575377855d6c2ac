/** Per client IP and site, a cap on requests a minute (a KV counter per minute window). */
import { type Clock, minuteWindow } from "../clock.ts";
import { stepCounter } from "./counter.ts";
import { ipLimited } from "./too_many.ts";

/** What one limit counts: its KV prefix, its 429 code, its message's noun and its default cap. */
export interface IpLimitKind {
  prefix: string;
  code: "SUMMARY_RATE_LIMIT_EXCEEDED" | "EVENT_RATE_LIMIT_EXCEEDED";
  what: string;
  perMinute: number;
}

/** AI answers (API.md: 30 a minute by default, SUMMARY_IP_LIMIT_PER_MINUTE). */
export const SUMMARIES: IpLimitKind = {
  prefix: "sumip",
  code: "SUMMARY_RATE_LIMIT_EXCEEDED",
  what: "AI answers",
  perMinute: 30,
};

/** Click events of the browser scripts. */
export const EVENTS: IpLimitKind = {
  prefix: "evip",
  code: "EVENT_RATE_LIMIT_EXCEEDED",
  what: "events",
  perMinute: 120,
};

/** Counts one kind of request per client IP and site, refusing past its cap. */
export class IpLimit {
  readonly perMinute: number;

  constructor(
    private kv: Deno.Kv,
    private clock: Clock,
    private kind: IpLimitKind,
    perMinute?: number,
  ) {
    this.perMinute = perMinute ?? kind.perMinute;
  }

  /** Counts one request for this IP, or refuses it with the kind's 429. */
  async hit(siteId: string, ip: string): Promise<void> {
    const win = minuteWindow(this.clock());
    const used = await stepCounter(this.kv, [this.kind.prefix, siteId, ip, win.id], {
      by: 1,
      limit: this.perMinute,
      expireIn: 120_000,
      busyMessage: `Too many ${this.kind.what} at once. Retry.`,
    });
    if (used === null) throw ipLimited(this.kind.code, this.kind.what, this.perMinute, win.resetIn);
  }
}
