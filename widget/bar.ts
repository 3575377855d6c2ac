/// <reference lib="dom" />
/**
 * The search bar: a plain search form, or with `live` a WAI-ARIA combobox whose listbox shows
 * results as the visitor types (debounced, stale requests aborted, answers cached).
 */
import { type Api, friendly, isAbort, parts, type SearchResponse } from "./api.ts";
import { resultsUrl, safeUrl } from "./config.ts";
import { type Child, el, icon, marked, on, SEARCH_ICON } from "./dom.ts";

export interface BarOptions {
  api: Api;
  live: boolean;
  resultsPage: string;
  baseUrl: string;
  /** Shown as a hint inside the bar (`/`), or null when the shortcut is off. */
  shortcutHint: string | null;
  /** Inside the dialog the list sits below the field and Escape closes the dialog. */
  onEscape?: () => void;
  /** Drawn at the end of the field (the dialog's close button). */
  trailing?: HTMLElement;
}

export interface Bar {
  node: HTMLElement;
  input: HTMLInputElement;
}

const LIVE_COUNT = 6;
const DEBOUNCE_MS = 150;
const MIN_CHARS = 2;
let ids = 0;

/** Sends the browser somewhere; one place, so tests and hosts see a plain navigation. */
export const go = (href: string) => location.assign(href);

export function searchBar(o: BarOptions): Bar {
  const id = "ss" + ++ids;
  const input = el("input", {
    type: "search",
    class: "input",
    placeholder: "Search this site…",
    "aria-label": "Search this site",
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    enterkeyhint: "search",
    maxlength: "200",
  });
  const list = el("ul", {
    id: id + "-list",
    role: "listbox",
    class: "list",
    "aria-label": "Results",
  });
  const msg = el("p", { class: "msg", hidden: true });
  const pop = el("div", { class: "pop", hidden: true }, list, msg);
  const status = el("div", { class: "sr", role: "status", "aria-live": "polite" });
  const hint = o.shortcutHint ? el("kbd", { "aria-hidden": "true" }, o.shortcutHint) : null;
  const field = el(
    "div",
    { class: "field" },
    icon(SEARCH_ICON),
    input,
    hint,
    o.trailing,
  );
  const form = el("form", { class: "bar", role: "search", action: "" }, field, pop, status);
  const bar = { node: form, input };
  const focused = () => (form.getRootNode() as ShadowRoot).activeElement === input;
  const submit = (q: string) => q && go(resultsUrl(o.resultsPage, q));

  on(field, "mousedown", (e: MouseEvent) => {
    if (e.target !== input) {
      e.preventDefault();
      input.focus();
    }
  });
  on(form, "submit", (e: Event) => {
    e.preventDefault();
    submit(input.value.trim());
  });
  if (hint) on(input, "input", () => (hint.hidden = input.value !== ""));
  if (!o.live) {
    on(input, "keydown", (e: KeyboardEvent) => {
      if (e.key === "Escape" && o.onEscape) {
        e.preventDefault();
        o.onEscape();
      }
    });
    return bar;
  }

  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("aria-controls", list.id);

  let options: HTMLElement[] = [];
  let active = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ctrl: AbortController | null = null;
  let shown = ""; // the query whose answer the list shows

  const setOpen = (open: boolean) => {
    pop.hidden = !open;
    input.setAttribute("aria-expanded", String(open));
    if (!open) setActive(-1);
  };
  const setActive = (i: number) => {
    options[active]?.classList.remove("on");
    options[active]?.setAttribute("aria-selected", "false");
    active = i;
    const opt = options[i];
    if (!opt) return input.removeAttribute("aria-activedescendant");
    opt.classList.add("on");
    opt.setAttribute("aria-selected", "true");
    input.setAttribute("aria-activedescendant", opt.id);
    opt.scrollIntoView({ block: "nearest" });
  };
  const option = (i: number, href: string, cls: string, ...content: Child[]) => {
    const li = el(
      "li",
      { id: `${id}-o${i}`, role: "option", class: cls, "aria-selected": "false" },
      el("a", { href, tabindex: "-1" }, ...content),
    );
    on(li, "mousemove", () => active !== i && setActive(i));
    return li;
  };

  const render = (q: string, data: SearchResponse) => {
    shown = q;
    options = [];
    active = -1;
    input.removeAttribute("aria-activedescendant");
    data.results.forEach((hit) => {
      const href = safeUrl(hit.url, o.baseUrl);
      if (!href) return;
      const { title, description, body } = parts(hit);
      const snippet = body ?? description;
      const li = option(
        options.length,
        href,
        "opt",
        el("span", { class: "t" }, marked(title.snippet, title.matches)),
        snippet ? el("span", { class: "s" }, marked(snippet.snippet, snippet.matches)) : null,
      );
      const position = options.push(li);
      on(li, "click", () => o.api.click(q, position, hit.url));
    });
    const found = data.meta.found;
    if (found > options.length && options.length) {
      options.push(option(
        options.length,
        resultsUrl(o.resultsPage, q),
        "opt more",
        document.createTextNode(`See all ${found} results`),
      ));
    }
    list.replaceChildren(...options);
    list.hidden = options.length === 0;
    msg.hidden = options.length > 0;
    msg.textContent = options.length ? "" : `No results for “${q}”.`;
    status.textContent = found === 0
      ? "No results."
      : `${found} ${found === 1 ? "result" : "results"} available.`;
    setOpen(focused() || !!o.onEscape);
  };
  const fail = (err: unknown) => {
    shown = "";
    options = [];
    list.replaceChildren();
    list.hidden = true;
    msg.hidden = false;
    msg.textContent = friendly(err);
    status.textContent = msg.textContent;
    setOpen(true);
  };

  const lookup = async (q: string) => {
    ctrl?.abort();
    const mine = ctrl = new AbortController();
    try {
      const data = await o.api.search(q, 1, LIVE_COUNT, mine.signal);
      if (mine === ctrl && input.value.trim() === q) render(q, data);
    } catch (err) {
      if (!isAbort(err) && mine === ctrl) fail(err);
    }
  };

  on(input, "input", () => {
    clearTimeout(timer);
    const q = input.value.trim();
    if (q.length < MIN_CHARS) {
      ctrl?.abort();
      shown = "";
      status.textContent = "";
      return setOpen(false);
    }
    if (q === shown) return setOpen(true);
    timer = setTimeout(() => lookup(q), DEBOUNCE_MS);
  });
  on(input, "focus", () => {
    if (shown && shown === input.value.trim()) setOpen(true);
  });
  on(input, "keydown", (e: KeyboardEvent) => {
    if (e.isComposing) return;
    const n = options.length;
    const open = !pop.hidden;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!open) {
        if (shown && shown === input.value.trim()) setOpen(true);
        return;
      }
      if (n) setActive(e.key === "ArrowDown" ? (active + 1) % n : (active <= 0 ? n : active) - 1);
    } else if (e.key === "Enter" && open && active >= 0) {
      e.preventDefault();
      options[active].dispatchEvent(new Event("click")); // counted like a pointer click
      go(options[active].querySelector("a")!.href);
    } else if (e.key === "Escape") {
      e.preventDefault(); // also keeps type=search from clearing the text
      if (o.onEscape) o.onEscape();
      else if (open) setOpen(false);
      else input.value = "";
    }
  });
  // Keep focus in the field while a result is clicked; close when focus leaves the widget.
  on(pop, "mousedown", (e: Event) => e.preventDefault());
  on(form, "focusout", (e: FocusEvent) => {
    if (!o.onEscape && !form.contains(e.relatedTarget as Node | null)) setOpen(false);
  });
  return bar;
}
