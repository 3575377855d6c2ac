/**
 * Which searches of a typing session are finished (docs/api.md, Analytics): a live
 * request (one with `session=`) waits here as its session's pending query, replaced by the
 * session's next request. It is finished when the session has been quiet for QUIET_MS, when a
 * result of exactly that query is clicked, or at shutdown; it is dropped when the visitor
 * acts on a longer query it leads to (Enter: a request without a session).
 *
 * Pending queries live in this instance's memory, like the quota's sessions; a session whose
 * requests land on several instances is settled in KV: when its requests here go quiet, an
 * instance notes the run of them (first and last request), and counts the last one only if,
 * SETTLE_MS after it, no other instance noted a run with a request within QUIET_MS after it.
 * Per typed question a list and two mutations in shared commits, in the analytics' flushes;
 * none per request.
 */
import { normalizeQuery } from "./keys.ts";

/** How long a session must be silent before its last query counts as finished. */
export const QUIET_MS = 10_000;
/**
 * When a quiet session's last query is counted, after its request: by then every instance
 * that saw a later request of the session (within QUIET_MS) has noted it. An instance finds a
 * session quiet at a flush (every 5 s) and notes it in that flush: at most 2 × QUIET_MS + 5 s
 * after the earlier request; with room to spare.
 */
export const SETTLE_MS = 3 * QUIET_MS;

/** Where an instance notes a run of a session's requests, while instances settle. */
const runKey = (
  p: Pending,
  instance: string,
) => ["antyping", p.siteId, p.session, instance, p.first];
/** A noted run: its first and last request (epoch ms). */
interface Run {
  first: number;
  last: number;
}
/** Pending sessions kept per site; past it, the oldest is counted at once (bounded memory). */
const MAX_PER_SITE = 2_000;

/** A session's last query, not counted yet: what it found, when it was asked, since when. */
export interface Pending {
  siteId: string;
  session: string;
  /** The query normalised (keys.ts); `typed`: as the visitor typed it. */
  q: string;
  typed?: string;
  found: number;
  at: number;
  /** The first request of the session's run here (requests less than QUIET_MS apart). */
  first: number;
  /** The session's last query that found no pages and that it left for another (not typed on). */
  missed?: string;
  /** The address the request came from, when it came over the network (once_per_visitor.ts). */
  visitor?: string;
}

/** A live request of a typing session. */
export type Asked = Pick<Pending, "siteId" | "session" | "q" | "found" | "at" | "visitor">;

const NONE: readonly Pending[] = [];

/** One site's pending sessions, in the order they were last asked, and found by their query. */
class SiteSessions {
  readonly bySession = new Map<string, Pending>();
  private byQuery = new Map<string, Set<string>>();

  add(p: Pending) {
    this.remove(p.session); // to the back: the map stays ordered by the last request
    this.bySession.set(p.session, p);
    const same = this.byQuery.get(p.q);
    if (same) same.add(p.session);
    else this.byQuery.set(p.q, new Set([p.session]));
  }

  remove(session: string): Pending | undefined {
    const p = this.bySession.get(session);
    if (!p) return;
    this.bySession.delete(session);
    const same = this.byQuery.get(p.q)!;
    same.delete(session);
    if (!same.size) this.byQuery.delete(p.q);
    return p;
  }

  /** Takes out the sessions whose pending query is exactly `q`. */
  take(q: string): readonly Pending[] {
    const same = this.byQuery.get(q);
    return same ? [...same].map((session) => this.remove(session)!) : NONE;
  }
}

/** Typing sessions' last queries, per site. */
export class TypingSessions {
  private sites = new Map<string, SiteSessions>();

  /** A live request: it becomes the session's pending query. Returns a query pushed out, if any. */
  ask({ siteId, session, q, found, at, visitor }: Asked): Pending | null {
    let site = this.sites.get(siteId);
    if (!site) this.sites.set(siteId, site = new SiteSessions());
    const prev = site.bySession.get(session);
    // Another address under the same session id starts a run of its own.
    const run = prev && at - prev.at < QUIET_MS && prev.visitor === visitor ? prev : undefined;
    const query = normalizeQuery(q);
    site.add({
      siteId,
      session,
      q: query,
      typed: q,
      found,
      at,
      first: run?.first ?? at,
      missed: left(run, query),
      visitor,
    });
    if (site.bySession.size <= MAX_PER_SITE) return null;
    return site.remove(site.bySession.keys().next().value!)!;
  }

