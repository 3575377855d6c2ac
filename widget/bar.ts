/// <reference lib="dom" />
/**
 * The search bar: a plain search form, or with `live` a WAI-ARIA combobox whose listbox shows
 * results as the visitor types. Live search spends little: requests are paced by the bar's typing
 * session (client/typing.ts), which also tells the server to count a question's refinements as
 * one search; answers are cached, and between answers the last complete one is narrowed on the
 * client at once.
 */
import { MAX_QUERY_CHARS, type SearchHit as Hit, type SearchResponse } from "../lib/wire_types.ts";
import { MATCHED_WORD } from "../lib/search/engine/analysis/word_chars.ts";
import { isAbort } from "./client/http.ts";
import { type Api, corrected, parts } from "./client/search.ts";
import { friendly, t, tn } from "./client/strings.ts";
import { MIN_CHARS, TypingSession } from "./client/typing.ts";
import { readable, resultsUrl, safeUrl } from "./config.ts";
import { type Child, el, icon, marked, on, SEARCH_ICON } from "./dom.ts";

export interface BarOptions {
  api: Api;
  live: boolean;
  resultsPage: string;
  baseUrl: string;
  /** Shown as a hint inside the bar (`/`), or null when the shortcut is off or on touch. */
  shortcutHint: string | null;
  /** Inside the dialog the list sits below the field and Escape closes the dialog. */
  onEscape?: () => void;
  /** Drawn at the end of the field (the dialog's close button). */
  trailing?: HTMLElement;
  /** Shows the visitor's recent searches while the field is empty (the dialog). */
  recent?: boolean;
}

export interface Bar {
  node: HTMLElement;
  input: HTMLInputElement;
}

const LIVE_COUNT = 6;
let ids = 0;

/** Sends the browser somewhere; one place, so tests and hosts see a plain navigation. */
export const go = (href: string) => location.assign(href);

const RECENT = "sitesearch:recent";
/** The visitor's recent searches on this site, newest first (their own localStorage). */
function recentSearches(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(RECENT) ?? "[]");
    return Array.isArray(v) ? v.filter((q) => typeof q === "string" && q).slice(0, 5) : [];
  } catch {
    return [];
  }
}
function keepRecent(q: string | null) {
  try {
    if (q === null) return localStorage.removeItem(RECENT);
    if (!q) return;
    const rest = recentSearches().filter((r) => r.toLowerCase() !== q.toLowerCase());
    localStorage.setItem(RECENT, JSON.stringify([q, ...rest].slice(0, 5)));
  } catch { /* storage off: nothing kept */ }
}

const norm = (q: string) => q.toLowerCase().replace(/\s+/g, " ");
/** The words of `s` as the server matches and highlights them (one definition: word_chars.ts). */
const words = (s: string) => s.toLowerCase().match(MATCHED_WORD) ?? [];

/** `[start, end)` of each word in `text` that starts with one of `terms`. */
function wordMatches(text: string, terms: string[]): [number, number][] {
  const out: [number, number][] = [];
  for (const m of text.matchAll(MATCHED_WORD)) {
    const w = m[0].toLowerCase();
    if (terms.some((t) => w.startsWith(t))) out.push([m.index!, m.index! + m[0].length]);
  }
  return out;
}

/**
 * The hits of a complete earlier answer (every match in hand) that hold each word typed since,
 * marked anew; null when `q` does not extend it or nothing would be left. Shown at once, then
 * replaced by the server's answer after the pause.
 */
function narrow(base: { q: string; data: SearchResponse } | null, q: string) {
  if (!base || base.data.meta.found > base.data.results.length) return null;
  if (!norm(q).startsWith(norm(base.q))) return null;
  const had = new Set(words(base.q).slice(0, -1)); // its last word may have been half typed
  const all = words(q);
  const added = all.filter((w) => !had.has(w));
  const results = base.data.results.flatMap((hit): Hit[] => {
    const { title, description, body } = parts(hit);
    const shown = [title, description, body].flatMap((h) => h ? [h] : []);
    const text = words(shown.map((h) => h.snippet).join(" "));
    if (!added.every((a) => text.some((w) => w.startsWith(a)))) return [];
    const highlights = shown.map((h) => ({ ...h, matches: wordMatches(h.snippet, all) }));
    return [{ ...hit, highlights }];
  });
  if (!results.length) return null;
  return { results, meta: { ...base.data.meta, found: results.length } } as SearchResponse;
}

