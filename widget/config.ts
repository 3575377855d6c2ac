/// <reference lib="dom" />
/** Settings read from the script's own tag, and the URLs built from them. */

/** The `<script>` that loaded us: `currentScript` while it runs, else the tag whose src ends in `file`. */
export function ownScript(file: string): HTMLScriptElement | null {
  const cur = document.currentScript;
  if (cur instanceof HTMLScriptElement && cur.src) return cur;
  return scriptTag(file);
}

/** The last `<script>` on the page whose src ends in `/file`. */
export function scriptTag(file: string): HTMLScriptElement | null {
  const tags = document.querySelectorAll<HTMLScriptElement>("script[src]");
  for (let i = tags.length - 1; i >= 0; i--) {
    try {
      if (new URL(tags[i].src).pathname.endsWith("/" + file)) return tags[i];
    } catch { /* an odd src: not ours */ }
  }
  return null;
}

export interface BaseConfig {
  /** The site's public search key (`data-key`). */
  key: string;
  /** Where the API lives: the origin of the script's own `src`. */
  apiOrigin: string;
  /** Prefix for result links when the site lives under a path or on another host (`data-base-url`). */
  baseUrl: string;
  /** `auto` follows the host page (dom.ts pageScheme); `light` or `dark` fixes it (`data-theme`). */
  theme: "auto" | "light" | "dark";
}

/** The settings every script shares. */
export function baseConfig(tag: HTMLScriptElement | null): BaseConfig {
  const data = tag?.dataset ?? {};
  const theme = data.theme === "light" || data.theme === "dark" ? data.theme : "auto";
  return {
    key: (data.key ?? "").trim(),
    apiOrigin: tag?.src ? new URL(tag.src, location.href).origin : location.origin,
    baseUrl: (data.baseUrl ?? "").trim().replace(/\/+$/, ""),
    theme,
  };
}

/** An http(s) URL for a page, or null for anything else (javascript:, data:, garbage). */
export function safeUrl(path: string, base: string): string | null {
  try {
    const rel = typeof path === "string" ? path : "";
    const u = new URL(
      base && rel.startsWith("/") ? base + rel : rel,
      new URL(base || "/", location.href),
    );
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
  } catch {
    return null;
  }
}

/** The results page URL carrying the query (and a page number above 1). */
export function resultsUrl(resultsPage: string, query: string, page = 1): string {
  const u = new URL(safeUrl(resultsPage, "") ?? "/search-results", location.href);
  u.searchParams.set("q", query);
  if (page > 1) u.searchParams.set("page", String(page));
  else u.searchParams.delete("page");
  return u.href;
}

/** A path as people read it: percent-escapes decoded where they form valid UTF-8. */
export function readable(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
