/** A stored list of levers (synonyms, curations), one row each with its Remove button. */
import type { ComponentChildren } from "preact";

export function LeverRows<T extends { id?: string }>(p: {
  label: string;
  empty: string;
  list: T[];
  row: (entry: T) => ComponentChildren;
  save: (list: T[]) => unknown;
}) {
  if (!p.list.length) return <p class="muted">{p.empty}</p>;
  return (
    <ul class="rows" aria-label={p.label}>
      {p.list.map((entry, i) => (
        <li key={entry.id ?? i}>
          <span class="row-main">{p.row(entry)}</span>
          <button
            type="button"
            class="button small"
            onClick={() => p.save(p.list.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </li>
      ))}
    </ul>
  );
}
