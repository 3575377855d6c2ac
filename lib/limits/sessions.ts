/**
 * Typing sessions (live search), kept in this instance's memory: the first search of a session
 * counts; up to `SESSION.refinements` more within `SESSION.lifeMs` of it ride on it for free
 * while each extends or trims the session's previous query. Every free answer rides on a search
 * this instance counted, so a counted search buys at most 1 + 12 answers on any number of
 * instances; a session whose requests land on several instances is counted once on each.
 */

/** The typing-session rule (docs/api.md, "Live search: typing sessions"): how long, and how many free refinements. */
const SESSION = { lifeMs: 60_000, refinements: 12 } as const;

/** A session's previous query, when its search was counted, refinements since. */
export interface SessionState {
  q: string;
  at: number;
  free: number;
}

/** A live request's session: its id and the query it asks. */
export interface SessionAsk {
  id: string;
  q: string;
}

const norm = (q: string) => q.toLowerCase().replace(/\s+/g, " ").trim();

/** True when `q` refines `prev`: one starts with the other (typing on, or deleting back). */
export function refines(prev: string, q: string): boolean {
  const [a, b] = [norm(prev), norm(q)];
  return a.startsWith(b) || b.startsWith(a);
}

/** The session after `ask` rides on it for free, or null when `ask` must be counted. */
export function ride(prev: SessionState | undefined, ask: SessionAsk, now: number) {
  if (
    !prev || now - prev.at >= SESSION.lifeMs || prev.free >= SESSION.refinements ||
    !refines(prev.q, ask.q)
  ) return null;
  return { q: ask.q, at: prev.at, free: prev.free + 1 };
}

/** Sessions of all sites, oldest counted first; bounded (a forgotten session only counts again). */
export class LiveSessions {
  private map = new Map<string, SessionState>();

  constructor(private max = 200_000) {}

  static key = (site: string, id: string) => `${site}\n${id}`;

  get(key: string): SessionState | undefined {
    return this.map.get(key);
  }

  /** Records the session's new state; a counted search moves it to the back. */
  set(key: string, state: SessionState) {
    if (state.free === 0) this.map.delete(key);
    this.map.set(key, state);
    for (const [k, s] of this.map) {
      if (this.map.size <= this.max && state.at - s.at < SESSION.lifeMs) break;
      this.map.delete(k);
    }
  }
}
