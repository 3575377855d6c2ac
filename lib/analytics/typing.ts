/**
 * Which searches of a typing session are finished (API.md, third round, Analytics): a live
 * request (one with `session=`) waits here as its session's pending query, replaced by the
 * session's next request. It is counted when the session has been quiet for `quietMs`, when a
 * result of exactly that query is clicked, or at shutdown; it is dropped when the visitor
 * acts on a longer query it leads to (Enter: a request without a session). Kept in this
 * instance's memory, like the quota's typing sessions (lib/limits/sessions.ts).
 */
import { normalizeQuery } from "./keys.ts";

/** How long a session must be silent before its last query counts as finished. */
export const QUIET_MS = 10_000;
/** Pending sessions kept per site; past it, the oldest is counted at once (bounded memory). */
const MAX_PER_SITE = 2_000;

/** A session's last query, not counted yet: what it found, and when it was asked. */
export interface Pending {
  siteId: string;
  q: string;
  found: number;
  at: number;
}

/** Typing sessions' last queries, per site, in the order they were last asked. */
export class TypingSessions {
  private sites = new Map<string, Map<string, Pending>>();

  constructor(private quietMs = QUIET_MS) {}

  /** A live request: it becomes the session's pending query. Returns a query pushed out, if any. */
  ask(siteId: string, session: string, q: string, found: number, at: number): Pending | null {
    let site = this.sites.get(siteId);
    if (!site) this.sites.set(siteId, site = new Map());
    site.delete(session); // to the back: the map stays ordered by the last request
    site.set(session, { siteId, q: normalizeQuery(q), found, at });
    if (site.size <= MAX_PER_SITE) return null;
    const [oldest, pending] = site.entries().next().value!;
    site.delete(oldest);
    return pending;
  }

  /** A search the visitor acted on (no session): pending queries typed on the way to it go. */
  acted(siteId: string, q: string) {
    const site = this.sites.get(siteId);
    if (!site) return;
    const query = normalizeQuery(q);
    for (const [session, p] of site) if (query.startsWith(p.q)) site.delete(session);
    if (!site.size) this.sites.delete(siteId);
  }

  /** A click on a result of `q`: the sessions whose last query it is are finished now. */
  clicked(siteId: string, q: string): Pending[] {
    const site = this.sites.get(siteId);
    if (!site) return [];
    const query = normalizeQuery(q);
    const done: Pending[] = [];
    for (const [session, p] of site) {
      if (p.q === query) done.push(p), site.delete(session);
    }
    if (!site.size) this.sites.delete(siteId);
    return done;
  }

  /** Takes out the sessions quiet since `now - quietMs` (all of them with `now` = Infinity). */
  quiet(now: number): Pending[] {
    const done: Pending[] = [];
    for (const [id, site] of this.sites) {
      for (const [session, p] of site) {
        if (now - p.at < this.quietMs) break; // ordered by last request: the rest are newer
        done.push(p);
        site.delete(session);
      }
      if (!site.size) this.sites.delete(id);
    }
    return done;
  }

  /** Whether any session waits. */
  get size(): number {
    return this.sites.size;
  }
}
