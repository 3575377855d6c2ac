/// <reference lib="dom" />
/**
 * results.js, on the search results page: reads `q` and `page` from the URL and draws the
 * count, the results, pagination (history.pushState; Back restores) and a box to refine; with
 * `data-summary="true"`, the AI answer above them when the site has summaries on; with
 * `data-filters="section,category"`, those names' facets as chips that filter the results
 * (each chosen one a `filter=name:value` in the URL, so a filtered search can be shared).
 */
import type { AnswerView } from "./answer.ts";
import { MAX_QUERY_CHARS, type SearchHit as Hit, type SearchResponse } from "../lib/wire_types.ts";
import { ApiFailure, isAbort } from "./client/http.ts";
import { type Api, api, corrected, parts } from "./client/search.ts";
import { withoutRepeat } from "./client/repeats.ts";
import { currentLocale, friendly, langAttrs, t, tn, useLocaleOf } from "./client/strings.ts";
import { baseConfig, ownScript, readable, safeUrl } from "./config.ts";
import { adopt, el, icon, marked, on, ready, report, SEARCH_ICON, shadowHost } from "./dom.ts";
import { RESULTS } from "./styles.ts";

type Config = ReturnType<typeof baseConfig> & {
  summary: boolean;
  perPage: number;
  /** Filter names whose facets are shown, in this order. */
  facets: string[];
};

/** Chosen filters: `[name, value]` pairs, as in the URL's `filter=name:value`. */
type Chosen = (readonly [string, string])[];

