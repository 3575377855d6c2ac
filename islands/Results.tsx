/// <reference lib="dom" />
/** The results list with highlights and pagination; rendered on the server, then live. */
import { useEffect, useRef, useState } from "preact/hooks";
import { withoutRepeat } from "../widget/client/repeats.ts";
import { corrected, parts } from "../widget/client/search.ts";
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
  /** The query as the server ran it when it corrected a word (meta.corrections), else null. */
  fixed: string | null;
  error: string | null;
  /** The page's own URL for a query and page (links work without JavaScript). */
  hrefBase: string;
  /** Filter names whose facets show as chips (the page's `filters=` parameter), in order. */
  facetNames: string[];
  /** The server's first facet counts (docs/api.md `meta.facets`). */
  facets: Record<string, { value: string; count: number }[]>;
  /** Chosen filters, `[name, value]`: the page's `filter=name:value` parameters. */
  chosen: [string, string][];
}

const MAX_PAGES_SHOWN = 7;

export function Results(p: ResultsProps) {
  const [view, setView] = useState({
    q: p.q,
    page: p.page,
    results: p.results,
    found: p.found,
    fixed: p.fixed,
    error: p.error,
    loading: false,
    facets: p.facets,
  });
  const latest = useRef<AbortController | null>(null);

  useEffect(() =>
    onQuery(async ({ q, page }) => {
      latest.current?.abort();
      if (!q.trim()) {
        return setView({
          q,
          page,
          results: null,
          found: 0,
          fixed: null,
          error: null,
          loading: false,
          facets: {},
        });
      }
      const ctl = latest.current = new AbortController();
      setView((v) => ({ ...v, loading: true })); // the old results stay, dimmed, until the new
      try {
        // The chosen filters hold for every query until a chip changes them (a new page load).
        const narrow = { filters: p.chosen, facets: p.facetNames.length > 0 };
        const d = await publicApi(p.apiKey).search(
          q,
          page,
          p.perPage,
          ctl.signal,
          undefined,
          narrow,
        );
        const { found, facets = {} } = d.meta;
        setView({
          q,
          page,
          results: d.results,
          found,
          fixed: corrected(q, d),
          error: null,
          loading: false,
          facets,
        });
      } catch (e) {
        if (ctl.signal.aborted) {
          return;
        }
        setView({
          q,
          page,
          results: null,
          found: 0,
          fixed: null,
          error: friendly(e),
          loading: false,
          facets: {},
        });
      }
    }), []);

  const href = (page: number, chosen = p.chosen) => {
    const params = new URLSearchParams(p.hrefBase);
    params.set("q", view.q);
    if (page > 1) params.set("page", String(page));
    for (const [name, value] of chosen) params.append("filter", `${name}:${value}`);
    return `?${params}`;
  };
  // Chips are links: a filtered search is a page of its own, shared by its URL.
  const isChosen = (name: string, value: string) =>
    p.chosen.some(([n, v]) => n === name && v === value);
  const toggled = (name: string, value: string) =>
    isChosen(name, value)
      ? p.chosen.filter(([n, v]) => !(n === name && v === value))
      : [...p.chosen, [name, value] as [string, string]];
  const groups = p.facetNames.map((name) => {
    const values = [...(view.facets[name] ?? [])];
    for (const [n, v] of p.chosen) {
      if (n === name && !values.some((x) => x.value === v)) values.push({ value: v, count: 0 });
    }
    return { name, values };
  }).filter((g) => g.values.length > 0);
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
      {view.q && (groups.length || p.chosen.length)
        ? (
          <nav class="facets" aria-label={t("filters")}>
            {groups.map((g) => (
              <div class="fgroup" role="group" aria-label={g.name}>
                <span class="fname" dir="auto">{g.name}</span>
                {g.values.map(({ value, count }) => (
                  <a
                    class="chip"
                    dir="auto"
                    href={href(1, toggled(g.name, value))}
                    aria-current={isChosen(g.name, value) ? "true" : undefined}
                  >
                    {value}
                    {count ? <span class="n">({count})</span> : null}
                  </a>
                ))}
              </div>
            ))}
            {p.chosen.length ? <a class="chip" href={href(1, [])}>{t("clearFilters")}</a> : null}
          </nav>
        )
        : null}
      <p class={view.error ? "status error" : "status"} role="status">{status}</p>
      {view.fixed && !view.loading
        ? <p class="fix">{t("showingResultsFor", { corrected: view.fixed })}</p>
        : null}
      {view.results && view.results.length > 0
        ? (
          <ol class="hits" start={(view.page - 1) * p.perPage + 1}>
            {view.results.map((hit, i) => {
              const link = resultHref(hit.url, p.baseUrl);
              const title = hit.highlights?.find((h) => h.field === "title") ??
                { snippet: hit.title, matches: [] };
              // The description, then the body's snippet, unless one only repeats the other.
              const all = parts(hit);
              const { description, body } = withoutRepeat(all.description, all.body);
              const position = (view.page - 1) * p.perPage + i + 1;
              return (
                <li class="hit">
                  {hit.pinned ? <p class="featured">{t("featured")}</p> : null}
                  <h3 dir="auto">
                    {link
                      ? (
                        <a
                          href={link}
                          onClick={() =>
                            publicApi(p.apiKey).click(view.q, position, hit.url, hit.click)}
                        >
                          <Marked h={title} />
                        </a>
                      )
                      : <Marked h={title} />}
                  </h3>
                  <p class="path" dir="ltr">{hit.url}</p>
                  {description
                    ? (
                      <p class="desc" dir="auto">
                        <Marked h={description} />
                      </p>
                    )
                    : null}
                  {body
                    ? (
                      <p class="snippet" dir="auto">
                        <Marked h={body} />
                      </p>
                    )
                    : null}
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
