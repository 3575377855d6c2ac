/**
 * Search quotas in Deno KV. Requests for one site queue up and are admitted in
 * groups: one read of the site, its two counters and the typing sessions the
 * group names, one atomic commit guarded by their versionstamps. That is exact
 * under any concurrency, also across instances sharing the KV (a lost race
 * re-reads and decides again), and under load one KV round trip serves many
 * requests. Each site has its own queue, so a busy site never delays another.
 *
 * Typing sessions (live search): the first search of a session counts; up to
 * `SESSION.refinements` more within `SESSION.lifeMs` of it ride on it for
 * free while each extends or trims the session's previous query. So a
 * counted search buys at most 1 + 8 answers, and a script reusing one session
 * id for unrelated queries pays for every one of them.
 */
import { type Clock, minuteWindow, monthWindow } from "../clock.ts";
import { ApiError, busy, isLocked } from "../http/errors.ts";
import { type EffectiveLimits, effectiveLimits } from "./plans.ts";
import type { Site } from "../sites/store.ts";

export const minuteKey = (site: string, minute: number) => ["qmin", site, minute];
export const monthKey = (site: string, month: string) => ["qmon", site, month];
export const sessionKey = (site: string, id: string) => ["qses", site, id];

/** The typing-session rule (README, API additions): how long, and how many free refinements. */
export const SESSION = { lifeMs: 60_000, refinements: 8 } as const;
/** Distinct sessions decided in one group: 3 + this many versionstamp checks stay under KV's 100. */
const SESSIONS_PER_BATCH = 60;

/** What the KV keeps of a session: its previous query, when it was counted, refinements since. */
interface SessionState {
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

/** What the RateLimit headers need, for admitted and refused requests alike. */
export interface QuotaState {
  limits: EffectiveLimits;
  minute: { used: number; resetIn: number };
  month: { used: number; resetIn: number; resetsAt: string };
}

export interface Admitted {
  site: Site;
  state: QuotaState;
  /** False for a refinement riding on its session's counted search. */
  counted: boolean;
}

/** Decides, against the freshly read site, whether this request may count at all. */
export type Verify = (site: Site | null) => ApiError | null;

interface Waiter {
  verify: Verify;
  session?: SessionAsk;
  resolve: (a: Admitted) => void;
  reject: (e: unknown) => void;
}

/** Admits searches within each site's per-minute and monthly limits. */
export class SearchQuota {
  private queues = new Map<string, Waiter[]>();
  /** KV round trips made, for the benchmark's figures. */
  stats = { batches: 0, commits: 0, conflicts: 0, admitted: 0, free: 0 };

  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** Resolves when admitted; rejects with the error that refused it. */
  admit(siteId: string, verify: Verify, session?: SessionAsk): Promise<Admitted> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(siteId);
      if (queue) return queue.push({ verify, session, resolve, reject });
      this.queues.set(siteId, [{ verify, session, resolve, reject }]);
      this.drain(siteId);
    });
  }

  private async drain(siteId: string) {
    const queue = this.queues.get(siteId)!;
    while (queue.length) {
      const batch = takeBatch(queue);
      try {
        await this.decide(siteId, batch);
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.queues.delete(siteId);
  }

  private async decide(siteId: string, batch: Waiter[]) {
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        if (await this.tryDecide(siteId, batch)) return;
      } catch (err) {
        // Two processes on one local KV file: SQLite says "locked" where Deploy's KV would conflict.
        if (!isLocked(err)) throw err;
        await new Promise((r) => setTimeout(r, 2 + Math.random() * 10));
      }
    }
    throw busy("Too much contention on the quota. Retry.");
  }

  /** One read-decide-commit round; false when another writer won the race. */
  private async tryDecide(siteId: string, batch: Waiter[]): Promise<boolean> {
    const now = this.clock();
    const min = minuteWindow(now);
    const mon = monthWindow(now);
    this.stats.batches++;
    const [[siteE, minE, monE], sessions] = await Promise.all([
      this.kv.getMany<[Site, number, number]>([
        ["site", siteId],
        minuteKey(siteId, min.id),
        monthKey(siteId, mon.id),
      ]),
      this.sessions(siteId, batch),
    ]);
    const site = siteE.value;
    const limits = site ? effectiveLimits(site.plan, site.limits) : null;
    let minuteUsed = minE.value ?? 0, monthUsed = monE.value ?? 0;
    const touched = new Set<string>();
    const outcomes = batch.map((w) => {
      const refused = w.verify(site);
      if (refused || !site || !limits) {
        return refused ?? new ApiError("INVALID_API_KEY", "The search key is not valid.");
      }
      const state = (): QuotaState => ({
        limits,
        minute: { used: minuteUsed, resetIn: min.resetIn },
        month: { used: monthUsed, resetIn: mon.resetIn, resetsAt: mon.resetsAt.toISOString() },
      });
      const ses = w.session && sessions.get(w.session.id)!;
      const prev = ses?.state;
      if (
        ses && prev && now - prev.at < SESSION.lifeMs && prev.free < SESSION.refinements &&
        refines(prev.q, w.session!.q)
      ) {
        ses.state = { q: w.session!.q, at: prev.at, free: prev.free + 1 };
        touched.add(w.session!.id);
        return { site, state: state(), counted: false } satisfies Admitted;
      }
      if (limits.perMonth !== null && monthUsed >= limits.perMonth) {
        const s = state();
        return rateLimited("MONTHLY_SEARCH_QUOTA_EXCEEDED", s, mon.resetIn, mon.resetsAt);
      }
      if (minuteUsed >= limits.perMinute) {
        return rateLimited("SEARCH_RATE_LIMIT_EXCEEDED", state(), min.resetIn);
      }
      minuteUsed++, monthUsed++;
      if (ses) {
        ses.state = { q: w.session!.q, at: now, free: 0 };
        touched.add(w.session!.id);
      }
      return { site, state: state(), counted: true } satisfies Admitted;
    });
    const admitted = outcomes.filter((o) => !(o instanceof ApiError)).length;
    if (admitted > 0) {
      this.stats.commits++;
      const op = this.kv.atomic().check(siteE, minE, monE)
        .set(minuteKey(siteId, min.id), minuteUsed, { expireIn: 120_000 })
        .set(monthKey(siteId, mon.id), monthUsed, { expireIn: 40 * 86_400_000 });
      for (const id of touched) {
        const ses = sessions.get(id)!;
        op.check(ses.entry).set(sessionKey(siteId, id), ses.state, {
          expireIn: SESSION.lifeMs + 5_000,
        });
      }
      if (!(await op.commit()).ok) {
        this.stats.conflicts++;
        return false;
      }
      this.stats.admitted += admitted;
      this.stats.free += outcomes.filter((o) => !(o instanceof ApiError) && !o.counted).length;
    }
    outcomes.forEach((o, i) =>
      o instanceof ApiError ? batch[i].reject(o) : batch[i].resolve(o as Admitted)
    );
    return true;
  }

  /** The stored state of every session the batch names, read ten keys at a time. */
  private async sessions(siteId: string, batch: Waiter[]) {
    const ids = [...new Set(batch.flatMap((w) => w.session ? [w.session.id] : []))];
    const out = new Map<string, { entry: Deno.KvEntryMaybe<SessionState>; state?: SessionState }>();
    const chunks = [];
    for (let i = 0; i < ids.length; i += 10) chunks.push(ids.slice(i, i + 10));
    const read = await Promise.all(
      chunks.map((c) => this.kv.getMany<SessionState[]>(c.map((id) => sessionKey(siteId, id)))),
    );
    read.flat().forEach((entry, i) => out.set(ids[i], { entry, state: entry.value ?? undefined }));
    return out;
  }

  /** Current use, for the usage endpoint. */
  async usage(siteId: string) {
    const now = this.clock();
    const [m, M] = await this.kv.getMany<[number, number]>([
      minuteKey(siteId, minuteWindow(now).id),
      monthKey(siteId, monthWindow(now).id),
    ]);
    return { minute: m.value ?? 0, month: M.value ?? 0 };
  }
}

