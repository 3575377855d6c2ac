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

function Meter({ id, label, c }: { id: string; label: string; c: Counted }) {
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

/** Searches (bars) and answers (dots) per day, as an SVG with a text alternative. */
function DayChart({ days }: { days: DayRow[] }) {
  const w = 600, h = 140, pad = 4;
  const max = Math.max(1, ...days.map((d) => Math.max(d.searches, d.answers)));
  const step = (w - pad * 2) / Math.max(days.length, 1);
  const total = days.reduce((n, d) => n + d.searches, 0);
  const answers = days.reduce((n, d) => n + d.answers, 0);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${w} ${h}`}
        role="img"
        aria-label={`Searches per day this month: ${total} searches, ${answers} answers in all.`}
        preserveAspectRatio="none"
      >
        {days.map((d, i) => {
          const bh = (d.searches / max) * (h - 10);
          const ah = (d.answers / max) * (h - 10);
          return (
            <g>
              <title>{`${d.date}: ${d.searches} searches, ${d.answers} answers`}</title>
              <rect
                class="bar"
                x={pad + i * step + 1}
                y={h - bh}
                width={Math.max(step - 2, 1)}
                height={bh}
              />
              <rect
                class="bar answers"
                x={pad + i * step + step / 4}
                y={h - ah}
                width={Math.max(step / 2, 1)}
                height={ah}
              />
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="key searches" /> Searches <span class="key answers" />{" "}
        AI answers, per day since {days[0]?.date ?? "the 1st"}
      </figcaption>
    </figure>
  );
}

export function UsageMeters(p: { siteId: string; usage: Usage; days: DayRow[] }) {
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
        <Meter id="m-month" label="Searches this month" c={usage.month} />
        <Meter id="m-credits" label="AI credits this month" c={usage.aiCredits} />
        <Meter
          id="m-pages"
          label="Pages indexed"
          c={{ used: usage.pages.count, limit: usage.pages.limit }}
        />
      </div>
      <DayChart days={days} />
    </Panel>
  );
}
