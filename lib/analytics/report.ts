/** The analytics report of docs/api.md: per-day totals, top and empty queries, clicks, feedback. */
import type { Clock } from "../clock.ts";
import type { DayRow, QueryCountRow, TopQueryRow } from "../wire_types.ts";
import { dayOf, type Metric, METRICS } from "./keys.ts";
import { type FeedbackSummary, feedbackSummary } from "./feedback.ts";

/** The longest period a report covers (docs/api.md: N ≤ 90), and the period when none is asked. */
export const MAX_DAYS = 90;
export const DEFAULT_DAYS = 30;
/** Rows a query list holds at most (docs/api.md: limit ≤ 1,000), and when none is asked. */
export const MAX_LIMIT = 1_000;
export const DEFAULT_LIMIT = 20;
/** Typed forms weighed per query while reading (typed_forms.ts bounds them as written). */
const FORMS_READ = 16;

export type { DayRow, QueryCountRow, TopQueryRow };

export interface AnalyticsReport {
  days: DayRow[];
  topQueries: TopQueryRow[];
  noResultQueries: QueryCountRow[];
  /** Queries whose searches found pages and whose results nobody clicked. */
  noClickQueries: QueryCountRow[];
  clicks: { count: number; ctr: number; averagePosition: number | null };
  feedback: FeedbackSummary;
  /** AI answers over the window: asked (delivered), answered, abstained, pinned, votes. */
  answers: {
    asked: number;
    answered: number;
    abstained: number;
    sentencesRemoved: number;
    pinned: number;
    helpful: number;
    unhelpful: number;
  };
}

const num = (v: unknown) => v instanceof Deno.KvU64 ? Number(v.value) : 0;
const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

/** The last `days` UTC days up to today, oldest first. */
export function dayRange(now: number, days: number): string[] {
  const today = Date.parse(dayOf(now));
  return Array.from({ length: days }, (_, i) => dayOf(today - (days - 1 - i) * 86_400_000));
}

/** One normalised query's counts over the window, and its typed forms' counts. */
interface QueryCounts {
  count: number;
  noResults: number;
  clicks: number;
  forms?: Map<string, number>;
}

/** The form a query is shown in: the one typed most (the normalised one where no other is). */
function shown(query: string, q: QueryCounts): string {
  if (!q.forms) return query;
  let best = query, most = q.count - [...q.forms.values()].reduce((n, c) => n + c, 0);
  for (const [form, n] of q.forms) {
    if (n > most || (n === most && best !== query && form < best)) [best, most] = [form, n];
  }
  return best;
}

/**
 * Reads a site's counts for the last `days` days (one range read, plus the feedback); each
 * query list holds `limit` rows at most.
 */
export async function analyticsReport(
  kv: Deno.Kv,
  clock: Clock,
  siteId: string,
  days: number,
  limit = DEFAULT_LIMIT,
): Promise<AnalyticsReport> {
  const range = dayRange(clock(), days);
  const totals = new Map(range.map((d) => [d, {} as Partial<Record<Metric, number>>]));
  const queries = new Map<string, QueryCounts>();
  const of = (query: string) => {
    let q = queries.get(query);
    if (!q) queries.set(query, q = { count: 0, noResults: 0, clicks: 0 });
    return q;
  };
  const end = dayOf(Date.parse(range.at(-1)!) + 86_400_000);
  const feedback = feedbackSummary(kv, siteId, Date.parse(range[0]));
  for await (const e of kv.list({ start: ["an", siteId, range[0]], end: ["an", siteId, end] })) {
    const [, , day, kind, name, form] = e.key as string[];
    const n = num(e.value);
    if (kind === "t" && (METRICS as readonly string[]).includes(name)) {
      const row = totals.get(day);
      if (row) row[name as Metric] = (row[name as Metric] ?? 0) + n;
    } else if (kind === "q") of(name).count += n;
    else if (kind === "z") of(name).noResults += n;
    else if (kind === "k") of(name).clicks += n;
    else if (kind === "f" && typeof form === "string") {
      const q = of(name);
      q.forms ??= new Map();
      if (q.forms.has(form) || q.forms.size < FORMS_READ) {
        q.forms.set(form, (q.forms.get(form) ?? 0) + n);
      }
    }
  }
  const rows = range.map((date) => {
    const t = totals.get(date)!;
    return {
      date,
      searches: t.searches ?? 0,
      answers: t.answers ?? 0,
      noResults: t.noResults ?? 0,
    };
  });
  const sum = (m: Metric) => [...totals.values()].reduce((n, t) => n + (t[m] ?? 0), 0);
  const votes = await feedback;
  const searches = sum("searches"), clicks = sum("clicks");
  const byCount = <T extends { count: number; query: string }>(a: T, b: T) =>
    b.count - a.count || a.query.localeCompare(b.query);
  // Sorted by the normalised query, shown in the typed form: the order is the same either way.
  const all = [...queries].filter(([, q]) => q.count > 0);
  const top = <T extends { count: number; query: string }>(rows: T[]) =>
    rows.sort(byCount).slice(0, limit).map((r) => ({
      ...r,
      query: shown(r.query, queries.get(r.query)!),
    }));
  return {
    days: rows,
    topQueries: top(all.map(([query, q]) => ({
      query,
      count: q.count,
      noResults: q.noResults,
      clicks: q.clicks,
      ctr: round(q.clicks / q.count, 4),
    }))),
    noResultQueries: top(
      all.filter(([, q]) => q.noResults > 0).map(([query, q]) => ({ query, count: q.noResults })),
    ),
    noClickQueries: top(
      all.filter(([, q]) => q.clicks === 0 && q.count > q.noResults)
        .map(([query, q]) => ({ query, count: q.count - q.noResults })),
    ),
    clicks: {
      count: clicks,
      ctr: searches ? round(clicks / searches, 4) : 0,
      averagePosition: clicks ? round(sum("clickPositions") / clicks, 2) : null,
    },
    feedback: votes,
    answers: {
      asked: sum("answers"),
      answered: sum("answered"),
      abstained: sum("abstained"),
      sentencesRemoved: sum("sentencesRemoved"),
      pinned: sum("pinned"),
      helpful: votes.helpful,
      unhelpful: votes.unhelpful,
    },
  };
}
