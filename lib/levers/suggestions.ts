/**
 * Fixes an owner can apply in one call, from the site's own analytics and index: a synonym
 * for a frequent query that finds nothing or little (the word of titles and headings it most
 * likely means: the later query most of its visitors found pages with, one or two letters
 * away, the same stem, or the word shared by the titles and headings that hold its other
 * words; one suggestion a query, from the strongest of these), and a pin for a frequent query
 * whose clicks mostly go to one page shown below position 3; and the names the site's own pages give a word
 * ("Content Delivery Network (CDN)", "also known as") and its URLs give a page (a redirect,
 * a canonical URL: url_names.ts), which its search already uses at a lower weight, for the
 * owner to make a synonym or dismiss; and a gap: a query that finds nothing for several
 * visitors, for a page to write (or a synonym, naming the word when one of the above fits).
 */
import { invalid } from "../errors.ts";
import type { Equivalence } from "../search/engine/mod.ts";
import { type Expand } from "../search/mod.ts";
import { term } from "../search/engine/mod.ts";
import type { Services } from "../services.ts";
import { addDismissal, dismissal, dismissedSet } from "./dismissed.ts";
import type { Site } from "../sites/store.ts";
import { record, text } from "./check.ts";
import { type QueryEvidence, queryEvidence, type TitleWords, titleWords } from "./evidence.ts";
import { leversFor } from "./levers.ts";
import { dropUrlName, urlNameSuggestions } from "./suggestions_names.ts";
import { LIMITS } from "./limits.ts";
import { phraseKey, phraseWords } from "./normalise.ts";
import type { AnySuggestion, GapSuggestion, Suggestion } from "../wire_types.ts";

export type { AnySuggestion, Suggestion };

/** A query searched fewer times than this is not worth a suggestion. */
const MIN_SEARCHES = 2;
/** "Few results": at most this many. */
const FEW = 2;
/** Queries looked at, most searched first (each costs a search), and words matched at most. */
const MAX_QUERIES = 500;
const MAX_WORD_LOOKUPS = 100;
/** A pin needs this many clicks, this share of them on one page, shown this low on average. */
const MIN_CLICKS = 3;
const PIN_SHARE = 0.6;
const LOW_POSITION = 3;
/** A gap needs this many visitors who found nothing (each counted once a day). */
const GAP_VISITORS = 3;
/** Suggestions answered at most, and dismissals kept. */
const MAX_SUGGESTIONS = 50;
/** Names the pages state, offered at most (most often said first). */
const MAX_STATED = 20;

const quote = (s: string) => `“${s}”`;
const times = (n: number, what: string) =>
  `${n} ${what}${n === 1 ? "" : what.endsWith("h") ? "es" : "s"}`;

/** Edit distance (adjacent swaps count one), or `max + 1` once it is sure to exceed `max`. */
export function distance(a: string, b: string, max = 2): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [], prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j], prev2[j - 2] + 1);
      }
    }
    if (Math.min(...row) > max) return max + 1;
    [prev2, prev] = [prev, row];
  }
  return prev[b.length];
}

/** A candidate's score when one letter away (two letters: half; the same stem: between). */
const ONE_EDIT = 20;

interface Candidate {
  to: string;
  score: number;
  why: string;
}

/** The word of titles and headings a query word most likely means, with the evidence. */
function likelyWord(word: string, others: string[], t: TitleWords, lang: string): Candidate | null {
  let best: Candidate | null = null;
  const offer = (c: Candidate) => {
    if (!best || c.score > best.score) best = c;
  };
  const stem = term(word, lang);
  for (const [w, titles] of t.words) {
    if (w === word || w.length < 3) continue;
    const d = word.length >= 4 ? distance(word, w) : 3;
    if (d <= 2) {
      offer({
        to: w,
        score: (d === 1 ? ONE_EDIT : ONE_EDIT / 2) + Math.log2(1 + titles.length),
        why: `${quote(w)} is ${
          d === 1 ? "one letter" : "two letters"
        } away and in the titles or headings of ${times(titles.length, "page")}`,
      });
    } else if (stem && stem.length >= 4 && term(w, lang) === stem) {
      offer({
        to: w,
        score: ONE_EDIT * 0.75 + Math.log2(1 + titles.length),
        why: `${quote(w)} shares its stem and is in the titles or headings of ${
          times(titles.length, "page")
        }`,
      });
    }
  }
  // The word that titles holding the query's other words share most.
  if (!best && others.length) {
    const sets = others.map((o) => new Set(t.words.get(o) ?? []));
    const counts = new Map<string, number>();
    for (const i of sets[0]) {
      if (!sets.every((s) => s.has(i))) continue;
      for (const w of new Set(phraseWords(t.titles[i]))) {
        if (!others.includes(w) && w.length >= 3) counts.set(w, (counts.get(w) ?? 0) + 1);
      }
    }
    const [top] = [...counts].sort((a, b) => b[1] - a[1]);
    if (top && top[1] >= 2) {
      offer({
        to: top[0],
        score: 5 + top[1],
        why: `${times(top[1], "page")} with ${
          others.map(quote).join(" and ")
        } in a title or heading also say ${quote(top[0])}`,
      });
    }
  }
  return best;
}

