/// <reference lib="dom" />
/**
 * The results page's search box: a plain GET form, with suggestions as you type once hydrated,
 * paced and counted like the widget's live bar (one typing session per question).
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { isAbort } from "../widget/client/http.ts";
import { t } from "../widget/client/strings.ts";
import { MIN_CHARS, TypingSession } from "../widget/client/typing.ts";
import { type Hit, publicApi, resultHref } from "./api.ts";
import { goToQuery, onQuery } from "./bus.ts";
import { Marked } from "./marked.tsx";
import { MAX_QUERY_CHARS } from "../lib/wire_types.ts";

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
  const [loading, setLoading] = useState(false);
  const [answered, setAnswered] = useState(""); // the query whose results the list shows
  const session = useMemo(() => new TypingSession(), []);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const ctl = useRef<AbortController | null>(null);

  useEffect(() => onQuery(({ q }) => setValue(q)), []);

  const lookup = async (q: string) => {
    ctl.current?.abort();
    const mine = ctl.current = new AbortController();
    session.sending(Date.now());
    try {
      const d = await publicApi(p.apiKey).search(q, 1, SUGGESTIONS, mine.signal, session.id);
      if (mine !== ctl.current) return;
      setItems(d.results);
      setAnswered(q);
      setActive(-1);
    } catch (e) {
      if (!isAbort(e) && mine === ctl.current) setItems([]);
    } finally {
      if (mine === ctl.current) setLoading(false);
    }
  };
  const typed = (text: string) => {
    setValue(text);
    setOpen(true);
    clearTimeout(timer.current);
    const q = text.trim();
    if (q.length < MIN_CHARS) {
      ctl.current?.abort();
      session.restart(); // a new question begins
      setLoading(false);
      return setItems([]);
    }
    const known = publicApi(p.apiKey).cached(q, SUGGESTIONS);
    if (known) return (setItems(known.results), setAnswered(q), setLoading(false));
    setLoading(true); // the last suggestions stay, dimmed, until the next arrive
    timer.current = setTimeout(() => lookup(q), session.delay(Date.now()));
  };

  const shown = open && items.length > 0;
  const pick = (hit: Hit) => {
    const href = resultHref(hit.url, p.baseUrl);
    if (href) location.assign(href);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const q = value.trim();
    if (!q) return;
    clearTimeout(timer.current);
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
    } else if (e.key === "Escape") {
      // As in the widget: a first Escape closes the list, the next clears the text.
      e.preventDefault(); // also keeps type=search from clearing the text on its own
      if (shown) setOpen(false);
      else if (value) typed("");
    }
  };
  const current = shown && active >= 0 && active < items.length
    ? `suggestion-${active}`
    : undefined;
  const titles = items.map((h) => h.title);

  return (
    <form class="searchbox" role="search" method="get" action={p.action} onSubmit={submit}>
      {p.keyInForm ? <input type="hidden" name="key" value={p.apiKey} /> : null}
      <label class="sr-only" for="search-q">{t("searchLabel")}</label>
      <div class="combo">
        <input
          id="search-q"
          name="q"
          type="search"
          value={value}
          placeholder={t("searchPlaceholder")}
          autocomplete="off"
          maxLength={MAX_QUERY_CHARS}
          role="combobox"
          list={undefined}
          aria-autocomplete="list"
          aria-expanded={shown}
          aria-controls="search-suggestions"
          aria-activedescendant={current}
          aria-busy={loading}
          onInput={(e) => typed((e.target as HTMLInputElement).value)}
          onKeyDown={keydown}
          onFocus={() => setOpen(true)}
          onBlur={() => setOpen(false)}
        />
        <ul
          id="search-suggestions"
          role="listbox"
          aria-label={t("suggestions")}
          class={loading ? "loading" : undefined}
          data-query={answered || undefined}
          hidden={!shown}
        >
          {items.map((hit, i) => {
            const title = hit.highlights?.find((h) => h.field === "title") ??
              { snippet: hit.title, matches: [] };
            const twin = titles.indexOf(hit.title) !== titles.lastIndexOf(hit.title);
            const section = hit.sections?.[0]?.title;
            return (
              <li
                id={`suggestion-${i}`}
                role="option"
                aria-selected={i === active}
                onMouseDown={(e) => (e.preventDefault(), pick(hit))}
              >
                <span class="t" dir="auto">
                  <Marked h={title} />
                </span>
                <span class="path" dir="ltr">
                  {twin && section ? `${hit.url} › ${section}` : hit.url}
                </span>
              </li>
            );
          })}
        </ul>
      </div>
      <button type="submit" class="button primary">{t("search")}</button>
    </form>
  );
}
