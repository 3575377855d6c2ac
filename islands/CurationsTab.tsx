/// <reference lib="dom" />
/** The curations tab: the site's list with its warnings, and a form with a live preview. */
import { useState } from "preact/hooks";
import { LeverPreview } from "./LeverPreview.tsx";
import { LeverRows } from "./LeverRows.tsx";
import { QueryMatchFields } from "./QueryMatchFields.tsx";
import { type CurationDraft, items, type Limits, type PinWarning } from "./levers_api.ts";
import { usePreview } from "./use_preview.ts";

export function CurationsTab(
  p: {
    siteId: string;
    list: CurationDraft[];
    warnings: PinWarning[];
    limits: Limits;
    save: (next: CurationDraft[]) => Promise<boolean>;
  },
) {
  const [query, setQuery] = useState("");
  const [contains, setContains] = useState(false);
  const [pins, setPins] = useState("");
  const [hides, setHides] = useState("");
  const draft: CurationDraft | null = query.trim()
    ? {
      query: query.trim(),
      match: contains ? "contains" : "exact",
      pin: items(pins),
      hide: items(hides),
    }
    : null;
  const full = p.list.length >= p.limits.curations;
  const { value, error } = usePreview(
    p.siteId,
    query,
    draft ? { curations: [...p.list, draft] } : null,
  );
  const add = async (e: Event) => {
    e.preventDefault();
    if (!draft || error) return;
    if (await p.save([...p.list, draft])) [setQuery, setPins, setHides].forEach((f) => f(""));
  };
  return (
    <div>
      {p.warnings.map((w) => (
        <p key={`${w.curation} ${w.url}`} class="status error" data-warning>{w.message}</p>
      ))}
      <LeverRows
        label="Curations"
        empty="No curations yet."
        list={p.list}
        save={p.save}
        row={(c) => (
          <>
            <strong>{c.query}</strong> <span class="muted">({c.match})</span>
            {c.pin.length ? <span class="path">Pinned: {c.pin.join(", ")}</span> : null}
            {c.hide.length ? <span class="path">Hidden: {c.hide.join(", ")}</span> : null}
          </>
        )}
      />
      <form class="lever-form" onSubmit={add} aria-label="Add a curation">
        <QueryMatchFields
          id="cur-query"
          label="Query"
          placeholder="refund"
          containsLabel="Also queries that contain it"
          query={query}
          setQuery={setQuery}
          contains={contains}
          setContains={setContains}
        />
        <div class="field">
          <label for="cur-pin">
            Pin these pages first, in order (paths, comma-separated; at most {p.limits.pins})
          </label>
          <input
            id="cur-pin"
            value={pins}
            onInput={(e) => setPins(e.currentTarget.value)}
            placeholder="/support/refunds"
          />
        </div>
        <div class="field">
          <label for="cur-hide">Hide these pages (at most {p.limits.hides})</label>
          <input
            id="cur-hide"
            value={hides}
            onInput={(e) => setHides(e.currentTarget.value)}
            placeholder="/old/refunds"
          />
        </div>
        {error ? <p class="status error" role="alert" data-field-error>{error}</p> : null}
        <LeverPreview q={query} value={value} />
        <p class="actions">
          <button type="submit" class="button primary" disabled={!draft || !!error || full}>
            Add curation
          </button>
        </p>
      </form>
    </div>
  );
}