/** The next group from a site's queue: at most 500 requests naming at most 60 sessions. */
function takeBatch(queue: Waiter[]): Waiter[] {
  const ids = new Set<string>();
  let n = 0;
  for (; n < queue.length && n < 500; n++) {
    const id = queue[n].session?.id;
    if (id === undefined || ids.has(id)) continue;
    if (ids.size === SESSIONS_PER_BATCH) break;
    ids.add(id);
  }
  return queue.splice(0, n);
}

function rateLimited(
  code: "MONTHLY_SEARCH_QUOTA_EXCEEDED" | "SEARCH_RATE_LIMIT_EXCEEDED",
  state: QuotaState,
  retryAfter: number,
  resetsAt?: Date,
): ApiError {
  const message = code === "SEARCH_RATE_LIMIT_EXCEEDED"
    ? `Search limit of ${state.limits.perMinute} per minute reached. Retry in ${retryAfter} s.`
    : `Monthly search quota of ${state.limits.perMonth} reached. It resets on ${
      resetsAt!.toISOString().slice(0, 10)
    }.`;
  return new ApiError(code, message, {
    retryAfter,
    resetsAt: resetsAt?.toISOString(),
    headers: { ...rateLimitHeaders(state), "Retry-After": String(retryAfter) },
  });
}

/** The RateLimit-Policy and RateLimit headers of API.md. */
export function rateLimitHeaders(s: QuotaState): Record<string, string> {
  const policies = [`"minute";q=${s.limits.perMinute};w=60`];
  const minuteLeft = Math.max(0, s.limits.perMinute - s.minute.used);
  let closest = `"minute";r=${minuteLeft};t=${s.minute.resetIn}`;
  if (s.limits.perMonth !== null) {
    policies.push(`"month";q=${s.limits.perMonth};w=2592000`);
    const monthLeft = Math.max(0, s.limits.perMonth - s.month.used);
    if (monthLeft < minuteLeft) closest = `"month";r=${monthLeft};t=${s.month.resetIn}`;
  }
  return { "RateLimit-Policy": policies.join(", "), "RateLimit": closest };
}
