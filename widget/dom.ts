/// <reference lib="dom" />
/** DOM helpers shared by widget.js and results.js: an element builder, guarded handlers, styles. */

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | boolean | undefined>;

/** Builds an element; strings become text nodes, never markup. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === true) node.setAttribute(name, "");
    else if (typeof value === "string") node.setAttribute(name, value);
  }
  append(node, children);
  return node;
}

/** Appends children, strings as text nodes. */
export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

/** Reports an error of ours without ever letting it reach the host page. */
export function report(err: unknown): void {
  try {
    console.warn("[SiteSearch]", err);
  } catch { /* nothing to do */ }
}

/** Wraps a handler so an error inside it stays ours. */
export function guard<A extends unknown[]>(fn: (...args: A) => unknown): (...args: A) => void {
  return (...args: A) => {
    try {
      const out = fn(...args);
      if (out instanceof Promise) out.catch(report);
    } catch (err) {
      report(err);
    }
  };
}

/** Adds a guarded event listener. */
export function on<E extends Event = Event>(
  target: EventTarget,
  type: string,
  fn: (e: E) => unknown,
  opts?: AddEventListenerOptions,
): void {
  target.addEventListener(type, guard(fn as (e: Event) => unknown), opts);
}

/** Runs `fn` once the document has parsed (at once when it already has). */
export function ready(fn: () => unknown): void {
  if (document.readyState === "loading") on(document, "DOMContentLoaded", fn, { once: true });
  else guard(fn)();
}

const sheets = new Map<string, CSSStyleSheet>();

/** Adds `css` to a shadow root's styles, as shadowHost does. */
export function adopt(root: ShadowRoot, css: string): void {
  try {
    let sheet = sheets.get(css);
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      sheets.set(css, sheet);
    }
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } catch {
    root.appendChild(el("style", {}, css));
  }
}

/**
 * A shadow root styled by a constructable stylesheet, which a strict CSP allows (no inline
 * `<style>`, no `style=""`). Browsers without them get a `<style>` element instead.
 */
export function shadowHost(css: string, kind: string, theme: string): [HTMLElement, ShadowRoot] {
  const host = el("div", { "data-sitesearch": kind });
  const root = host.attachShadow({ mode: "open" });
  adopt(root, css);
  if (theme === "auto") followPage(host, root);
  else host.setAttribute("data-theme", theme);
  return [host, root];
}

/**
 * The scheme `data-theme="auto"` takes: the host page's. A page that declares both schemes
 * (`color-scheme: light dark`) lets the visitor's system choose; otherwise its background
 * decides, then a lone `dark` declaration; a page that says nothing is light.
 */
export function pageScheme(): "light" | "dark" {
  const root = document.documentElement;
  const css = getComputedStyle(root).colorScheme ?? "";
  const meta = document.querySelector("meta[name=color-scheme]")?.getAttribute("content") ?? "";
  const declared = (css && css !== "normal" ? css : meta).toLowerCase();
  const dark = /\bdark\b/.test(declared);
  if (dark && /\blight\b/.test(declared)) {
    return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  const bg = pageBackground();
  if (bg) return luminance(bg) < 128 ? "dark" : "light";
  return dark ? "dark" : "light";
}

/** The page's painted background (the body's, else the root's), or null when none is. */
function pageBackground(): number[] | null {
  for (const e of [document.body, document.documentElement]) {
    const c = e && rgba(getComputedStyle(e).backgroundColor);
    if (c && c[3] !== 0) return c; // transparent: the next one down shows through
  }
  return null;
}

const luminance = (c: number[]) => 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];

/** A computed colour as [r, g, b, alpha]; other notations (oklch, lab) by painting one pixel. */
function rgba(color: string): number[] | null {
  const m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(color);
  if (m) return [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]];
  try {
    const ctx = el("canvas").getContext("2d", { willReadFrequently: true })!;
    ctx.fillStyle = color;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
    return [r, g, b, a / 255];
  } catch {
    return null;
  }
}

const following = new Set<HTMLElement>();
/** The host page's own colours, which the auto theme's tokens fall back on (styles.ts). */
let hostColours: CSSStyleSheet | null = null;

/**
 * Keeps a host's theme on the page's scheme and colours, also when the page or the system
 * switches: the panel takes the page's background and text colour, so it looks native.
 */
function followPage(host: HTMLElement, root: ShadowRoot) {
  const apply = guard(() => {
    const scheme = pageScheme();
    const bg = pageBackground();
    const fg = rgba(getComputedStyle(document.body ?? document.documentElement).color);
    const rgb = (c: number[] | null) => c && c[3] === 1 ? `rgb(${c[0]},${c[1]},${c[2]})` : null;
    const vars = [["--ss-page-bg", rgb(bg)], ["--ss-page-fg", bg && rgb(fg)]]
      .filter(([, v]) => v).map(([k, v]) => `${k}:${v}`).join(";");
    hostColours?.replaceSync(`:host{${vars}}`);
    for (const h of following) h.setAttribute("data-theme", scheme);
  });
  try {
    hostColours ??= new CSSStyleSheet();
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, hostColours];
  } catch { /* no constructable sheets: the scheme's own colours */ }
  if (!following.size) {
    matchMedia("(prefers-color-scheme: dark)").addEventListener?.("change", apply);
    const watch = new MutationObserver(apply);
    for (const e of [document.documentElement, document.body]) {
      if (e) {
        watch.observe(e, { attributes: true, attributeFilter: ["class", "style", "data-theme"] });
      }
    }
  }
  following.add(host);
  apply();
}

/** Text with `[start, end)` UTF-16 ranges wrapped in `<mark>`, built only from text nodes. */
export function marked(text: string, matches: unknown): DocumentFragment {
  const out = document.createDocumentFragment();
  const ranges = (Array.isArray(matches) ? matches : [])
    .filter((m): m is [number, number] =>
      Array.isArray(m) && Number.isInteger(m[0]) && Number.isInteger(m[1])
    )
    .map(([s, e]) => [Math.max(0, s), Math.min(text.length, e)])
    .filter(([s, e]) => s < e)
    .sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [s, e] of ranges) {
    if (s < at) continue; // overlapping ranges: keep the first
    if (s > at) out.appendChild(document.createTextNode(text.slice(at, s)));
    out.appendChild(el("mark", {}, text.slice(s, e)));
    at = e;
  }
  if (at < text.length) out.appendChild(document.createTextNode(text.slice(at)));
  return out;
}

const SVG = "http://www.w3.org/2000/svg";

/** A small decorative icon from one SVG path. */
export function icon(d: string, cls = "icon"): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", cls);
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", d);
  svg.appendChild(path);
  return svg;
}

/** A magnifying glass. */
export const SEARCH_ICON =
  "M10.5 3a7.5 7.5 0 0 1 5.96 12.06l4.74 4.74-1.4 1.4-4.74-4.74A7.5 7.5 0 1 1 " +
  "10.5 3Zm0 2a5.5 5.5 0 1 0 0 11 5.5 5.5 0 0 0 0-11Z";
