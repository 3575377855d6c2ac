/**
 * AI credits in Deno KV: one per delivered answer. A credit is reserved before the
 * answer is made (so concurrent requests never overshoot) and given back unless the
 * answer is delivered: no match on the site, a client gone, an answer that could not
 * be stored or sent all cost nothing.
 */
import { type Clock, monthWindow } from "../clock.ts";
import { stepCounter } from "./counter.ts";
import { effectiveLimits } from "./plans.ts";
import { creditsExhausted } from "./too_many.ts";
import type { Site } from "../sites/store.ts";

const creditKey = (site: string, month: string) => ["credits", site, month];

const STEP = { expireIn: 40 * 86_400_000, busyMessage: "Too many summaries at once. Retry." };

export class Credits {
  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** Takes one credit; returns what is left this month (null: unlimited). */
  async reserve(site: Site): Promise<{ remaining: number | null; month: string }> {
    const limit = effectiveLimits(site.plan, site.limits).aiCredits;
    const mon = monthWindow(this.clock());
    const used = await stepCounter(this.kv, creditKey(site.id, mon.id), { by: 1, limit, ...STEP });
    if (used === null) throw creditsExhausted(limit!, mon);
    return { remaining: limit === null ? null : limit - used, month: mon.id };
  }

  /** What is left this month, without taking any (null: unlimited). */
  async remaining(site: Site): Promise<number | null> {
    const limit = effectiveLimits(site.plan, site.limits).aiCredits;
    return limit === null ? null : Math.max(0, limit - await this.used(site.id));
  }

  /** Gives back a credit reserved in `month` for an answer that was not delivered. */
  async refund(siteId: string, month: string): Promise<void> {
    await stepCounter(this.kv, creditKey(siteId, month), { by: -1, ...STEP });
  }

  /** Credits used this month. */
  async used(siteId: string): Promise<number> {
    return (await this.kv.get<number>(creditKey(siteId, monthWindow(this.clock()).id))).value ?? 0;
  }
}
