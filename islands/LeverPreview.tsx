/// <reference lib="dom" />
/** A query's first results as searches show them now, beside the results with the draft. */
import type { Brief, Preview } from "./levers_api.ts";

function Column({ title, brief, id }: { title: string; brief: Brief; id: string }) {
  return (
    <div data-preview={id}>
      <h4>
        {title} <span class="muted">({brief.found} found)</span>
      </h4>
      {brief.results.length
        ? (
          <ol class="preview-list">
            {brief.results.slice(0, 5).map((r) => (
              <li>
                {r.title} <span class="muted path">{r.url}</span>
                {r.pinned ? <span class="badge">Pinned</span> : null}
              </li>
            ))}
          </ol>
        )
        : <p class="muted">Nothing found.</p>}
    </div>
  );
}

/** The two lists side by side, or nothing before the first preview. */
export function LeverPreview({ q, value }: { q: string; value: Preview | null }) {
  if (!value) return null;
  return (
    <div class="columns preview" aria-live="polite" aria-label={`Results for ${q}`}>
      <Column title="Before" brief={value.before} id="before" />
      <Column title="With this change" brief={value.after} id="after" />
    </div>
  );
}
