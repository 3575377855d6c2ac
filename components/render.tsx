/** Renders a page of the service's own: HTML with a strict CSP; JavaScript only when it has islands. */
import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import { bundleOf } from "../islands/registry.ts";
import { withLocale } from "../widget/client/strings.ts";
import { TABLES } from "../widget/i18n/all.ts";
import { locale, pickLang } from "../widget/i18n/index.ts";
import { Layout } from "./Layout.tsx";

export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The page's HTML, linking the bundles of the islands it rendered (none without islands). The
 * islands' visitor strings are in `lang` (English when it has no table); the page carries that
 * table for them to hydrate with.
 */
export function renderPage(
  o: {
    /** A function when the title holds visitor strings: called in the page's language. */
    title: string | (() => string);
    path: string;
    body: ComponentChildren;
    lang?: string | null;
  },
): string {
  const lang = pickLang(o.lang);
  const loc = locale(lang, TABLES[lang]);
  return withLocale(loc, () => {
    const body = renderToString(<>{o.body}</>);
    // The marker is an attribute only Island writes; props are escaped, text has no raw quotes.
    const names = Array.from(body.matchAll(/ data-island="(\w+)"/g), (m) => m[1]);
    const scripts = [...new Set(names.map(bundleOf).filter((b): b is string => !!b))];
    const shell = renderToString(
      <Layout
        title={typeof o.title === "function" ? o.title() : o.title}
        path={o.path}
        scripts={scripts}
        locale={loc}
      >
        <div dangerouslySetInnerHTML={{ __html: body }} class="page" />
      </Layout>,
    );
    return "<!doctype html>" + shell;
  });
}

/** A rendered page as a response. */
export function pageResponse(html: string, status = 200, headers: Record<string, string> = {}) {
  return new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": PAGE_CSP,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "same-origin",
      "Cache-Control": "no-store",
      ...headers,
    },
  });
}