function mount(config: Config, client: Api) {
  const [host, root] = shadowHost(RESULTS, "results", config.theme);
  const input = el("input", {
    type: "search",
    class: "input",
    "aria-label": t("searchLabel"),
    placeholder: t("searchPlaceholder"),
    autocomplete: "off",
    enterkeyhint: "search",
    maxlength: String(MAX_QUERY_CHARS),
  });
  const form = el(
    "form",
    { class: "rform", role: "search", action: "" },
    el("div", { class: "field" }, icon(SEARCH_ICON), input),
    el("button", { type: "submit", class: "btn" }, t("search")),
  );
  const answer = el(
    "section",
    { class: "answer", "aria-label": t("aiAnswer"), hidden: true },
    el("p", { class: "badge" }, icon(SPARKLE), t("aiAnswer")),
  );
  const count = el("p", { class: "count", role: "status", tabindex: "-1" });
  const fix = el("p", { class: "fix", hidden: true });
  const notice = el("p", { class: "notice", hidden: true });
  const hits = el("ol", { class: "hits" });
  const pager = el("nav", { class: "pager", "aria-label": t("pagination"), hidden: true });
  const facets = el("div", { class: "facets", role: "group", "aria-label": t("filters") });
  const rp = el("div", { class: "rp" }, form, answer, facets, count, fix, notice, hits, pager);
  root.appendChild(el("div", { class: "root", ...langAttrs() }, rp));
  const target = document.querySelector("[data-site-search-results]") ??
    document.querySelector("main") ?? document.body;
  target.appendChild(host);

  // Summaries: only with data-summary="true", and only when GET /api/site says they are on.
  const site = config.summary ? client.site().catch(() => null) : Promise.resolve(null);
  // The answer's code and styles (answer.js), fetched the first time an answer shows.
  let answerJs: Promise<typeof import("./answer.ts")> | null = null;
  const answerModule = () =>
    answerJs ??= import(new URL("/answer.js", client.origin).href).then(
      (m: typeof import("./answer.ts")) => {
        m.setLocale(currentLocale());
        adopt(root, m.css);
        return m;
      },
      (err) => {
        answerJs = null; // another question may try again
        throw err;
      },
    );
  const answers = new Map<string, AnswerView>();
  let answering = "";
  const showAnswer = async (q: string) => {
    answering = q;
    for (const [k, c] of answers) {
      if (k !== q && c.busy()) { // a half-streamed answer is not kept: asking again is honest
        c.abort();
        answers.delete(k);
      }
    }
    const info = q ? await site : null;
    if (answering !== q) return;
    if (!info?.aiSummaries) return void (answer.hidden = true);
    const { conversation } = await answerModule();
    if (answering !== q) return;
    let conv = answers.get(q);
    if (!conv) {
      conv = conversation(client, q, {
        baseUrl: config.baseUrl,
        followups: info.followups === true,
        onFail: () => {
          answers.set(q, failed);
          if (answering === q) answer.hidden = true;
        },
      });
      answers.set(q, conv);
    }
    answer.replaceChildren(answer.firstChild!, conv.node);
    answer.hidden = conv === failed;
  };

  let shown = 0; // the latest draw wins
  let chosen: Chosen = [];
  const show = async (q: string, page: number, filters: Chosen = []) => {
    const mine = ++shown;
    chosen = filters;
    input.value = q;
    notice.hidden = fix.hidden = true;
    if (answering !== q) answer.hidden = true; // another question's answer goes at once
    if (!q) {
      showAnswer("").catch(report);
      count.textContent = t("typeToSearch");
      hits.replaceChildren();
      facets.replaceChildren();
      pager.hidden = true;
      return;
    }
    rp.setAttribute("aria-busy", "true");
    count.textContent = t("searching");
    let data: SearchResponse;
    try {
      const narrow = { filters, facets: config.facets.length > 0 };
      data = await client.search(q, page, config.perPage, undefined, undefined, narrow);
    } catch (err) {
      if (mine !== shown || isAbort(err)) return;
      rp.removeAttribute("aria-busy");
      showAnswer("").catch(report); // a refused search leaves no answer above it
      return fail(err, () => show(q, page));
    }
    if (mine !== shown) return;
    rp.removeAttribute("aria-busy");
    showAnswer(q).catch(report); // only once the search was let through
    const fixed = corrected(q, data);
    fix.hidden = !fixed;
    fix.textContent = fixed ? t("showingResultsFor", { corrected: fixed }) : "";
    const { found, per_page } = data.meta;
    const pages = Math.max(1, Math.ceil(found / (per_page || config.perPage)));
    count.replaceChildren(
      found === 0 ? t("noResultsFor", { query: q }) : tn("resultsFor", found, { query: q }) +
        (pages > 1 ? " · " + t("pageOf", { page: Math.min(page, pages), pages }) : ""),
    );
    drawFacets(q, data.meta.facets ?? {});
    const first = (Math.min(page, pages) - 1) * (per_page || config.perPage);
    hits.replaceChildren(
      ...data.results.map((h, i) =>
        hit(h, config.baseUrl, () => client.click(q, first + i + 1, h.url, h.click))
      ),
    );
    if (found === 0) {
      notice.textContent = t("noResultsHint");
      notice.hidden = false;
    } else if (data.results.length === 0) {
      notice.replaceChildren(t("pastLastPage") + " ", pageLink(q, 1, t("firstPage")));
      notice.hidden = false;
    }
    drawPager(q, Math.min(page, pages + 1), pages);
  };

  const fail = (err: unknown, retry: () => void) => {
    count.textContent = "";
    hits.replaceChildren();
    facets.replaceChildren();
    pager.hidden = true;
    const again = !(err instanceof ApiFailure) || err.status === 0 || err.status >= 500;
    const button = again
      ? el("button", { type: "button", class: "btn ghost" }, t("tryAgain"))
      : null;
    if (button) on(button, "click", retry);
    notice.replaceChildren(friendly(err), button ?? "");
    notice.hidden = false;
  };

  const urlFor = (q: string, page: number, filters = chosen) => {
    const u = new URL(location.href);
    u.searchParams.set("q", q);
    if (page > 1) u.searchParams.set("page", String(page));
    else u.searchParams.delete("page");
    u.searchParams.delete("filter");
    for (const [name, value] of filters) u.searchParams.append("filter", `${name}:${value}`);
    return u.href;
  };
  const navigate = (q: string, page: number, filters = chosen) => {
    history.pushState(null, "", urlFor(q, page, filters));
    show(q, page, filters).catch(report);
  };
  /** Chips for each shown name's values (the chosen ones pressed), and one to clear them. */
  const drawFacets = (q: string, counts: Record<string, { value: string; count: number }[]>) => {
    const groups = config.facets.flatMap((name) => {
      const values = Array.isArray(counts[name]) ? [...counts[name]] : [];
      // A chosen value outside the largest ten still shows, to be taken off.
      for (const [n, v] of chosen) {
        if (n === name && !values.some((x) => x.value === v)) values.push({ value: v, count: 0 });
      }
      if (!values.length) return [];
      const chips = values.map(({ value, count }) => {
        const pressed = chosen.some(([n, v]) => n === name && v === value);
        const chip = el(
          "button",
          { type: "button", class: "chip", "aria-pressed": String(pressed), dir: "auto" },
          value,
          count ? el("span", { class: "n" }, `(${count})`) : "",
        );
        on(chip, "click", () => {
          const next = pressed
            ? chosen.filter(([n, v]) => !(n === name && v === value))
            : [...chosen, [name, value] as const];
          navigate(q, 1, next);
        });
        return chip;
      });
      return [
        el(
          "div",
          { class: "fgroup", role: "group", "aria-label": name },
          el("span", { class: "fname", dir: "auto" }, name),
          ...chips,
        ),
      ];
    });
    if (chosen.length) {
      const clear = el("button", { type: "button", class: "chip" }, t("clearFilters"));
      on(clear, "click", () => navigate(q, 1, []));
      groups.push(el("div", { class: "fgroup" }, clear));
    }
    facets.replaceChildren(...groups);
  };
  const pageLink = (q: string, n: number, label: string, current = false) => {
    const a = el("a", { href: urlFor(q, n), "aria-current": current ? "page" : undefined }, label);
    on(a, "click", (e: MouseEvent) => {
      if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(q, n);
      count.focus({ preventScroll: true });
      if (host.getBoundingClientRect().top < 0) host.scrollIntoView({ block: "start" });
    });
    return a;
  };
  const drawPager = (q: string, page: number, pages: number) => {
    pager.hidden = pages < 2;
    const items: (HTMLElement | string)[] = [];
    if (page > 1) items.push(pageLink(q, page - 1, t("previous")));
    let last = 0;
    for (let n = 1; n <= pages; n++) {
      if (n !== 1 && n !== pages && Math.abs(n - page) > 2) continue;
      if (n - last > 1) items.push(el("span", { class: "gap", "aria-hidden": "true" }, "…"));
      const a = pageLink(q, n, String(n), n === page);
      a.setAttribute("aria-label", t("page", { page: n }));
      items.push(a);
      last = n;
    }
    if (page < pages) items.push(pageLink(q, page + 1, t("next")));
    pager.replaceChildren(...items);
  };

  const fromUrl = () => {
    const p = new URLSearchParams(location.search);
    const page = Number.parseInt(p.get("page") ?? "1", 10);
    const filters: Chosen = p.getAll("filter").flatMap((f) => {
      const at = f.indexOf(":");
      return at > 0 ? [[f.slice(0, at), f.slice(at + 1)] as const] : [];
    });
    return [(p.get("q") ?? "").trim(), page >= 1 ? page : 1, filters] as const;
  };
  on(form, "submit", (e: Event) => {
    e.preventDefault();
    const q = input.value.trim();
    if (q) navigate(q, 1); // a new query keeps the chosen filters
  });
  on(globalThis, "popstate", () => show(...fromUrl()));
  show(...fromUrl()).catch(report);
}

