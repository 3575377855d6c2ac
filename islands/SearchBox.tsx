/// <reference lib="dom" />
/** The results page's search box: a plain GET form, with suggestions as you type once hydrated. */
import { useEffect, useRef, useState } from "preact/hooks";
import { type Hit, resultHref, searchApi } from "./api.ts";
import { goToQuery, onQuery } from "./bus.ts";
import { Marked } from "./marked.tsx";

export interface SearchBoxProps {
  apiKey: string;
  q: string;
  action: string;
  baseUrl: string;
  /** The key travels in the form only when it is not the page's default. */
  keyInForm: boolean;
}

const SUGGESTIONS = 5;

export function SearchBox(p: SearchBoxProps) {
  const [value, setValue] = useState(p.q);
  const [items, setItems] = useState<Hit[]>([]);
  const [active, setActive] = useState(-1);
  const [open, setOpen] = useState(false);
  const typed = useRef(false);

  useEffect(() => onQuery(({ q }) => setValue(q)), []);
  useEffect(() => {
    const q = value.trim();
    if (!typed.current || q.length < 2) return setItems([]);
    const ctl = new AbortController();
    const timer = setTimeout(() => {
      searchApi(p.apiKey, q, 1, SUGGESTIONS, ctl.signal)
        .then((d) => (setItems(d.results), setActive(-1)))
        .catch(() => setItems([]));
    }, 150);
    return () => (clearTimeout(timer), ctl.abort());
  }, [value]);

  const shown = open && items.length > 0;
  const pick = (hit: Hit) => {
    const href = resultHref(hit.url, p.baseUrl);
    if (href) location.assign(href);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const q = value.trim();
    if (!q) return;
    setOpen(false);
    goToQuery(q, 1);
  };
  const keydown = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (!items.length) return;
      e.preventDefault();
      setOpen(true);
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive((active + 1 + step + items.length + 1) % (items.length + 1) - 1);
    } else if (e.key === "Enter" && shown && active >= 0 && active < items.length) {
      e.preventDefault();
      pick(items[active]);
    } else if (e.key === "Escape") setOpen(false);
  };
  const current = shown && active >= 0 && active < items.length
    ? `suggestion-${active}`
    : undefined;

  return (
    <form class="searchbox" role="search" method="get" action={p.action} onSubmit={submit}>
      {p.keyInForm ? <input type="hidden" name="key" value={p.apiKey} /> : null}
      <label class="sr-only" for="search-q">Search the site</label>
      <div class="combo">
        <input
          id="search-q"
          name="q"
          type="search"
          value={value}
          placeholder="Search…"
          autocomplete="off"
          maxLength={200}
          role="combobox"
          list={undefined}
          aria-autocomplete="list"
          aria-expanded={shown}
          aria-controls="search-suggestions"
          aria-activedescendant={current}
          onInput={(e) => {
            typed.current = true;
            setValue((e.target as HTMLInputElement).value);
            setOpen(true);
          }}
          onKeyDown={keydown}
          onFocus={() => setOpen(true)}
          onBlur={() => setOpen(false)}
        />
        <ul id="search-suggestions" role="listbox" aria-label="Suggestions" hidden={!shown}>
          {items.map((hit, i) => {
            const title = hit.highlights?.find((h) => h.field === "title") ??
              { snippet: hit.title, matches: [] };
            return (
              <li
                id={`suggestion-${i}`}
                role="option"
                aria-selected={i === active}
                onMouseDown={(e) => (e.preventDefault(), pick(hit))}
              >
                <Marked h={title} />
                <span class="path">{hit.url}</span>
              </li>
            );
          })}
        </ul>
      </div>
      <button type="submit" class="button primary">Search</button>
    </form>
  );
}
