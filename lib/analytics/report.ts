/** The analytics report of docs/api.md: per-day totals, top and empty queries, clicks, feedback. */
import type { Clock } from "../clock.ts";
import type { DayRow } from "../wire_types.ts";
import { dayOf, type Metric, METRICS } from "./keys.ts";
import { type FeedbackSummary, feedbackSummary } from "./feedback.ts";

/** The longest period a report covers (docs/api.md: N ≤ 90), and the period when none is asked. */
export const MAX_DAYS = 90;
export const DEFAULT_DAYS = 30;
const TOP = 20;

export type { DayRow };

export interface AnalyticsReport {
  days: DayRow[];
  topQueries: { query: string; count: number; noResults: number }[];
  noResultQueries: { query: string; count: number }[];
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

/** Reads a site's counts for the last `days` days (one range read, plus the feedback). */
export async function analyticsReport(
  kv: Deno.Kv,
  clock: Clock,
  siteId: string,
  days: number,
): Promise<AnalyticsReport> {
  const range = dayRange(clock(), days);
  const totals = new Map(range.map((d) => [d, {} as Partial<Record<Metric, number>>]));
  const queries = new Map<string, { count: number; noResults: number }>();
  const end = dayOf(Date.parse(range.at(-1)!) + 86_400_000);
  const feedback = feedbackSummary(kv, siteId, Date.parse(range[0]));
  for await (const e of kv.list({ start: ["an", siteId, range[0]], end: ["an", siteId, end] })) {
    const [, , day, kind, name] = e.key as [string, string, string, string, string];
    const n = num(e.value);
    if (kind === "t" && (METRICS as readonly string[]).includes(name)) {
      const row = totals.get(day);
      if (row) row[name as Metric] = (row[name as Metric] ?? 0) + n;
    } else if (kind === "q" || kind === "z") {
      const q = queries.get(name) ?? { count: 0, noResults: 0 };
      if (kind === "q") q.count += n;
      else q.noResults += n;
      queries.set(name, q);
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
  const all = [...queries].map(([query, q]) => ({ query, ...q }));
  return {
    days: rows,
    topQueries: all.filter((q) => q.count > 0).sort(byCount).slice(0, TOP),
    noResultQueries: all.filter((q) => q.noResults > 0)
      .map(({ query, noResults }) => ({ query, count: noResults }))
      .sort(byCount).slice(0, TOP),
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