/** A result's path, and its best section's title when it has one: "/docs/signals › Sending". */
function where(hit: Hit, href: string): string {
  const section = hit.sections?.[0]?.title;
  return readable(new URL(href).pathname) + (section ? ` › ${section}` : "");
}

export function searchBar(o: BarOptions): Bar {
  const id = "ss" + ++ids;
  const input = el("input", {
    type: "search",
    class: "input",
    placeholder: t("searchPlaceholder"),
    "aria-label": t("searchLabel"),
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    enterkeyhint: "search",
    maxlength: String(MAX_QUERY_CHARS),
  });
  const list = el("ul", {
    id: id + "-list",
    role: "listbox",
    class: "list",
    "aria-label": t("searchResults"),
  });
  const clear = el("button", { type: "button", class: "clear" }, t("clear"));
  const head = el("p", { class: "head", hidden: true }, t("recentSearches"), clear);
  const fix = el("p", { class: "fix", hidden: true });
  const msg = el("p", { class: "msg", hidden: true });
  const pop = el("div", { class: "pop", hidden: true }, head, fix, list, msg);
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
  const submit = (q: string) => {
    if (!q) return;
    keepRecent(q);
    go(resultsUrl(o.resultsPage, q));
  };

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
  on(input, "keydown", (e: KeyboardEvent) => {
    // Ctrl/Cmd+K in the field selects its text, so the next question replaces the last one.
    if (e.key.toLowerCase() === "k" && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) {
      e.preventDefault();
      input.select();
    }
  });
  if (!o.live && !o.recent) {
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
  let shown = ""; // the query whose server answer the list shows
  let base: { q: string; data: SearchResponse } | null = null; // the last server answer
  const session = new TypingSession();

  /** Anchors the list where it fits: under the bar's start, its end, or as wide as the bar. */
  const place = () => {
    if (o.onEscape) return; // in the dialog the list is part of the panel
    const r = form.getBoundingClientRect();
    const rtl = getComputedStyle(form).direction === "rtl";
    const wide = Math.max(r.width, Math.min(600, innerWidth - 32));
    const [start, end] = rtl ? [innerWidth - r.right, r.left] : [r.left, innerWidth - r.right];
    const fits = (from: number) => from + wide <= innerWidth - 8;
    pop.classList.toggle("end", !fits(start) && fits(end));
    pop.classList.toggle("narrow", !fits(start) && !fits(end));
  };
  const setOpen = (open: boolean) => {
    if (open && pop.hidden) place();
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
    on(li, "click", () => keepRecent(input.value.trim()));
    return li;
  };
  const fill = (items: HTMLElement[], query: string | null, recent = false) => {
    options = items;
    active = -1;
    input.removeAttribute("aria-activedescendant");
    list.replaceChildren(...options);
    list.hidden = options.length === 0;
    list.setAttribute("aria-label", t(recent ? "recentSearches" : "searchResults"));
    if (query === null) list.removeAttribute("data-query");
    else list.setAttribute("data-query", query);
    head.hidden = fix.hidden = true;
  };

  /** Draws an answer; `final` when it is the server's for exactly `q`, not a narrowed one. */
  const render = (q: string, data: SearchResponse, final: boolean) => {
    if (final) [shown, base] = [q, { q, data }];
    const items: HTMLElement[] = [];
    const titles = data.results.map((h) => h.title);
    data.results.forEach((hit) => {
      const href = safeUrl(hit.url, o.baseUrl);
      if (!href) return;
      const { title, description, body } = parts(hit);
      const snippet = body ?? description;
      // Same-named pages ("Models", "Signals") are told apart by their path and section.
      const twin = titles.indexOf(hit.title) !== titles.lastIndexOf(hit.title);
      const li = option(
        items.length,
        href,
        "opt",
        hit.pinned ? el("span", { class: "featured" }, t("featured")) : null,
        el("span", { class: "t", dir: "auto" }, marked(title.snippet, title.matches)),
        twin ? el("span", { class: "p", dir: "ltr" }, where(hit, href)) : null,
        snippet
          ? el("span", { class: "s", dir: "auto" }, marked(snippet.snippet, snippet.matches))
          : null,
      );
      const position = items.push(li);
      on(li, "click", () => o.api.click(q, position, hit.url, hit.click));
    });
    const found = data.meta.found;
    if (found > items.length && items.length) {
      items.push(option(
        items.length,
        resultsUrl(o.resultsPage, q),
        "opt more",
        document.createTextNode(tn("seeAll", found)),
      ));
    }
    fill(items, final ? q : null);
    const fixed = corrected(q, data);
    fix.hidden = !fixed;
    fix.textContent = fixed ? t("showingResultsFor", { corrected: fixed }) : "";
    msg.hidden = items.length > 0;
    msg.textContent = items.length ? "" : t("noResultsFor", { query: q });
    status.textContent = found === 0 ? t("noResults") : tn("resultsAvailable", found);
    setOpen(focused() || !!o.onEscape);
  };
  const fail = (err: unknown) => {
    shown = "";
    base = null;
    fill([], null);
    msg.hidden = false;
    msg.textContent = friendly(err);
    status.textContent = msg.textContent;
    setOpen(true);
  };
  /** The visitor's recent searches, in the empty dialog; false when there are none to show. */
  const showRecent = () => {
    const recent = o.recent ? recentSearches() : [];
    if (!recent.length) return false;
    fill(
      recent.map((q, i) =>
        option(i, resultsUrl(o.resultsPage, q), "opt", el("span", { class: "t" }, q))
      ),
      null,
      true,
    );
    head.hidden = false;
    msg.hidden = true;
    setOpen(true);
    return true;
  };
  on(clear, "click", () => {
    keepRecent(null);
    fill([], null);
    setOpen(false);
    input.focus();
  });

  const lookup = async (q: string) => {
    ctrl?.abort();
    const mine = ctrl = new AbortController();
    session.sending(Date.now());
    list.classList.add("wait"); // the last results stay, dimmed if the next are slow to come
    try {
      const data = await o.api.search(q, 1, LIVE_COUNT, mine.signal, session.id);
      if (mine === ctrl && input.value.trim() === q) render(q, data, true);
    } catch (err) {
      if (!isAbort(err) && mine === ctrl) fail(err);
    } finally {
      if (mine === ctrl) list.classList.remove("wait");
    }
  };

  const changed = () => {
    clearTimeout(timer);
    const q = input.value.trim();
    if (q.length < MIN_CHARS) {
      ctrl?.abort();
      [shown, base] = ["", null];
      session.restart(); // a new question begins
      status.textContent = "";
      if (!q && showRecent()) return;
      return setOpen(false);
    }
    if (!o.live) return setOpen(false);
    if (q === shown) return render(q, base!.data, true);
    const known = o.api.cached(q, LIVE_COUNT);
    if (known) return render(q, known, true);
    const narrowed = narrow(base, q);
    if (narrowed) render(q, narrowed, false);
    timer = setTimeout(() => lookup(q), session.delay(Date.now()));
  };
  on(input, "input", changed);
  on(input, "focus", () => {
    const q = input.value.trim();
    if (!q) showRecent();
    else if (shown && shown === q) setOpen(true);
  });
  on(input, "keydown", (e: KeyboardEvent) => {
    if (e.isComposing) return;
    const n = options.length;
    const open = !pop.hidden;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!open) {
        if (shown && shown === input.value.trim()) setOpen(true);
        else if (!input.value.trim()) showRecent();
        return;
      }
      if (n) setActive(e.key === "ArrowDown" ? (active + 1) % n : (active <= 0 ? n : active) - 1);
    } else if (e.key === "Enter" && open && active >= 0) {
      e.preventDefault();
      keepRecent(input.value.trim());
      options[active].dispatchEvent(new Event("click")); // counted like a pointer click
      go(options[active].querySelector("a")!.href);
    } else if (e.key === "Escape") {
      // As in DocSearch: a first Escape closes the list and leaves the text as typed; the
      // next clears it. In the dialog Escape closes the dialog (reopening selects the text).
      e.preventDefault(); // also keeps type=search from clearing the text on its own
      if (o.onEscape) o.onEscape();
      else if (open) setOpen(false);
      else if (input.value) {
        input.value = "";
        input.dispatchEvent(new Event("input"));
      }
    }
  });
  // Keep focus in the field while a result is clicked; close when focus leaves the widget.
  on(pop, "mousedown", (e: Event) => e.preventDefault());
  on(form, "focusout", (e: FocusEvent) => {
    if (!o.onEscape && !form.contains(e.relatedTarget as Node | null)) setOpen(false);
  });
  return bar;
}
