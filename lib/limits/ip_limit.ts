/**
 * Per client IP and site (or per site alone), a cap on requests a minute (a KV counter per
 * minute window).
 */
import { type Clock, minuteWindow } from "../clock.ts";
import { stepCounter } from "./counter.ts";
import { ipLimited, type LimitCode } from "./too_many.ts";

/** What one limit counts: its KV prefix, its 429 code, its message's noun and its default cap. */
export interface IpLimitKind {
  prefix: string;
  code: LimitCode;
  what: string;
  perMinute: number;
  /** Counted per visitor (client IP) of a site, or for the whole site. */
  per: "visitor" | "site";
}

/** AI answers (docs/api.md: 30 a minute by default, SUMMARY_IP_LIMIT_PER_MINUTE). */
export const SUMMARIES: IpLimitKind = {
  prefix: "sumip",
  code: "SUMMARY_RATE_LIMIT_EXCEEDED",
  what: "AI answers",
  perMinute: 30,
  per: "visitor",
};

/** Click events of the browser scripts. */
export const EVENTS: IpLimitKind = {
  prefix: "evip",
  code: "EVENT_RATE_LIMIT_EXCEEDED",
  what: "events",
  perMinute: 120,
  per: "visitor",
};

/** Failed sign-ins and wrong admin tokens from one address: guessing a key takes for ever. */
export const FAILED_SIGN_INS: IpLimitKind = {
  prefix: "signinfail",
  code: "SIGN_IN_RATE_LIMIT_EXCEEDED",
  what: "failed sign-ins",
  perMinute: 10,
  per: "visitor",
};

/** Owners' previews of unsaved levers: each runs two searches, so a site gets so many a minute. */
export const PREVIEWS: IpLimitKind = {
  prefix: "prevsite",
  code: "PREVIEW_RATE_LIMIT_EXCEEDED",
  what: "previews",
  perMinute: 60,
  per: "site",
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

  /** Refuses with the kind's 429 when this IP used its minute up, counting nothing. */
  async check(siteId: string, ip = ""): Promise<void> {
    const win = minuteWindow(this.clock());
    const who = this.kind.per === "site" ? "site" : ip;
    const used = (await this.kv.get<number>([this.kind.prefix, siteId, who, win.id])).value ?? 0;
    if (used >= this.perMinute) throw ipLimited(this.kind, this.perMinute, win.resetIn);
  }

  /** Counts one request for this IP (unused for a per-site kind), or refuses it with the kind's 429. */
  async hit(siteId: string, ip = ""): Promise<void> {
    const win = minuteWindow(this.clock());
    const who = this.kind.per === "site" ? "site" : ip;
    const used = await stepCounter(this.kv, [this.kind.prefix, siteId, who, win.id], {
      by: 1,
      limit: this.perMinute,
      expireIn: 120_000,
      busyMessage: `Too many ${this.kind.what} at once. Retry.`,
    });
    if (used === null) throw ipLimited(this.kind, this.perMinute, win.resetIn);
  }
}