/** The fixes for a site from the last `days` days, largest `searches` first. */
export async function suggestions(s: Services, site: Site, days: number) {
  await s.analytics.flush(); // this instance's latest counts
  const [evidence, titles, levers, dismissed, stated] = await Promise.all([
    queryEvidence(s.kv, s.clock, site.id, days),
    titleWords(s.pages, site.id),
    s.levers.current(site.id),
    dismissedSet(s.kv, site.id),
    s.indexes.stated(site.id),
  ]);
  const frequent = [...evidence].map(([q, e]) => [q, e, searched(e)] as const)
    .filter(([, , n]) => n >= MIN_SEARCHES).sort((a, b) => b[2] - a[2]).slice(0, MAX_QUERIES);
  const out: Suggestion[] = [];
  const gaps: { query: string; searches: number; visitors: number }[] = [];
  let lookups = 0;
  for (const [query, e, searches] of frequent) {
    const pin = pinFor(query, e, levers.place?.(query)?.pin ?? []);
    if (pin) out.push(pin);
    const now = await s.indexes.search(site.id, {
      query,
      perPage: FEW + 1,
      ...leversFor(levers, query),
    });
    if (now.found > FEW) continue;
    if (now.found === 0 && e.emptyVisitors >= GAP_VISITORS) {
      gaps.push({ query, searches, visitors: e.emptyVisitors });
    }
    const words = phraseWords(query);
    const next = nextQuery(query, e, titles);
    if (next && !levers.synonymExpand?.(words, () => true).length) {
      const then = await s.indexes.search(site.id, { query: next.to, perPage: FEW + 1 });
      if (then.found > now.found) {
        out.push({
          kind: "synonym",
          query,
          to: next.to,
          searches,
          why: `${times(next.visitors, "visitor")} who searched ${quote(query)} found pages with ${
            quote(next.to)
          } next.`,
          apply: { word: query, means: [next.to] },
        });
        continue;
      }
    }
    const unknown = words.filter((w) => !titles.words.has(w));
    if (unknown.length !== 1) continue; // one word to map, or the fix is not a synonym
    const word = unknown[0];
    // A word pages use finds its own pages: only one they do not (nothing, or read as
    // another word by typo correction) needs a synonym.
    if (now.found > 0 && !now.corrections.some((c) => phraseKey(c.from) === word)) continue;
    if (levers.synonymExpand?.([word], () => true).length) continue; // it has a synonym already
    if (++lookups > MAX_WORD_LOOKUPS) continue;
    const c = likelyWord(word, words.filter((w) => w !== word), titles, titles.lang);
    // Read as a word one edit away already, it is not bettered by a word further off.
    if (!c || (now.found > 0 && c.score < ONE_EDIT)) continue;
    const fixed = await s.indexes.search(site.id, {
      query: words.map((w) => w === word ? c.to : w).join(" "),
      perPage: FEW + 1,
    });
    // Worth it only where it finds more, or other pages (a typo the search already reads
    // as that word would find the same).
    const urls = (r: typeof now) => r.hits.map((h) => h.url).join("\n");
    if (fixed.found < Math.max(1, now.found) || urls(fixed) === urls(now)) continue;
    const found = now.found === 0 ? "found nothing" : `found only ${times(now.found, "page")}`;
    out.push({
      kind: "synonym",
      query,
      to: c.to,
      searches,
      why: `${times(searches, "search")} for ${quote(query)} ${found}; ${c.why}, and ${
        quote(c.to)
      } finds ${times(fixed.found, "page")}.`,
      apply: { word, means: [c.to] },
    });
  }
  const asked = new Set(out.map((x) => x.kind === "synonym" ? x.query : ""));
  out.push(
    ...statedSuggestions(stated, evidence, levers.synonymExpand).filter((x) => !asked.has(x.query)),
    ...urlNameSuggestions(
      levers.names,
      (q) => searched(evidence.get(q)),
      levers.synonymExpand,
      MAX_STATED,
    ).filter((x) => !asked.has(x.query)),
  );
  const kept = await undismissed(out, dismissed);
  // One suggestion a query: a synonym offered for it is the fix, not a page.
  const covered = new Set(kept.map((x) => x.kind === "synonym" ? x.query : ""));
  const open = gaps.filter((g) => !covered.has(g.query)).map((g) =>
    gapFor(g, evidence.get(g.query)!)
  );
  return {
    suggestions: [...kept, ...await undismissed(open, dismissed)]
      .sort((a, b) => b.searches - a.searches).slice(0, MAX_SUGGESTIONS),
  };
}

/** What a suggestion is about beside its query, as its dismissal is kept. */
const target = (x: AnySuggestion) => x.kind === "pin" ? x.url : x.kind === "synonym" ? x.to : "";

