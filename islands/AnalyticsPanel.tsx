/// <reference lib="dom" />
/** What visitors search for: top and empty queries, clicks, and the answers' feedback. */
import { useState } from "preact/hooks";
import { requestJson } from "./api.ts";
import { adminPath, failure, fmt, Panel, Status, type StatusValue } from "./ui.tsx";

export interface Report {
  days: { date: string; searches: number; answers: number; noResults: number }[];
  topQueries: { query: string; count: number; noResults: number }[];
  noResultQueries: { query: string; count: number }[];
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
    recent: {
      conversationId: string;
      turn: number;
      question?: string;
      helpful: boolean;
      comment: string;
      at: string;
    }[];
  };
}

const RANGES = [7, 30, 90];

function QueryTable(
  { caption, rows, empty }: {
    caption: string;
    rows: { query: string; count: number; extra?: number }[];
    empty: string;
  },
) {
  if (!rows.length) return <p class="muted">{empty}</p>;
  return (
    <table class="table">
      <caption class="sr-only">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Query</th>
          <th scope="col" class="num">Searches</th>
          {rows[0].extra !== undefined ? <th scope="col" class="num">No results</th> : null}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr>
            <td class="query">{r.query}</td>
            <td class="num">{fmt(r.count)}</td>
            {r.extra !== undefined ? <td class="num">{fmt(r.extra)}</td> : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `note` says what "Searches" counts, beside the quota's count (text from the server). */
export function AnalyticsPanel(p: { siteId: string; report: Report; days: number; note: string }) {
  const [report, setReport] = useState(p.report);
  const [days, setDays] = useState(p.days);
  const [status, setStatus] = useState<StatusValue>(null);
  const load = async (n: number) => {
    setDays(n);
    setStatus({ kind: "busy", text: "Loading…" });
    try {
      setReport(await requestJson<Report>(adminPath(p.siteId, `/analytics?days=${n}`)));
      setStatus(null);
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  const searches = report.days.reduce((n, d) => n + d.searches, 0);
  const answers = report.days.reduce((n, d) => n + d.answers, 0);
  const noResults = report.days.reduce((n, d) => n + d.noResults, 0);
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
            onChange={(e) => load(Number((e.target as HTMLSelectElement).value))}
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
      <div class="columns">
        <div>
          <h3>Top queries</h3>
          <QueryTable
            caption="Top queries"
            rows={report.topQueries.map((q) => ({
              query: q.query,
              count: q.count,
              extra: q.noResults,
            }))}
            empty="No searches yet."
          />
        </div>
        <div>
          <h3>Queries with no results</h3>
          <QueryTable
            caption="Queries with no results"
            rows={report.noResultQueries}
            empty="None: every search found something."
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
      {report.feedback.recent.length
        ? (
          <ul class="comments">
            {report.feedback.recent.map((r) => (
              <li>
                <span aria-label={r.helpful ? "helpful" : "not helpful"}>
                  {r.helpful ? "👍" : "👎"}
                </span>{" "}
                {r.question ? <q class="comment-question">{r.question}</q> : null} {r.comment}
                <time class="muted" dateTime={r.at}>{r.at.slice(0, 10)}</time>
              </li>
            ))}
          </ul>
        )
        : <p class="muted">No comments yet.</p>}
    </Panel>
  );
}
