/// <reference lib="dom" />
/**
 * The curations tab: the site's list with its warnings, and one form with a live preview that
 * adds a curation or changes one in place (Edit). The draft is checked as it is typed: a query
 * curated already, a pinned page the site does not have or a section its page lacks are said
 * before anything is saved.
 */
import { useEffect, useState } from "preact/hooks";
import { LeverPreview } from "./LeverPreview.tsx";
import { LeverRows } from "./LeverRows.tsx";
import { QueryMatchFields } from "./QueryMatchFields.tsx";
import {
  type CurationDraft,
  items,
  leverQueryKey,
  type Limits,
  type PinWarning,
} from "./levers_api.ts";
import { usePreview } from "./use_preview.ts";

/** A warning of the draft's pin, in the words of the form. */
const draftWarning = (w: PinWarning) =>
  w.reason === "page_not_found"
    ? `${w.url} is not a page of the site: searches would skip this pin.`
    : `${w.url} is not a section of its page: the result would link the top of the page.`;

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
  /** The id of the stored curation open in the form, changed in place when saved. */
  const [editingId, setEditingId] = useState<string | null>(null);
  const editing = editingId === null ? -1 : p.list.findIndex((c) => c.id === editingId);
  // Removed (or undone) while open: the form goes back to adding.
  useEffect(() => {
    if (editingId !== null && editing < 0) setEditingId(null);
  }, [editingId, editing]);
  const match = contains ? "contains" : "exact";
  const twin = query.trim()
    ? p.list.findIndex((c, i) =>
      i !== editing && c.match === match && leverQueryKey(c.query) === leverQueryKey(query)
    )
    : -1;
  const draft: CurationDraft | null = query.trim()
    ? {
      ...(editing >= 0 ? { id: p.list[editing].id } : {}),
      query: query.trim(),
      match,
      pin: items(pins),
      hide: items(hides),
    }
    : null;
  const next = draft
    ? (editing >= 0 ? p.list.map((c, i) => i === editing ? draft : c) : [...p.list, draft])
    : null;
  const full = editing < 0 && p.list.length >= p.limits.curations;
  const { value, error } = usePreview(
    p.siteId,
    query,
    next && twin < 0 ? { curations: next } : null,
  );
  const fill = (c: CurationDraft | null) => {
    setQuery(c?.query ?? "");
    setContains(c?.match === "contains");
    setPins(c?.pin.join(", ") ?? "");
    setHides(c?.hide.join(", ") ?? "");
  };
  const edit = (i: number) => {
    setEditingId(p.list[i].id ?? null);
    fill(p.list[i]);
  };
  const done = () => {
    setEditingId(null);
    fill(null);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!next || error || twin >= 0) return;
    if (await p.save(next)) done();
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
        edit={edit}
        editing={editing}
        row={(c) => (
          <>
            <strong>{c.query}</strong> <span class="muted">({c.match})</span>
            {c.pin.length ? <span class="path">Pinned: {c.pin.join(", ")}</span> : null}
            {c.hide.length ? <span class="path">Hidden: {c.hide.join(", ")}</span> : null}
          </>
        )}
      />
      <form
        class="lever-form"
        onSubmit={submit}
        aria-label={editing >= 0 ? "Edit a curation" : "Add a curation"}
      >
        {editing >= 0
          ? (
            <p class="notice" data-editing>
              Changing the curation for “{p.list[editing].query}”.
            </p>
          )
          : null}
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
            Pin these pages first, in order (paths or sections like /guide#install, comma-separated;
            at most {p.limits.pins})
          </label>
          <input
            id="cur-pin"
            value={pins}
            onInput={(e) => setPins(e.currentTarget.value)}
            placeholder="/support/refunds"
          />
        </div>
        <div class="field">
          <label for="cur-hide">Hide these pages or sections (at most {p.limits.hides})</label>
          <input
            id="cur-hide"
            value={hides}
            onInput={(e) => setHides(e.currentTarget.value)}
            placeholder="/old/refunds"
          />
        </div>
        {twin >= 0
          ? (
            <p class="status error" role="alert" data-field-error data-twin>
              There is a curation for “{p.list[twin].query}” already.{" "}
              <button type="button" class="button small" onClick={() => edit(twin)}>
                Edit it
              </button>
            </p>
          )
          : error
          ? <p class="status error" role="alert" data-field-error>{error}</p>
          : null}
        {twin < 0 && !error
          ? value?.warnings?.map((w) => (
            <p key={w.url} class="status error" data-draft-warning>{draftWarning(w)}</p>
          ))
          : null}
        <LeverPreview q={query} value={twin < 0 ? value : null} />
        <p class="actions">
          <button
            type="submit"
            class="button primary"
            disabled={!draft || !!error || twin >= 0 || full}
          >
            {editing >= 0 ? "Save changes" : "Add curation"}
          </button>
          {editing >= 0 || draft
            ? <button type="button" class="button" onClick={done}>Cancel</button>
            : null}
          {full ? <span class="muted">The list is full ({p.limits.curations}).</span> : null}
        </p>
      </form>
    </div>
  );
}
