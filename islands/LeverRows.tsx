/** A stored list of levers (synonyms, curations), one row each with its Remove (and Edit) button. */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/** Rows shown at first, and added by each "Show more": lists grow on the page, never scroll inside. */
const PAGE = 20;

export function LeverRows<T extends { id?: string }>(p: {
  label: string;
  empty: string;
  list: T[];
  row: (entry: T) => ComponentChildren;
  save: (list: T[]) => unknown;
  /** Opens entry `i` in the form, where it is changed in place. */
  edit?: (i: number) => void;
  /** The entry open in the form. */
  editing?: number | null;
}) {
  const [shown, setShown] = useState(PAGE);
  if (!p.list.length) return <p class="muted">{p.empty}</p>;
  const without = (i: number) => p.list.filter((_, j) => j !== i);
  // The entry being edited stays in view, however far down the list it is.
  const upTo = Math.max(shown, (p.editing ?? -1) + 1);
  return (
    <>
      <ul class="rows" aria-label={p.label}>
        {p.list.slice(0, upTo).map((entry, i) => (
          <li key={entry.id ?? i} class={p.editing === i ? "editing" : undefined}>
            <span class="row-main">{p.row(entry)}</span>
            <span class="row-actions">
              {p.edit
                ? (
                  <button
                    type="button"
                    class="button small"
                    aria-pressed={p.editing === i}
                    onClick={() => p.edit!(i)}
                  >
                    Edit
                  </button>
                )
                : null}
              <button
                type="button"
                class="button small"
                onClick={() =>
                  p.save(without(i))}
              >
                Remove
              </button>
            </span>
          </li>
        ))}
      </ul>
      {p.list.length > upTo
        ? (
          <button type="button" class="button small" onClick={() => setShown(upTo + PAGE)}>
            Show more ({p.list.length - upTo} more)
          </button>
        )
        : null}
    </>
  );
}
