/**
 * The answers' self-check: the questions a site's own pages ask and answer (a section headed
 * by a question: FAQ headings ending in "?", `<dt>`/`<dd>`, `<details>`/`<summary>`, FAQPage
 * JSON-LD, which the crawler makes sections of) go through the answerer as visitors' questions
 * do, checked as theirs are, spending no credit. Each run gives F1 against the section's text,
 * the share whose page is cited first, the share answered "not on this site", and the worst
 * questions; the last runs are kept so the owner sees a trend after each crawl.
 */
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import { contentTerms, questionShaped, questionText } from "./analysis.ts";
import { retrieve, type SourceRef } from "./retrieve.ts";
import { checkedAnswer } from "./support.ts";
import { splitQuestions, splitSections } from "./sections.ts";
import { truncateAnswer } from "./summarizer.ts";
import type { SelfCheckRun } from "../wire_types.ts";

/** Questions one run asks at most, and pages it reads for them at most. */
const MAX_QUESTIONS = 60;
const MAX_PAGES = 5_000;
/** Runs kept per site (the trend the dashboard shows). */
export const KEPT_RUNS = 20;
/** Characters an answer under a question has at least (shorter is a label, not an answer). */
const MIN_GOLD = 20;
/** Worst questions a run lists. */
const WORST = 5;
/** A model's answer waited for at most, per question. */
const MODEL_MS = 20_000;

const runKey = (site: string, at: string) => ["selfcheck", site, at];

/**
 * A site's questions and the sections that answer them, in URL order, bounded: sections read
 * as retrieval reads them (sections.ts), an FAQ section cut at each question it asks.
 */
async function pairs(s: Services, site: Site) {
  const out: { question: string; url: string; gold: string; lang: string }[] = [];
  let read = 0;
  for await (const page of s.pages.all(site.id)) {
    if (++read > MAX_PAGES || out.length >= MAX_QUESTIONS) break;
    for (const section of splitSections(page).flatMap(splitQuestions)) {
      if (!questionShaped(section.heading) || section.text.trim().length < MIN_GOLD) continue;
      out.push({
        question: questionText(section.heading),
        url: page.url,
        gold: section.text,
        lang: page.lang || "en",
      });
      if (out.length >= MAX_QUESTIONS) break;
    }
  }
  return out;
}

/** F1 of two texts' content words (each word counted as often as it comes). */
export function wordF1(answer: string, gold: string, lang = "en"): number {
  const a = contentTerms(answer, lang), g = contentTerms(gold, lang);
  if (!a.length || !g.length) return 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of a) {
    const n = counts.get(t) ?? 0;
    if (n > 0) common++, counts.set(t, n - 1);
  }
  if (!common) return 0;
  const precision = common / a.length, recall = common / g.length;
  return (2 * precision * recall) / (precision + recall);
}

/** One question answered as a visitor's is (retrieved, answered, checked), without a credit. */
async function answerOf(s: Services, site: Site, question: string) {
  const found = await retrieve(s, site, question);
  if (!found.matched) return null;
  const input = {
    question: found.question,
    history: [],
    sources: found.texts,
    externalKnowledge: false,
  };
  let text = "";
  if (s.summarizer.compose) text = s.summarizer.compose(input);
  else {
    const signal = AbortSignal.timeout(MODEL_MS);
    for await (const delta of s.summarizer.stream({ ...input, signal })) text += delta;
  }
  const checked = checkedAnswer(truncateAnswer(text).answer, found.texts, found.refs);
  return checked.answered ? checked : null;
}

const pageOf = (r: SourceRef | undefined) => r?.type === "page" ? r.url.split("#")[0] : "";
const round = (n: number) => Math.round(n * 1000) / 1000;

/** Runs the self-check now, keeps the run (the last KEPT_RUNS), and returns it. */
export async function runSelfCheck(s: Services, site: Site): Promise<SelfCheckRun> {
  return await runOn(s, site, await pairs(s, site));
}

/**
 * The run after each crawl, for the trend: on a site with AI answers on and questions of its
 * own, with the built-in summarizer. A model's answers cost the operator, so with one the
 * owner starts a run (POST …/answers/selfcheck).
 */
export async function selfCheckAfterCrawl(s: Services, site: Site): Promise<void> {
  if (!site.settings.aiSummaries || !s.summarizer.compose) return;
  const asked = await pairs(s, site);
  if (asked.length) await runOn(s, site, asked);
}

async function runOn(
  s: Services,
  site: Site,
  asked: Awaited<ReturnType<typeof pairs>>,
): Promise<SelfCheckRun> {
  let f1 = 0, first = 0, abstained = 0;
  const scored: { question: string; expected: string; got: string; f1: number }[] = [];
  for (const p of asked) {
    const a = await answerOf(s, site, p.question);
    const got = pageOf(a?.sources[0]);
    const score = a ? wordF1(a.answer.replace(/\[\d+(?:,\s*\d+)*\]/g, " "), p.gold, p.lang) : 0;
    if (!a) abstained++;
    if (got === p.url) first++;
    f1 += score;
    scored.push({ question: p.question, expected: p.url, got, f1: score });
  }
  const n = asked.length;
  const run: SelfCheckRun = {
    at: new Date(s.clock()).toISOString(),
    questions: n,
    f1: n ? round(f1 / n) : 0,
    citedFirst: n ? round(first / n) : 0,
    abstained: n ? round(abstained / n) : 0,
    worst: scored.sort((a, b) => a.f1 - b.f1).slice(0, WORST)
      .map(({ question, expected, got }) => ({ question, expected, got })),
  };
  await s.kv.set(runKey(site.id, run.at), run);
  const runs: Deno.KvKey[] = [];
  for await (const e of s.kv.list({ prefix: ["selfcheck", site.id] }, { reverse: true })) {
    runs.push(e.key);
  }
  for (const key of runs.slice(KEPT_RUNS)) await s.kv.delete(key);
  return run;
}

/** The site's kept runs, newest first. */
export async function selfCheckRuns(s: Services, site: Site): Promise<SelfCheckRun[]> {
  const out: SelfCheckRun[] = [];
  const iter = s.kv.list<SelfCheckRun>({ prefix: ["selfcheck", site.id] }, {
    reverse: true,
    limit: KEPT_RUNS,
  });
  for await (const e of iter) out.push(e.value);
  return out;
}
