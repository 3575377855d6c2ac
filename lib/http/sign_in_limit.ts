/**
 * Guessing admin keys and the operator token, slowed per client address: wrong `Authorization`
 * tokens on the admin API and failed dashboard sign-ins count against FAILED_SIGN_INS
 * (lib/limits/ip_limit.ts), and an address past it gets 429 before its token is read.
 */
import type { Context, MiddlewareHandler } from "hono";
import { type AppEnv, clientIp, UNKNOWN_IP } from "./middleware.ts";
import type { TrustedProxies } from "./proxies.ts";

/** A per-address count of wrong tokens (lib/limits/ip_limit.ts FAILED_SIGN_INS). */
export interface FailureLimit {
  /** Throws the 429 when the address used its minute up; counts nothing. */
  check(siteId: string, ip: string): Promise<void>;
  /** Counts one failure (throws the 429 once past the limit). */
  hit(siteId: string, ip: string): Promise<void>;
}

/** Where wrong admin tokens and failed dashboard sign-ins are counted: across every site. */
const SIGN_IN_SCOPE = "admin";

/**
 * One request's sign-in attempt as the failure limit sees it: `check` throws the 429 when its
 * address used its minute up, `failed` counts one (the 429 comes with the next try). In-process
 * calls (tests, benchmarks) have no address to count against: both do nothing for them.
 */
export function signInAttempt(c: Context, limit: FailureLimit, trusted: TrustedProxies | null) {
  const ip = clientIp(c, trusted);
  const counted = ip !== UNKNOWN_IP;
  return {
    check: async () => void (counted && await limit.check(SIGN_IN_SCOPE, ip)),
    failed: async () => void (counted && await limit.hit(SIGN_IN_SCOPE, ip).catch(() => {})),
  };
}

/**
 * Slows guessing of admin keys and the operator token: an address that sent FAILED_SIGN_INS
 * wrong tokens this minute gets 429 before its token is looked at; each 401 counts one.
 */
export function wrongTokens(
  limit: FailureLimit,
  trusted: TrustedProxies | null,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!c.req.header("authorization")) return await next();
    const attempt = signInAttempt(c, limit, trusted);
    await attempt.check();
    await next();
    if (c.res.status === 401) await attempt.failed();
  };
}
