/// <reference lib="dom" />
/** What visitors search for: top and empty queries, clicks, and the answers' feedback. */
import { useState } from "preact/hooks";
import { requestJson } from "./api.ts";
import { adminPath, failure, fmt, Panel, Status, type StatusValue } from "./ui.tsx";
import type { DayRow, QueryCountRow, TopQueryRow } from "../lib/wire_types.ts";

export interface Report {
  days: DayRow[];
  topQueries: TopQueryRow[];
  noResultQueries: QueryCountRow[];
  /** Absent from a server that does not list them yet. */
  noClickQueries?: QueryCountRow[];
  clicks: { count: number; ctr: number; averagePosition: number | null };
  /** Absent from a server that does not count them yet. */
  answers?: {
    asked: number;
    answered: number;
    abstained: number;
    sentencesRemoved: number;
    pinned: number;
  };
  feedback: {
    helpful: number;
    unhelpful: number;
    recent: Comment[];
  };
}

interface Comment {
  conversationId: string;
  turn: number;
  question?: string;
  helpful: boolean;
  comment: string;
  at: string;
}

const RANGES = [7, 30, 90];
/** Rows each list shows first, and at most (the API's limit). */
const FIRST_ROWS = 20;
const MAX_ROWS = 1_000;
/** Days the chart has room for at least: a day's bar never fills the width on its own. */
const MIN_SLOTS = 14;

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

