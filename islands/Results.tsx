/// <reference lib="dom" />
/** The results list with highlights and pagination; rendered on the server, then live. */
import { useEffect, useRef, useState } from "preact/hooks";
import { friendly, t, tn } from "../widget/client/strings.ts";
import { type Hit, publicApi, resultHref } from "./api.ts";
import { goToQuery, onQuery } from "./bus.ts";
import { Marked } from "./marked.tsx";

export interface ResultsProps {
  apiKey: string;
  q: string;
  page: number;
  perPage: number;
  baseUrl: string;
  /** The server's first answer; null when there was no query or it failed. */
  results: Hit[] | null;
  found: number;
  error: string | null;
  /** The page's own URL for a query and page (links work without JavaScript). */
  hrefBase: string;
}

const MAX_PAGES_SHOWN = 7;

export function Results(p: ResultsProps) {
  const [view, setView] = useState(
    { q: p.q, page: p.page, results: p.results, found: p.found, error: p.error, loading: false },
  );
  const latest = useRef<AbortController | null>(null);

  useEffect(() =>
    onQuery(async ({ q, page }) => {
      latest.current?.abort();
      if (!q.trim()) {
        return setView({ q, page, results: null, found: 0, error: null, loading: false });
      }
      const ctl = latest.current = new AbortController();
      setView((v) => ({ ...v, loading: true })); // the old results stay, dimmed, until the new
      try {
        const d = await publicApi(p.apiKey).search(q, page, p.perPage, ctl.signal);
        setView({ q, page, results: d.results, found: d.meta.found, error: null, loading: false });
      } catch (e) {
        if (ctl.signal.aborted) {
          return;
        }
        setView({ q, page, results: null, found: 0, error: friendly(e), loading: false });
      }
    }), []);

  const href = (page: number) => {
    const params = new URLSearchParams(p.hrefBase);
    params.set("q", view.q);
    if (page > 1) params.set("page", String(page));
    return `?${params}`;
  };
  const pages = Math.min(Math.ceil(view.found / p.perPage), 1000);
  const first = Math.max(1, Math.min(view.page - 3, pages - MAX_PAGES_SHOWN + 1));
  const numbers = Array.from({ length: Math.min(MAX_PAGES_SHOWN, pages) }, (_, i) => first + i);
  const go = (e: MouseEvent, page: number) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    goToQuery(view.q, page);
    scrollTo({ top: 0 });
  };

  let status = t("typeToSearch");
  if (view.error) status = view.error;
  else if (view.results && view.found === 0) status = t("noResultsFor", { query: view.q });
  else if (view.results) {
    status = tn("resultsFor", view.found, { query: view.q }) +
      (pages > 1 ? " · " + t("pageOf", { page: view.page, pages }) : "");
  }
  if (view.loading) status = t("searching");

  return (
    <section
      class={"results" + (view.loading ? " loading" : "")}
      aria-busy={view.loading}
      aria-label={t("searchResults")}
    >
      <p class={view.error ? "status error" : "status"} role="status">{status}</p>
      {view.results && view.results.length > 0
        ? (
          <ol class="hits" start={(view.page - 1) * p.perPage + 1}>
            {view.results.map((hit, i) => {
              const link = resultHref(hit.url, p.baseUrl);
              const title = hit.highlights?.find((h) => h.field === "title") ??
                { snippet: hit.title, matches: [] };
              const snippet = hit.highlights?.find((h) => h.field === "body") ??
                hit.highlights?.find((h) => h.field === "description") ??
                { snippet: hit.description ?? "", matches: [] };
              const position = (view.page - 1) * p.perPage + i + 1;
              return (
                <li class="hit">
                  <h3 dir="auto">
                    {link
                      ? (
                        <a
                          href={link}
                          onClick={() => publicApi(p.apiKey).click(view.q, position, hit.url)}
                        >
                          <Marked h={title} />
                        </a>
                      )
                      : <Marked h={title} />}
                  </h3>
                  <p class="path" dir="ltr">{hit.url}</p>
                  <p class="snippet" dir="auto">
                    <Marked h={snippet} />
                  </p>
                </li>
              );
            })}
          </ol>
        )
        : null}
      {pages > 1
        ? (
          <nav class="pager" aria-label={t("pagination")}>
            {view.page > 1
              ? (
                <a href={href(view.page - 1)} onClick={(e) => go(e, view.page - 1)}>
                  {t("previous")}
                </a>
              )
              : null}
            {numbers.map((n) => (
              <a
                href={href(n)}
                aria-current={n === view.page ? "page" : undefined}
                onClick={(e) => go(e, n)}
              >
                {n}
              </a>
            ))}
            {view.page < pages
              ? <a href={href(view.page + 1)} onClick={(e) => go(e, view.page + 1)}>{t("next")}</a>
              : null}
          </nav>
        )
        : null}
    </section>
  );
}
