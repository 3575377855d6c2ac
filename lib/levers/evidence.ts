/**
 * What suggestions are made from: the site's own analytics (searches and empty searches per
 * query, clicks per query and page, the query a typing session found pages with after one that
 * found none) and the words of its pages' titles and headings.
 */
import { dayOf } from "../analytics/keys.ts";
import { dayRange } from "../analytics/report.ts";
import type { Clock } from "../clock.ts";
import type { PageStore } from "../sites/pages.ts";
import { languageOf } from "../search/engine/mod.ts";
import { phraseWords } from "./normalise.ts";

export interface QueryEvidence {
  searches: number;
  noResults: number;
  /** Visitors it found nothing for, each counted once a day. */
  emptyVisitors: number;
  /** Page path → clicks and the sum of their positions. */
  clicks: Map<string, { n: number; positions: number }>;
  /** The later query a typing session found pages with, when this one found none → visitors. */
  next: Map<string, number>;
}

const empty = (): QueryEvidence => ({
  searches: 0,
  noResults: 0,
  emptyVisitors: 0,
  clicks: new Map(),
  next: new Map(),
});

const num = (v: unknown) => v instanceof Deno.KvU64 ? Number(v.value) : 0;

/** A site's queries of the last `days` days with their counts and clicks. */
export async function queryEvidence(
  kv: Deno.Kv,
  clock: Clock,
  site: string,
  days: number,
): Promise<Map<string, QueryEvidence>> {
  const range = dayRange(clock(), days);
  const end = dayOf(Date.parse(range.at(-1)!) + 86_400_000);
  const out = new Map<string, QueryEvidence>();
  const of = (q: string) => {
    let e = out.get(q);
    if (!e) out.set(q, e = empty());
    return e;
  };
  for await (const e of kv.list({ start: ["an", site, range[0]], end: ["an", site, end] })) {
    const [, , , kind, q, url] = e.key as string[];
    const n = num(e.value);
    if (kind === "q") of(q).searches += n;
    else if (kind === "z") of(q).noResults += n;
    else if (kind === "v") of(q).emptyVisitors += n;
    else if (kind === "r" && typeof url === "string") {
      const next = of(q).next;
      next.set(url, (next.get(url) ?? 0) + n);
    } else if ((kind === "c" || kind === "p") && typeof url === "string") {
      const clicks = of(q).clicks;
      const c = clicks.get(url) ?? { n: 0, positions: 0 };
      if (kind === "c") c.n += n;
      else c.positions += n;
      clicks.set(url, c);
    }
  }
  return out;
}

/** Words of page titles and headings → the pages that hold them (by index in `titles`). */
export interface TitleWords {
  /** Each page's title and headings, one a line. */
  titles: string[];
  words: Map<string, number[]>;
  /** The language most pages declare (stems are taken in it). */
  lang: string;
}

/** Pages and headings a page read at most (suggestions need the site's words, not all pages'). */
const MAX_TITLES = 10_000;
const MAX_HEADINGS = 500;

/** The words of the site's page titles and headings. */
export async function titleWords(pages: PageStore, site: string): Promise<TitleWords> {
  const titles: string[] = [];
  const words = new Map<string, number[]>();
  const langs = new Map<string, number>();
  for await (const meta of pages.metas(site)) {
    const lang = languageOf(meta.lang);
    langs.set(lang, (langs.get(lang) ?? 0) + 1);
    // A page's headings name what it covers as well as its title does.
    const text = [meta.title, ...(meta.headings ?? []).slice(0, MAX_HEADINGS)].join("\n");
    const i = titles.push(text) - 1;
    for (const w of new Set(phraseWords(text))) {
      const list = words.get(w);
      if (list) list.push(i);
      else words.set(w, [i]);
    }
    if (titles.length >= MAX_TITLES) break;
  }
  const [lang] = [...langs].sort((a, b) => b[1] - a[1])[0] ?? ["en"];
  return { titles, words, lang };
}