  /**
   * A search the visitor acted on (no session): pending queries typed on the way to it go.
   * Returns the query one of them had left without finding pages, if any (a reformulation).
   */
  acted(siteId: string, q: string): string | undefined {
    const site = this.sites.get(siteId);
    if (!site) return;
    // Each prefix of the query is looked up: a few map reads, however many sessions wait.
    const query = normalizeQuery(q);
    let missed: string | undefined;
    for (let end = 1; end <= query.length; end++) {
      for (const p of site.take(query.slice(0, end))) if (end === query.length) missed ??= p.missed;
    }
    this.drop(siteId, site);
    return missed;
  }

  /** A click on a result of `q`: the sessions whose last query it is are finished now. */
  clicked(siteId: string, q: string): readonly Pending[] {
    const site = this.sites.get(siteId);
    if (!site) return NONE;
    const done = site.take(normalizeQuery(q));
    this.drop(siteId, site);
    return done;
  }

  /** Takes out the sessions quiet since `now - QUIET_MS` (all of them with `now` = Infinity). */
  quiet(now: number): Pending[] {
    const done: Pending[] = [];
    for (const [id, site] of this.sites) {
      for (const p of site.bySession.values()) {
        if (now - p.at < QUIET_MS) break; // ordered by last request: the rest are newer
        done.push(site.remove(p.session)!);
      }
      this.drop(id, site);
    }
    return done;
  }

  /** Whether any session waits. */
  get size(): number {
    return this.sites.size;
  }

  private drop(id: string, site: SiteSessions) {
    if (!site.bySession.size) this.sites.delete(id);
  }
}

/**
 * The query a session's run has left without finding pages, once `q` follows `prev`: prev's
 * own when it found nothing and `q` does not type on from it, unless it is only a step of
 * deleting back from the one already left ("tshrit", "tshri", "tsh", … "t-shirt").
 */
function left(prev: Pending | undefined, q: string): string | undefined {
  if (!prev) return;
  if (prev.found > 0 || q.startsWith(prev.q) || prev.missed?.startsWith(prev.q)) {
    return prev.missed;
  }
  return prev.q;
}

/** Notes the runs of quiet sessions (kept past SETTLE_MS, then they expire). */
export async function noteRuns(kv: Deno.Kv, instance: string, quiet: Pending[]) {
  for (let i = 0; i < quiet.length; i += 100) {
    const op = kv.atomic();
    for (const p of quiet.slice(i, i + 100)) {
      op.set(runKey(p, instance), { first: p.first, last: p.at } satisfies Run, {
        expireIn: 2 * SETTLE_MS,
      });
    }
    await op.commit();
  }
}

/**
 * The quiet sessions' queries that ended their session everywhere: no other instance noted a
 * run with a request within QUIET_MS after them. Their own notes are removed.
 */
export async function settled(kv: Deno.Kv, instance: string, quiet: Pending[]): Promise<Pending[]> {
  const ended = async (p: Pending) => {
    for await (const e of kv.list<Run>({ prefix: ["antyping", p.siteId, p.session] })) {
      // Requests less than QUIET_MS apart: a run that begins before p's window ends and
      // ends after p has a request within it.
      const run = e.value;
      if (e.key[3] !== instance && run.first < p.at + QUIET_MS && run.last > p.at) return false;
    }
    return true;
  };
  const out: Pending[] = [];
  for (let i = 0; i < quiet.length; i += 100) {
    const part = quiet.slice(i, i + 100);
    const verdicts = await Promise.all(part.map(ended));
    out.push(...part.filter((_, j) => verdicts[j]));
    const done = kv.atomic();
    for (const p of part) done.delete(runKey(p, instance));
    await done.commit();
  }
  return out;
}