/** A table of queries with number columns; "Show more" when the list may hold more. */
function QueryTable<T extends { query: string }>(
  { caption, rows, empty, columns, more }: {
    caption: string;
    rows: T[];
    empty: string;
    columns: [string, (r: T) => string][];
    more?: () => void;
  },
) {
  if (!rows.length) return <p class="muted">{empty}</p>;
  return (
    <>
      <table class="table query-table">
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Query</th>
            {columns.map(([label]) => <th key={label} scope="col" class="num">{label}</th>)}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr>
              <td class="query">{r.query}</td>
              {columns.map(([label, value]) => <td key={label} class="num">{value(r)}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
      {more
        ? (
          <button type="button" class="button small show-more" onClick={more}>
            Show more
          </button>
        )
        : null}
    </>
  );
}

/**
 * Searches per day as bars, newest on the right. Each day has at most a fourteenth of the
 * width, so one day of data is one bar, not a block; 90 days narrow the bars instead.
 */
function SearchChart({ days }: { days: DayRow[] }) {
  const top = Math.max(1, ...days.map((d) => d.searches));
  const total = days.reduce((n, d) => n + d.searches, 0);
  // Drawn in SVG attributes: the dashboard's CSP allows no inline styles.
  const w = 700, h = 120, step = w / Math.max(days.length, MIN_SLOTS);
  const left = w - days.length * step;
  const first = days[0], last = days.at(-1);
  return (
    <figure class="an-chart">
      <div class="an-bars">
        <span class="an-top" aria-hidden="true">{fmt(top)}</span>
        <svg
          viewBox={`0 0 ${w} ${h}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={`${fmt(total)} searches in ${days.length} days, at most ${fmt(top)} a day.`}
        >
          {days.map((d, i) => (
            <rect
              key={d.date}
              class="an-bar"
              x={left + i * step + step * 0.15}
              y={h - (d.searches / top) * h}
              width={step * 0.7}
              height={(d.searches / top) * h}
            >
              <title>
                {`${d.date}: ${fmt(d.searches)} searches, ${fmt(d.noResults)} with no results`}
              </title>
            </rect>
          ))}
        </svg>
      </div>
      {first && last
        ? (
          <figcaption class="an-axis">
            <span>{first.date}</span>
            <span>Searches per day</span>
            <span>{last.date}</span>
          </figcaption>
        )
        : null}
    </figure>
  );
}

/** Comments on AI answers: those voted not helpful first, each with the question it answered. */
function Feedback({ recent, unhelpful }: { recent: Comment[]; unhelpful: number }) {
  const down = recent.filter((r) => !r.helpful), up = recent.filter((r) => r.helpful);
  const item = (r: Comment) => (
    <li>
      <span class="comment-body">
        <span class="comment-question">
          {r.question ? <q>{r.question}</q> : <span class="muted">Question not kept</span>}
        </span>
        <span>{r.comment}</span>
      </span>
      <time class="muted" dateTime={r.at}>{r.at.slice(0, 10)}</time>
    </li>
  );
  const silent = unhelpful - down.length;
  return (
    <>
      <h4>Answers voted not helpful</h4>
      {down.length ? <ul class="comments" data-feedback="unhelpful">{down.map(item)}</ul> : null}
      {silent > 0
        ? (
          <p class="muted">
            {down.length ? `${fmt(silent)} more` : fmt(silent)} {silent === 1 ? "vote" : "votes"}
            {" "}
            without a comment, which keeps no question.
          </p>
        )
        : null}
      {!unhelpful ? <p class="muted">None in this period.</p> : null}
      {up.length
        ? (
          <>
            <h4>Comments on helpful answers</h4>
            <ul class="comments" data-feedback="helpful">{up.map(item)}</ul>
          </>
        )
        : null}
    </>
  );
}

/** `note` says what "Searches" counts, beside the quota's count (text from the server). */
export function AnalyticsPanel(p: { siteId: string; report: Report; days: number; note: string }) {
  const [report, setReport] = useState(p.report);
  const [days, setDays] = useState(p.days);
  const [limit, setLimit] = useState(FIRST_ROWS);
  const [status, setStatus] = useState<StatusValue>(null);
  const load = async (n: number, rows = limit) => {
    setDays(n);
    setStatus({ kind: "busy", text: "Loading…" });
    try {
      const query = `/analytics?days=${n}&limit=${rows}`;
      setReport(await requestJson<Report>(adminPath(p.siteId, query)));
      setLimit(rows);
      setStatus(null);
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  /** "Show more" under a list that filled its limit: all lists grow (one limit sizes them). */
  const more = (rows: unknown[]) =>
    rows.length >= limit && limit < MAX_ROWS
      ? () => load(days, Math.min(MAX_ROWS, limit * 2))
      : undefined;
  const searches = report.days.reduce((n, d) => n + d.searches, 0);
  const answers = report.days.reduce((n, d) => n + d.answers, 0);
  const noResults = report.days.reduce((n, d) => n + d.noResults, 0);
  const noClicks = report.noClickQueries ?? [];
  const stats: [string, string, string][] = [
    ["searches", "Searches", fmt(searches)],
    ["noresults", "With no results", fmt(noResults)],
    ["answers", "AI answers", fmt(answers)],
    ["clicks", "Result clicks", fmt(report.clicks.count)],
    ["ctr", "Click-through rate", `${(report.clicks.ctr * 100).toFixed(1)}%`],
    ["position", "Average position clicked", report.clicks.averagePosition?.toFixed(1) ?? "–"],
  ];
  return (
    <Panel
      id="analytics"
      title="Analytics"
      wide
      actions={
        <div class="actions">
          <label class="sr-only" for="analytics-days">Period</label>
          <select
            id="analytics-days"
            value={String(days)}
            onChange={(e) => load(Number((e.target as HTMLSelectElement).value), FIRST_ROWS)}
          >
            {RANGES.map((n) => <option key={n} value={String(n)}>Last {n} days</option>)}
          </select>
          <button type="button" class="button small" onClick={() => load(days)}>Refresh</button>
        </div>
      }
    >
      <Status value={status} />
      <dl class="stats">
        {stats.map(([id, label, value]) => (
          <div>
            <dt aria-describedby={id === "searches" ? "searches-note" : undefined}>{label}</dt>
            <dd data-stat={id}>{value}</dd>
          </div>
        ))}
      </dl>
      <p class="hint" id="searches-note">{p.note}</p>
      <SearchChart days={report.days} />
      <h3>Top queries</h3>
      <QueryTable
        caption="Top queries"
        rows={report.topQueries}
        columns={[
          ["Searches", (r) => fmt(r.count)],
          ["No results", (r) => fmt(r.noResults)],
          ["Clicks", (r) => fmt(r.clicks ?? 0)],
          ["CTR", (r) => percent(r.ctr ?? 0)],
        ]}
        empty="No searches yet."
        more={more(report.topQueries)}
      />
      <div class="columns">
        <div>
          <h3>Queries with no results</h3>
          <QueryTable
            caption="Queries with no results"
            rows={report.noResultQueries}
            columns={[["Searches", (r) => fmt(r.count)]]}
            empty="None: every search found something."
            more={more(report.noResultQueries)}
          />
        </div>
        <div>
          <h3>Queries with no clicks</h3>
          <p class="hint">Their searches found pages, and nobody clicked one.</p>
          <QueryTable
            caption="Queries with no clicks"
            rows={noClicks}
            columns={[["Searches", (r) => fmt(r.count)]]}
            empty="None: every query that found pages had a click."
            more={more(noClicks)}
          />
        </div>
      </div>
      {report.answers && (
        <>
          <h3>AI answers</h3>
          <p class="feedback-counts" data-stat="answers">
            <span>{fmt(report.answers.asked)} asked</span>{" "}
            <span>{fmt(report.answers.answered)} answered from the site</span>{" "}
            <span>{fmt(report.answers.abstained)} not on the site</span>{" "}
            <span>{fmt(report.answers.pinned)} pinned</span>{" "}
            <span>{fmt(report.answers.sentencesRemoved)} unsupported sentences removed</span>
          </p>
        </>
      )}
      <h3>Answer feedback</h3>
      <p class="feedback-counts">
        <span data-stat="helpful">{fmt(report.feedback.helpful)} helpful</span>{" "}
        <span data-stat="unhelpful">{fmt(report.feedback.unhelpful)} not helpful</span>
      </p>
      <Feedback recent={report.feedback.recent} unhelpful={report.feedback.unhelpful} />
    </Panel>
  );
}