/** A placeholder for a question whose answer failed: the box stays hidden for it. */
const failed: AnswerView = { node: el("div", {}), busy: () => false, abort: () => {} };

/** One result: title linking to its page, its path, description and highlighted snippet. */
function hit(h: Hit, baseUrl: string, clicked: () => void): HTMLElement {
  const all = parts(h);
  const { title } = all;
  const { description, body } = withoutRepeat(all.description, all.body);
  const href = safeUrl(h.url, baseUrl);
  const heading = marked(title.snippet || String(h.url ?? ""), title.matches);
  const link = href ? el("a", { href }, heading) : null;
  if (link) on(link, "click", clicked);
  return el(
    "li",
    { class: "hit" },
    // A page the site's owner placed first for this query (a curation) says so.
    h.pinned ? el("p", { class: "featured" }, t("featured")) : null,
    el("h3", { dir: "auto" }, link ?? heading),
    href ? el("p", { class: "path", dir: "ltr" }, readable(new URL(href).pathname)) : null,
    description
      ? el("p", { class: "desc", dir: "auto" }, marked(description.snippet, description.matches))
      : null,
    // The body's snippet; one that only repeats the description was left out above.
    body ? el("p", { class: "snip", dir: "auto" }, marked(body.snippet, body.matches)) : null,
  );
}

/** Four-pointed sparkle for the AI answer's label. */
const SPARKLE = "M12 2l2.2 6.6L21 11l-6.8 2.4L12 20l-2.2-6.6L3 11l6.8-2.4L12 2z";

try {
  const tag = ownScript("results.js");
  const data = tag?.dataset ?? {};
  const perPage = Math.min(100, Math.max(1, Number.parseInt(data.perPage ?? "", 10) || 10));
  const facets = (data.filters ?? "").split(",").map((n) => n.trim()).filter(Boolean);
  const config = { ...baseConfig(tag), summary: data.summary === "true", perPage, facets };
  if (!config.key) report("results.js: the script tag has no data-key.");
  const client = api(config.apiOrigin, config.key);
  ready(async () => {
    await useLocaleOf(client, data.lang);
    mount(config, client);
  });
} catch (err) {
  report(err);
}
