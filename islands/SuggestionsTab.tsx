/// <reference lib="dom" />
/** Suggested fixes from the site's analytics: Apply writes one and shows the query's new results. */
import { useEffect, useState } from "preact/hooks";
import { LeverPreview } from "./LeverPreview.tsx";
import {
  type CurationDraft,
  dismiss,
  type Preview,
  previewLevers,
  type Suggestion,
  type SynonymDraft,
} from "./levers_api.ts";
import { jsonBody, requestJson } from "./api.ts";
import { adminPath, failure, Status, type StatusValue } from "./ui.tsx";
import type { AnySuggestion, GapSuggestion } from "../lib/wire_types.ts";

/** The suggestions with the gaps to fill (pages to write), which nothing here applies. */
const fetchAll = (siteId: string) =>
  requestJson<{ suggestions: AnySuggestion[] }>(adminPath(siteId, "/suggestions"));
const dismissGap = (siteId: string, g: GapSuggestion) =>
  requestJson<null>(
    adminPath(siteId, "/suggestions/dismissed"),
    jsonBody("POST", { kind: "gap", query: g.query }),
  );

export function SuggestionsTab(
  p: {
    siteId: string;
    synonyms: SynonymDraft[];
    curations: CurationDraft[];
    apply: (s: Suggestion) => Promise<boolean>;
  },
) {
  const [list, setList] = useState<AnySuggestion[] | null>(null);
  const [status, setStatus] = useState<StatusValue>(null);
  const [shown, setShown] = useState<{ q: string; value: Preview } | null>(null);
  useEffect(() => {
    fetchAll(p.siteId).then(
      (r) => setList(r.suggestions),
      (e) => setStatus({ kind: "error", text: failure(e) }),
    );
  }, []);
  const drop = (s: AnySuggestion) => setList((l) => (l ?? []).filter((x) => x !== s));
  const apply = async (s: Suggestion) => {
    // The results before and with the fix, read before it is saved: "Now" is then still true.
    const lists = s.kind === "synonym"
      ? { synonyms: [...p.synonyms, s.apply] }
      : { curations: [...p.curations, s.apply] };
    let value: Preview | null = null;
    try {
      value = await previewLevers(p.siteId, s.query, lists);
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
    if (!(await p.apply(s))) return;
    drop(s);
    if (value) setShown({ q: s.query, value });
  };
  const skip = async (s: AnySuggestion) => {
    try {
      await (s.kind === "gap" ? dismissGap(p.siteId, s) : dismiss(p.siteId, s));
      drop(s);
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  return (
    <div>
      <Status value={status} />
      {shown
        ? (
          <div class="notice" data-applied>
            <p>Applied. The first results for “{shown.q}”:</p>
            <LeverPreview q={shown.q} value={shown.value} />
          </div>
        )
        : null}
      {list === null ? <p class="muted">Loading suggestions…</p> : null}
      {list?.length === 0
        ? <p class="muted">No suggestions: nothing in the analytics calls for a fix.</p>
        : null}
      {list?.length
        ? (
          <ul class="rows" aria-label="Suggestions">
            {list.map((s) => (
              <li data-suggestion={s.kind}>
                <span class="row-main">
                  <strong>
                    {s.kind === "synonym"
                      ? `“${s.query}” → “${s.to}”`
                      : s.kind === "pin"
                      ? `Pin ${s.url} for “${s.query}”`
                      : `No page for “${s.query}”`}
                  </strong>
                  <span class="path muted">{s.why}</span>
                </span>
                <span class="row-actions">
                  {s.kind === "gap"
                    ? null
                    : (
                      <button type="button" class="button small primary" onClick={() => apply(s)}>
                        Apply
                      </button>
                    )}
                  <button type="button" class="button small" onClick={() => skip(s)}>
                    Dismiss
                  </button>
                </span>
              </li>
            ))}
          </ul>
        )
        : null}
    </div>
  );
}