/** The suggestions of `list` the owner has not dismissed. */
async function undismissed<T extends AnySuggestion>(list: T[], dismissed: Set<string>) {
  const keys = await Promise.all(list.map((x) => dismissal(x.kind, x.query, target(x))));
  return list.filter((_, i) => !dismissed.has(keys[i]));
}

/**
 * A gap: a page to write, or a synonym of the word its visitors found pages with next, when
 * some did (too few for a synonym suggestion of its own).
 */
function gapFor(
  g: { query: string; searches: number; visitors: number },
  e: QueryEvidence,
): GapSuggestion {
  const [next] = [...e.next].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const synonym = next
    ? `or make it a synonym of ${quote(next[0])}: ${times(next[1], "visitor")} found pages ` +
      `with ${quote(next[0])} next`
    : "or, if your pages call it something else, a synonym of that word";
  return {
    kind: "gap",
    query: g.query,
    searches: g.searches,
    why: `${times(g.visitors, "visitor")} searched ${quote(g.query)} and found nothing. ` +
      `Add a page about it, ${synonym}.`,
  };
}

/** A synonym for each name the pages state that the owner's synonyms do not have yet. */
function statedSuggestions(
  stated: Equivalence[],
  evidence: Map<string, QueryEvidence>,
  expand: Expand | undefined,
): Suggestion[] {
  const out: Suggestion[] = [];
  for (const { words: [short, long], kind, seen } of stated) {
    if (out.length >= MAX_STATED) break;
    if (expand?.(phraseWords(short), () => true).length) continue;
    const said = kind === "abbreviation"
      ? quote(`${long} (${short.toUpperCase()})`)
      : `${quote(long)} also called ${quote(short)}`;
    out.push({
      kind: "synonym",
      query: short,
      to: long,
      searches: searched(evidence.get(short)),
      why: `Your pages say ${said}${seen > 1 ? ` ${times(seen, "time")}` : ""}.`,
      apply: { word: short, means: [long] },
    });
  }
  return out;
}

/** A query's searches: finished ones, and those its visitors left for a query that found pages. */
const searched = (e: QueryEvidence | undefined) =>
  e ? e.searches + [...e.next.values()].reduce((n, v) => n + v, 0) : 0;

/**
 * The later query most of a query's visitors found pages with (at least MIN_SEARCHES of them,
 * and no other as often) as a synonym's meaning: itself if it fits a phrase, else its words
 * that titles and headings hold (and the query does not).
 */
function nextQuery(
  query: string,
  e: QueryEvidence,
  t: TitleWords,
): { to: string; visitors: number } | null {
  const [top, second] = [...e.next].sort((a, b) => b[1] - a[1]);
  if (!top || top[1] < MIN_SEARCHES || top[1] === second?.[1]) return null;
  const fits = (q: string) => {
    const n = phraseWords(q).length;
    return n > 0 && n <= LIMITS.wordsPerPhrase && q.length <= LIMITS.phraseChars;
  };
  const own = new Set(phraseWords(query));
  const to = fits(top[0])
    ? top[0]
    : phraseWords(top[0]).filter((w) => t.words.has(w) && !own.has(w)).join(" ");
  return fits(query) && fits(to) ? { to, visitors: top[1] } : null;
}

function pinFor(query: string, e: QueryEvidence, pinned: string[]): Suggestion | null {
  const total = [...e.clicks.values()].reduce((n, c) => n + c.n, 0);
  if (total < MIN_CLICKS) return null;
  const [url, top] = [...e.clicks].sort((a, b) => b[1].n - a[1].n)[0];
  const average = top.positions / top.n;
  if (top.n / total < PIN_SHARE || average <= LOW_POSITION || pinned.includes(url)) return null;
  return {
    kind: "pin",
    query,
    url,
    searches: e.searches,
    why: `${top.n} of ${times(total, "click")} after searching ${quote(query)} went to ${url}, ` +
      `shown at position ${Math.round(average * 10) / 10} on average.`,
    apply: { query, match: "exact", pin: [url], hide: [] },
  };
}

/**
 * Keeps a suggestion from coming back: body `{kind, query, to}`, `{kind, query, url}`, or
 * `{kind: "gap", query}`.
 */
export async function dismissSuggestion(s: Services, site: Site, body: unknown) {
  const o = record(body, "body", ["kind", "query", "to", "url"]);
  if (o.kind !== "synonym" && o.kind !== "pin" && o.kind !== "gap") {
    throw invalid("kind", "kind must be synonym, pin or gap.");
  }
  const query = text(o.query, "query", LIMITS.queryChars);
  const target = o.kind === "pin"
    ? text(o.url, "url", 500)
    : o.kind === "synonym"
    ? text(o.to, "to", LIMITS.phraseChars)
    : "";
  await addDismissal(s.kv, site.id, await dismissal(o.kind, query, target));
  // A name the site's URLs give is dropped from searches too.
  if (o.kind === "synonym") await dropUrlName(s, site.id, query, target);
}
