/// <reference lib="dom" />
/** Usage against the plan: meters for searches and AI credits, and a chart of searches per day. */
import { useEffect, useState } from "preact/hooks";
import type { DayRow } from "../lib/wire_types.ts";
import { requestJson } from "./api.ts";
import { adminPath, fmt, Panel } from "./ui.tsx";

interface Counted {
  used: number;
  limit: number | null;
}

export interface Usage {
  plan: string;
  minute: Counted;
  month: Counted;
  aiCredits: Counted;
  pages: { count: number; limit: number };
}

const POLL_MS = 3_000;

function Meter({ id, label, c, note }: { id: string; label: string; c: Counted; note?: string }) {
  return (
    <div class="meter">
      <div class="meter-label">
        <span id={id}>{label}</span>
        <span class="meter-value" data-meter={id}>
          {fmt(c.used)} {c.limit === null ? "(unlimited)" : `of ${fmt(c.limit)}`}
        </span>
      </div>
      {c.limit === null ? <div class="meter-none" /> : (
        <meter
          aria-labelledby={id}
          aria-describedby={note}
          min={0}
          max={Math.max(c.limit, 1)}
          low={c.limit * 0.7}
          high={c.limit * 0.9}
          optimum={0}
          value={c.used}
        />
      )}
    </div>
  );
}

/** "2026-11-03" as "Nov 3". */
export const shortDate = (date: string) =>
  new Date(date).toLocaleDateString("en", { month: "short", day: "numeric", timeZone: "UTC" });

/** The smallest of 1, 2, 5 × 10ⁿ at or above `n`: the top of the count axis. */
export function axisTop(n: number): number {
  const step = 10 ** Math.floor(Math.log10(Math.max(n, 1)));
  return [1, 2, 5, 10].map((m) => m * step).find((v) => v >= n) ?? n;
}

/** Every date of the month `date` ("2026-12-02") falls in, as "2026-12-01" … "2026-12-31". */
function monthDays(date: string): string[] {
  const [y, m] = date.split("-").map(Number);
  const n = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return Array.from(
    { length: n },
    (_, i) => `${date.slice(0, 8)}${String(i + 1).padStart(2, "0")}`,
  );
}

/**
 * Finished searches (bars) and AI answers (narrow bars) per day, as an SVG with a text
 * alternative. The axes are HTML beside it, so their text keeps its size at any width.
 */
function DayChart({ days }: { days: DayRow[] }) {
  const w = 600, h = 140;
  const total = days.reduce((n, d) => n + d.searches, 0);
  const answers = days.reduce((n, d) => n + d.answers, 0);
  // At least 2, so that the middle gridline (app.css) has a whole number.
  const top = axisTop(Math.max(2, ...days.map((d) => Math.max(d.searches, d.answers))));
  // The month's every day has its slot, so its first day is one bar at the left, not a block.
  const slots = Math.max(days.length, days[0] ? monthDays(days[0].date).length : 1);
  const step = w / slots;
  const month = days[0] ? monthDays(days[0].date) : [];
  const marks = month.length > 2
    ? [month[0], month[Math.floor((month.length - 1) / 2)], month[month.length - 1]]
    : days.map((d) => d.date);
  const empty = total === 0 && answers === 0;
  return (
    <figure class="chart">
      <div class="chart-grid">
        <div class="y-axis" aria-hidden="true">
          {[top, top / 2, 0].map((v) => <span key={v}>{fmt(v)}</span>)}
        </div>
        <div class="plot">
          <svg
            viewBox={`0 0 ${w} ${h}`}
            role="img"
            aria-label={`This month: ${fmt(total)} finished searches, ${fmt(answers)} AI answers.`}
            preserveAspectRatio="none"
          >
            {days.map((d, i) => {
              const bh = (d.searches / top) * h;
              const ah = (d.answers / top) * h;
              return (
                <g key={d.date}>
                  <title>
                    {`${shortDate(d.date)}: ${d.searches} searches, ${d.answers} answers`}
                  </title>
                  <rect
                    class="bar"
                    x={i * step + 1}
                    y={h - bh}
                    width={Math.max(step - 2, 1)}
                    height={bh}
                  />
                  <rect
                    class="bar answers"
                    x={i * step + step / 4}
                    y={h - ah}
                    width={Math.max(step / 2, 1)}
                    height={ah}
                  />
                </g>
              );
            })}
          </svg>
          {empty
            ? (
              <p class="chart-empty">
                No searches yet this month.
              </p>
            )
            : null}
        </div>
        <div class="x-axis" aria-hidden="true">
          {marks.map((d) => <span key={d}>{shortDate(d)}</span>)}
        </div>
      </div>
      <figcaption>
        <span class="key searches" /> Finished searches <span class="key answers" />{" "}
        AI answers, per day
      </figcaption>
    </figure>
  );
}

/** `note` says what the month's count counts, beside Analytics' (text from the server). */
export function UsageMeters(p: { siteId: string; usage: Usage; days: DayRow[]; note: string }) {
  const [usage, setUsage] = useState(p.usage);
  const [days, setDays] = useState(p.days);
  useEffect(() => {
    let stop = false;
    const tick = async () => {
      if (stop) return;
      if (document.visibilityState === "visible") {
        try {
          setUsage(await requestJson<Usage>(adminPath(p.siteId, "/usage")));
          const report = await requestJson<{ days: DayRow[] }>(
            adminPath(p.siteId, `/analytics?days=${p.days.length || 1}`),
          );
          setDays(report.days);
        } catch { /* kept as it was; the next tick retries */ }
      }
      setTimeout(tick, POLL_MS);
    };
    const first = setTimeout(tick, POLL_MS);
    return () => (stop = true, clearTimeout(first));
  }, []);
  return (
    <Panel id="usage" title="Usage" wide>
      <div class="meters">
        <Meter id="m-minute" label="Searches this minute" c={usage.minute} />
        <Meter id="m-month" label="Searches this month" c={usage.month} note="month-note" />
        <Meter id="m-credits" label="AI credits this month" c={usage.aiCredits} />
        <Meter
          id="m-pages"
          label="Pages indexed"
          c={{ used: usage.pages.count, limit: usage.pages.limit }}
        />
      </div>
      <p class="hint" id="month-note">{p.note}</p>
      <DayChart days={days} />
    </Panel>
  );
}
