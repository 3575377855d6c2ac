/**
 * Dashboard sessions: a random id in a signed, expiring, HttpOnly, SameSite=Strict cookie, backed
 * by a KV record (so signing out ends it everywhere). A session is bound to the key it signed in
 * with: rotating a site's admin key ends that site's sessions, and changing the operator token
 * ends the operator's. Requests that change state must carry our Origin.
 */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Clock } from "../clock.ts";
import { DomainError } from "../errors.ts";
import type { AdminCaller } from "./auth.ts";
import type { AppEnv } from "./middleware.ts";
import { constantTimeEqual, randomBase62 } from "../sites/keys.ts";
import type { SiteStore } from "../sites/store.ts";

export const SESSION_COOKIE = "sitesearch_session";
const SECRET_KEY = ["config", "sessionSecret"];
const sessionKey = (id: string) => ["session", id];

/** Who a session signed in as. */
export type SessionWho =
  | { operator: true; tokenHash: string }
  | { operator: false; siteId: string; keyHash: string };

const b64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");

/** Creates, reads and ends sessions. */
export class Sessions {
  private secret: Promise<CryptoKey> | null = null;

  constructor(
    private kv: Deno.Kv,
    private clock: Clock,
    private sites: SiteStore,
    /** The operator token's hash now: an operator session signed in with another one is over. */
    private operatorTokenHash: string | null,
    readonly ttlMs = 8 * 3600_000,
  ) {}

  /** The signing key: made once per KV and kept there, so every instance shares it. */
  private key(): Promise<CryptoKey> {
    this.secret ??= (async () => {
      let raw = (await this.kv.get<Uint8Array>(SECRET_KEY)).value;
      if (!raw) {
        const fresh = crypto.getRandomValues(new Uint8Array(32));
        await this.kv.atomic().check({ key: SECRET_KEY, versionstamp: null }).set(SECRET_KEY, fresh)
          .commit();
        raw = (await this.kv.get<Uint8Array>(SECRET_KEY)).value!;
      }
      return await crypto.subtle.importKey(
        "raw",
        new Uint8Array(raw),
        { name: "HMAC", hash: "SHA-256" },
        false,
        [
          "sign",
        ],
      );
    })();
    this.secret.catch(() => (this.secret = null));
    return this.secret;
  }

  private async sign(id: string): Promise<string> {
    return b64url(await crypto.subtle.sign("HMAC", await this.key(), new TextEncoder().encode(id)));
  }

  /** Starts a session; returns the cookie's value. */
  async create(who: SessionWho): Promise<string> {
    const id = randomBase62(32);
    const exp = this.clock() + this.ttlMs;
    await this.kv.set(sessionKey(id), { who, exp }, { expireIn: this.ttlMs });
    return `${id}.${await this.sign(id)}`;
  }

  /** The session a cookie names, if its signature holds and it has not expired or ended. */
  async read(cookie: string | undefined): Promise<{ id: string; who: SessionWho } | null> {
    const m = /^([A-Za-z0-9]{32})\.([A-Za-z0-9_-]{43})$/.exec(cookie ?? "");
    if (!m || !constantTimeEqual(m[2], await this.sign(m[1]))) return null;
    const stored = (await this.kv.get<{ who: SessionWho; exp: number }>(sessionKey(m[1]))).value;
    if (!stored || stored.exp <= this.clock()) return null;
    return { id: m[1], who: stored.who };
  }

  /** The admin caller a session stands for; null once its site or admin key is gone. */
  async caller(who: SessionWho): Promise<AdminCaller | null> {
    if (who.operator) {
      const current = this.operatorTokenHash;
      // A session from before sessions were bound to the token has none: it is over too.
      const same = current !== null && typeof who.tokenHash === "string" &&
        constantTimeEqual(who.tokenHash, current);
      return same ? { operator: true, site: null } : null;
    }
    const site = await this.sites.get(who.siteId);
    return site && constantTimeEqual(site.adminKeyHash, who.keyHash)
      ? { operator: false, site }
      : null;
  }

  /** Ends a session. */
  async end(id: string) {
    await this.kv.delete(sessionKey(id));
  }
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** True when the request's Origin is this server's own (the Host it was sent to). */
export function sameOrigin(c: Context): boolean {
  const origin = c.req.header("origin");
  if (!origin) return false;
  try {
    return new URL(origin).host === (c.req.header("host") ?? new URL(c.req.url).host);
  } catch {
    return false;
  }
}

/** Refuses a state-changing request whose Origin is not ours. */
export function assertSameOrigin(c: Context) {
  if (!SAFE.has(c.req.method) && !sameOrigin(c)) {
    throw new DomainError(
      "ORIGIN_NOT_ALLOWED",
      "This request must come from the dashboard's own page.",
    );
  }
}

/** True when the client reached us over HTTPS (directly or through a proxy that says so). */
const overHttps = (c: Context) =>
  new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";

/** Sets the session cookie. */
export function setSessionCookie(c: Context, value: string, maxAgeMs: number) {
  setCookie(c, SESSION_COOKIE, value, {
    path: "/",
    httpOnly: true,
    sameSite: "Strict",
    secure: overHttps(c),
    maxAge: Math.floor(maxAgeMs / 1000),
  });
}

/** Clears the session cookie. */
export function clearSessionCookie(c: Context) {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: overHttps(c) });
}

/** The request's session cookie value. */
export const sessionCookie = (c: Context) => getCookie(c, SESSION_COOKIE);

/**
 * For the admin API: a request without Authorization but with a dashboard session acts as that
 * session's caller; when it changes state, only from our own Origin.
 */
export function sessionAuth(sessions: Sessions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const cookie = c.req.header("authorization") ? undefined : sessionCookie(c);
    const session = cookie ? await sessions.read(cookie) : null;
    if (session) {
      assertSameOrigin(c);
      const caller = await sessions.caller(session.who);
      if (caller) c.set("adminCaller", caller);
    }
    await next();
  };
}
