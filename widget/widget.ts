/// <reference lib="dom" />
/**
 * widget.js, on every page of a site: search bars in `[data-site-search]` elements, or a search
 * button opening a dialog; `/` and Ctrl/Cmd+K; `window.SiteSearch`. Nothing else reaches the
 * host page: every drawing lives in a shadow root, every handler is guarded.
 */
import { type Api, api } from "./client/search.ts";
import { langAttrs, t, useLocaleOf } from "./client/strings.ts";
import { type Bar, go, searchBar } from "./bar.ts";
import { type BaseConfig, baseConfig, ownScript, resultsUrl, scriptTag } from "./config.ts";
import { el, icon, on, ready, report, SEARCH_ICON, shadowHost } from "./dom.ts";
import { WIDGET } from "./styles.ts";

interface WidgetConfig extends BaseConfig {
  resultsPage: string;
  live: boolean;
  shortcut: boolean;
}

/** The page's global object; `SiteSearch` is the one name we add to it. */
const page = globalThis as typeof globalThis & { SiteSearch?: unknown };

function start() {
  if (page.SiteSearch) return; // loaded twice: the first copy serves
  const tag = ownScript("widget.js");
  const data = tag?.dataset ?? {};
  const config: WidgetConfig = Object.freeze({
    ...baseConfig(tag),
    resultsPage: data.resultsPage?.trim() || "/search-results",
    live: data.live === "true",
    shortcut: data.shortcut !== "false",
  });
  if (!config.key) report("widget.js: the script tag has no data-key.");
  const client = api(config.apiOrigin, config.key);
  let open = () => {};
  page.SiteSearch = Object.freeze({
    config,
    /** Goes to the results page for `query`. */
    search(query: string) {
      const q = String(query ?? "").trim();
      if (q) go(resultsUrl(config.resultsPage, q));
    },
    /** The API's JSON for `query`, without navigating. */
    fetchResults(query: string) {
      return client.search(String(query ?? "").trim()).then((d) => structuredClone(d));
    },
    /** Opens the search dialog (or focuses the page's search bar). */
    open: () => open(),
  });
  ready(async () => {
    await useLocaleOf(client, data.lang);
    open = mount(config, client);
  });
}

/** True on a device with a fine pointer that hovers: one with a keyboard worth hinting at. */
const keyboard = () => matchMedia("(hover: hover) and (pointer: fine)").matches;

/** The results page's own search box (results.js draws it), once it is there. */
function resultsBox(): HTMLInputElement | null {
  const host = document.querySelector("[data-sitesearch=results]");
  return host?.shadowRoot?.querySelector("input") ?? null;
}

/** Draws the bars or the button, wires the shortcut, and returns what the shortcut does. */
function mount(config: WidgetConfig, client: Api): () => void {
  const shortcutHint = config.shortcut && keyboard() ? "/" : null;
  const bars: Bar[] = [];
  for (const target of document.querySelectorAll("[data-site-search]")) {
    if (target.querySelector(":scope > [data-sitesearch]")) continue;
    const [host, root] = shadowHost(WIDGET, "bar", config.theme);
    const bar = searchBar({ ...config, api: client, shortcutHint });
    root.appendChild(el("div", { class: "root", ...langAttrs() }, bar.node));
    target.appendChild(host);
    bars.push(bar);
  }
  // The results page has its own box: no floating button over its results, the shortcut
  // goes to the box.
  const results = scriptTag("results.js");
  const onResultsPage = results?.src.startsWith(config.apiOrigin + "/") ||
    !!document.querySelector("[data-site-search-results]");
  const focus = (input: HTMLInputElement | null) => {
    input?.focus();
    input?.select();
  };
  const open = bars.length
    ? () => focus(bars[0].input)
    : onResultsPage
    ? () => focus(resultsBox())
    : searchButton(config, client);
  if (config.shortcut) {
    on(document, "keydown", (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.isComposing || e.altKey) return;
      const slash = e.key === "/" && !e.ctrlKey && !e.metaKey;
      const k = e.key.toLowerCase() === "k" && (e.ctrlKey || e.metaKey) && !e.shiftKey;
      if ((slash || k) && !typing(e.composedPath()[0])) {
        e.preventDefault();
        open();
      }
    });
  }
  return open;
}

/** True when the visitor is typing into something: the shortcut must not steal the key. */
function typing(target: EventTarget | undefined): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
}

/** A floating search button opening a modal search dialog; returns the opener. */
function searchButton(config: WidgetConfig, client: Api): () => void {
  const [host, root] = shadowHost(WIDGET, "button", config.theme);
  const keys = keyboard();
  const fab = el(
    "button",
    {
      type: "button",
      class: "fab",
      "aria-label": t("search"),
      "aria-haspopup": "dialog",
      "aria-keyshortcuts": config.shortcut ? "/ Control+K Meta+K" : undefined,
    },
    icon(SEARCH_ICON),
    el("span", {}, t("search")),
    config.shortcut && keys ? el("kbd", { "aria-hidden": "true" }, "/") : null,
  );
  const dialog = el("dialog", { "aria-label": t("searchLabel") });
  // Focus left on the hidden input would make the shortcut think the visitor is typing:
  // let it go at once, not when the (asynchronous) close event comes.
  const release = () => root.activeElement === bar.input && bar.input.blur();
  const close = () => {
    release();
    if (dialog.open) dialog.close();
  };
  const closeButton = el(
    "button",
    { type: "button", class: "close", "aria-label": t("close") },
    keys ? "Esc" : t("close"),
  );
  const bar = searchBar({
    ...config,
    api: client,
    shortcutHint: null,
    onEscape: close,
    trailing: closeButton,
    recent: true,
  });
  dialog.appendChild(el(
    "div",
    { class: "panel" },
    bar.node,
    keys
      ? el(
        "p",
        { class: "hint", "aria-hidden": "true" },
        t(config.live ? "hintLive" : "hintSubmit"),
      )
      : null,
  ));
  root.appendChild(el("div", { class: "root", ...langAttrs() }, fab, dialog));
  document.body.appendChild(host);
  const open = () => {
    if (!dialog.open) dialog.showModal();
    bar.input.focus();
    bar.input.select();
  };
  on(fab, "click", open);
  on(closeButton, "click", close);
  on(dialog, "click", (e: Event) => e.target === dialog && close()); // a click on the backdrop
  on(dialog, "close", release); // closed another way (the browser's own Escape handling)
  return open;
}

try {
  start();
} catch (err) {
  report(err);
}
