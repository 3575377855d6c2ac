/**
 * Retrieval for summaries: the site's best pages (and, on plans with
 * documents, its best documents), cut into passages, the passages that best
 * cover the question kept. One source per page or document, numbered as the
 * answer cites them ([n] is sources[n - 1]).
 */
import { terms } from "./extractive.ts";
import { splitPassages } from "./passages.ts";
import { PLANS } from "../limits/plans.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import type { SourceText, Turn } from "./summarizer.ts";

export type SourceRef =
  | { type: "page"; title: string; url: string }
  | { type: "document"; title: string; documentId: string }
  | { type: "external"; label: string };

export interface Retrieved {
  texts: SourceText[];
  refs: SourceRef[];
}

const MAX_SOURCES = 5;
const PASSAGES_PER_SOURCE = 2;
/** The best passages of a very long page are nearly always early; reading further costs time. */
const MAX_TEXT_PER_SOURCE = 40_000;

/** What to search for: the question, plus the previous question for a follow-up's context. */
export function retrievalQuery(question: string, history: Turn[]): string {
  const previous = history.filter((t) => t.role === "user").slice(-1).map((t) => t.content);
  return [question, ...previous].join(" ").slice(0, 600);
}

/** Share of the query's terms a passage covers, rarer terms weighing more. */
function scorer(queryTerms: string[], passages: string[][]) {
  const df = new Map<string, number>();
  for (const p of passages) {
    const set = new Set(p);
    for (const t of queryTerms) if (set.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const idf = (t: string) => Math.log(1 + (passages.length + 1) / ((df.get(t) ?? 0) + 0.5));
  return (p: string[]) => {
    const set = new Set(p);
    return queryTerms.reduce((sum, t) => sum + (set.has(t) ? idf(t) : 0), 0);
  };
}

/** The numbered source texts and their references for one question. */
export async function retrieve(
  s: Services,
  site: Site,
  question: string,
  history: Turn[],
): Promise<Retrieved> {
  const q = retrievalQuery(question, history);
  const [pages, docs] = await Promise.all([
    s.indexes.top(site.id, q, 6, MAX_TEXT_PER_SOURCE),
    PLANS[site.plan].documents ? s.documentIndexes.top(site.id, q, 4, MAX_TEXT_PER_SOURCE) : [],
  ]);
  // `rank` is the place in its own index's results: pages and documents are ranked apart.
  const candidates = [
    ...pages.map((d, rank) => ({
      ref: { type: "page", title: d.title, url: d.id } as SourceRef,
      doc: d,
      rank,
    })),
    ...docs.map((d, rank) => ({
      ref: { type: "document", title: d.title, documentId: d.id } as SourceRef,
      doc: d,
      rank,
    })),
  ];
  const queryTerms = [...new Set(terms(q))];
  // Stemming every word is the costly part: only passages that contain a query stem need it.
  const roots = queryTerms.map((t) => t.slice(0, Math.max(3, t.length - 1)));
  const mayMatch = (p: string) => {
    const lower = p.toLowerCase();
    return roots.some((r) => lower.includes(r));
  };
  const withTerms = candidates.map((c) => {
    const passages = splitPassages(c.doc.body.slice(0, MAX_TEXT_PER_SOURCE)).filter(mayMatch);
    return { ...c, passages, terms: passages.map((p) => terms(c.doc.title + " " + p)) };
  });
  const score = scorer(queryTerms, withTerms.flatMap((c) => c.terms));
  const ranked = withTerms.map((c) => {
    const scored = c.passages.map((text, i) => ({ text, i, score: score(c.terms[i]) }));
    const best = scored.filter((p) => p.score > 0).sort((a, b) => b.score - a.score)
      .slice(0, PASSAGES_PER_SOURCE).sort((a, b) => a.i - b.i);
    // The search ranking (title matches, coverage of the whole page) still counts.
    const weight = 1 / (1 + 0.2 * c.rank);
    return { ...c, best, top: weight * best.reduce((m, p) => Math.max(m, p.score), 0) };
  }).filter((c) => c.best.length > 0)
    .sort((a, b) => b.top - a.top)
    .slice(0, MAX_SOURCES);
  return {
    texts: ranked.map((c, i) => ({
      n: i + 1,
      title: c.doc.title,
      text: c.best.map((p) => p.text).join("\n…\n"),
    })),
    refs: ranked.map((c) => c.ref),
  };
}
