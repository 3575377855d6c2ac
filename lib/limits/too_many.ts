/**
 * Every 429 the service answers, in one place: the searches' per-minute and monthly refusals
 * with docs/api.md's RateLimit headers, AI credits used up, and the per-IP and per-site limits
 * (summaries, events, previews).
 */
import { DomainError } from "../errors.ts";
import type { EffectiveLimits } from "./plans.ts";

/** What the RateLimit headers need, for admitted and refused searches alike. */
export interface QuotaState {
  limits: EffectiveLimits;
  minute: { used: number; resetIn: number };
  month: { used: number; resetIn: number; resetsAt: string };
}

/** The RateLimit-Policy and RateLimit headers of docs/api.md. */
export function rateLimitHeaders(s: QuotaState): Record<string, string> {
  const minuteLeft = Math.max(0, s.limits.perMinute - s.minute.used);
  let closest = `"minute";r=${minuteLeft};t=${s.minute.resetIn}`;
  if (s.limits.perMonth !== null) {
    const monthLeft = Math.max(0, s.limits.perMonth - s.month.used);
    if (monthLeft < minuteLeft) closest = `"month";r=${monthLeft};t=${s.month.resetIn}`;
  }
  return { "RateLimit-Policy": policyOf(s.limits), "RateLimit": closest };
}

/** The RateLimit-Policy of a site's limits, made once for each limits object (each search asks). */
function policyOf(limits: EffectiveLimits): string {
  let text = policies.get(limits);
  if (text === undefined) {
    text = `"minute";q=${limits.perMinute};w=60`;
    if (limits.perMonth !== null) text += `, "month";q=${limits.perMonth};w=2592000`;
    policies.set(limits, text);
  }
  return text;
}
const policies = new WeakMap<EffectiveLimits, string>();

/** A search refused: the monthly quota when it is used up, else the per-minute limit. */
export function searchRefused(state: QuotaState, month: { resetIn: number; resetsAt: Date }) {
  const headers = rateLimitHeaders(state);
  const { perMinute, perMonth } = state.limits;
  if (perMonth !== null && state.month.used >= perMonth) {
    const day = month.resetsAt.toISOString().slice(0, 10);
    return new DomainError(
      "MONTHLY_SEARCH_QUOTA_EXCEEDED",
      `Monthly search quota of ${perMonth} reached. It resets on ${day}.`,
      {
        retryAfter: month.resetIn,
        resetsAt: month.resetsAt.toISOString(),
        headers,
      },
    );
  }
  const retryAfter = state.minute.resetIn;
  return new DomainError(
    "SEARCH_RATE_LIMIT_EXCEEDED",
    `Search limit of ${perMinute} per minute reached. Retry in ${retryAfter} s.`,
    { retryAfter, headers },
  );
}

/** The month's AI credits are used up. */
export function creditsExhausted(limit: number, month: { resetIn: number; resetsAt: Date }) {
  return new DomainError(
    "AI_CREDITS_EXHAUSTED",
    `This site has used its ${limit} AI credits for the month.`,
    {
      retryAfter: month.resetIn,
      resetsAt: month.resetsAt.toISOString(),
    },
  );
}

/** One client IP asked more than `perMinute` of `what` (e.g. "AI answers") this minute. */
/** The 429 codes of the limits counted per visitor or per site (ip_limit.ts). */
export type LimitCode =
  | "SUMMARY_RATE_LIMIT_EXCEEDED"
  | "EVENT_RATE_LIMIT_EXCEEDED"
  | "PREVIEW_RATE_LIMIT_EXCEEDED"
  | "SIGN_IN_RATE_LIMIT_EXCEEDED";

export function ipLimited(
  kind: { code: LimitCode; what: string; per: "visitor" | "site" },
  perMinute: number,
  resetIn: number,
) {
  const who = kind.per === "site" ? "for one site" : "from one visitor";
  return new DomainError(
    kind.code,
    `At most ${perMinute} ${kind.what} a minute ${who}. Retry in ${resetIn} s.`,
    { retryAfter: resetIn },
  );
}
