/// <reference lib="dom" />
/** A lever's query and its match, as curations and answer pins take them: exact, or contained. */

export function QueryMatchFields(p: {
  id: string;
  label: string;
  placeholder: string;
  /** The checkbox's words: the entry also holds for queries that contain this one. */
  containsLabel: string;
  query: string;
  setQuery: (query: string) => void;
  contains: boolean;
  setContains: (contains: boolean) => void;
}) {
  return (
    <div class="inline">
      <div class="field">
        <label for={p.id}>{p.label}</label>
        <input
          id={p.id}
          value={p.query}
          onInput={(e) => p.setQuery(e.currentTarget.value)}
          placeholder={p.placeholder}
        />
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={p.contains}
          onChange={(e) => p.setContains(e.currentTarget.checked)}
        />{" "}
        {p.containsLabel}
      </label>
    </div>
  );
}
