/**
 * AI credits in Deno KV: one per answered summary, reserved before the model is
 * called (so concurrent requests never overshoot) and refunded if the answer
 * never started.
 */
import { type Clock, monthWindow } from "./clock.ts";
import { ApiError, busy } from "./errors.ts";
import { effectiveLimits } from "./plans.ts";
import type { Site } from "./sites.ts";

export const creditKey = (site: string, month: string) => ["credits", site, month];

export class Credits {
  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** Takes one credit; returns what is left this month (null: unlimited). */
  async reserve(site: Site): Promise<{ remaining: number | null; month: string }> {
    const limit = effectiveLimits(site.plan, site.limits).aiCredits;
    for (let attempt = 0; attempt < 200; attempt++) {
      const mon = monthWindow(this.clock());
      const key = creditKey(site.id, mon.id);
      const entry = await this.kv.get<number>(key);
      const used = entry.value ?? 0;
      if (limit !== null && used >= limit) {
        throw new ApiError(
          "AI_CREDITS_EXHAUSTED",
          `This site has used its ${limit} AI credits for the month.`,
          {
            retryAfter: mon.resetIn,
            resetsAt: mon.resetsAt.toISOString(),
            headers: { "Retry-After": String(mon.resetIn) },
          },
        );
      }
      const res = await this.kv.atomic().check(entry)
        .set(key, used + 1, { expireIn: 40 * 86_400_000 }).commit();
      if (res.ok) return { remaining: limit === null ? null : limit - used - 1, month: mon.id };
    }
    throw busy("Too many summaries at once. Retry.");
  }

  /** Gives back a credit reserved in `month` for an answer that never started. */
  async refund(siteId: string, month: string): Promise<void> {
    const key = creditKey(siteId, month);
    for (let attempt = 0; attempt < 200; attempt++) {
      const entry = await this.kv.get<number>(key);
      if (!entry.value) return;
      if ((await this.kv.atomic().check(entry).set(key, entry.value - 1).commit()).ok) return;
    }
    throw busy("Too many summaries at once. Retry.");
  }

  /** Credits used this month. */
  async used(siteId: string): Promise<number> {
    return (await this.kv.get<number>(creditKey(siteId, monthWindow(this.clock()).id))).value ?? 0;
  }
}
